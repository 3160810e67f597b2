/**
 * Strategies that locate a block of text a model wants to replace, from exact matching down to
 * increasingly tolerant ones. Each returns the non-overlapping places it found, with the way
 * the replacement must be adapted to the file at that place.
 */
import {
  collapseBlanks,
  foldText,
  foldUnicode,
  type Mapped,
  mapped,
  occurrences,
  unicodeAdapter,
} from "./folded-text.js";

export interface FoundMatch {
  start: number;
  end: number;
  /** Adapts the replacement text to the matched place (indentation, escapes, characters). */
  adapt: (replacement: string) => string;
}

export interface MatchStrategy {
  name: string;
  find: (content: string, oldText: string) => FoundMatch[];
}

const asIs = (text: string) => text;

// ---------------------------------------------------------------------------------------------
// Line helpers

interface Line {
  text: string;
  start: number;
  end: number;
}

function linesOf(content: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (true) {
    const nl = content.indexOf("\n", start);
    const end = nl < 0 ? content.length : nl;
    lines.push({ text: content.slice(start, end), start, end });
    if (nl < 0) return lines;
    start = nl + 1;
  }
}

/** The lines of the old text; a final newline means the match swallows the newline too. */
function oldLinesOf(oldText: string): { lines: string[]; trailingNewline: boolean } {
  const lines = oldText.split("\n");
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  return { lines, trailingNewline };
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];

/** Re-indents a replacement written at `oldIndent` so it sits at `fileIndent`, keeping relative indentation. */
export function reindent(text: string, oldIndent: string, fileIndent: string): string {
  if (oldIndent === fileIndent) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      if (line.startsWith(oldIndent)) return fileIndent + line.slice(oldIndent.length);
      return fileIndent + line.trimStart();
    })
    .join("\n");
}

/**
 * Turns windows of file lines [first, last] into matches covering whole lines, re-indenting the
 * replacement from the old text's indentation to the file's.
 */
function lineMatches(
  content: string,
  fileLines: Line[],
  windows: Array<[number, number]>,
  oldLines: string[],
  trailingNewline: boolean,
): FoundMatch[] {
  const anchor = Math.max(
    0,
    oldLines.findIndex((l) => l.trim() !== ""),
  );
  return windows.map(([first, last]) => {
    const start = fileLines[first]!.start;
    let end = fileLines[last]!.end;
    if (trailingNewline && content[end] === "\n") end++;
    const fileAnchor = fileLines[Math.min(first + anchor, last)]!.text;
    const oldIndent = indentOf(oldLines[anchor] ?? "");
    const fileIndent = indentOf(fileAnchor);
    return { start, end, adapt: (replacement: string) => reindent(replacement, oldIndent, fileIndent) };
  });
}

/** Windows of `size` consecutive lines accepted by `same`, without overlaps. */
function slidingWindows(
  fileLines: Line[],
  size: number,
  same: (windowStart: number) => boolean,
): Array<[number, number]> {
  const windows: Array<[number, number]> = [];
  for (let i = 0; i + size <= fileLines.length; i++) {
    if (same(i)) {
      windows.push([i, i + size - 1]);
      i += size - 1;
    }
  }
  return windows;
}

function hasContent(lines: string[]): boolean {
  return lines.some((l) => l.trim() !== "");
}

function mappedMatches(
  map: Mapped,
  needle: string,
  adapt: (start: number, end: number) => FoundMatch["adapt"],
): FoundMatch[] {
  return occurrences(map.text, needle).map((at) => {
    const start = map.from[at]!;
    const end = map.to[at + needle.length - 1]!;
    return { start, end, adapt: adapt(start, end) };
  });
}

// ---------------------------------------------------------------------------------------------
// Similarity for the anchor strategies

function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  let prev = new Int32Array(b.length + 1).map((_, j) => j);
  let row = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, substitution);
    }
    [prev, row] = [row, prev];
  }
  return prev[b.length]!;
}

/** Work allowed for character-level comparison, shared by all candidates of one search. */
export interface SimilarityBudget {
  cells: number;
}

/**
 * Similarity in [0, 1] of two blocks of lines (1 = identical after trimming each line).
 * Character-level edit distance is used while the budget lasts, then the share of equal lines.
 */
export function blockSimilarity(a: string[], b: string[], budget: SimilarityBudget = { cells: 4_000_000 }): number {
  const left = a.map((l) => l.trim()).join("\n");
  const right = b.map((l) => l.trim()).join("\n");
  const longest = Math.max(left.length, right.length);
  if (longest === 0) return 1;
  const cells = left.length * right.length;
  if (cells > budget.cells) {
    const shared = a.filter((line, i) => line.trim() === b[i]?.trim()).length;
    return shared / Math.max(a.length, b.length);
  }
  budget.cells -= cells;
  return 1 - levenshtein(left, right) / longest;
}

const BLOCK_ANCHOR_MIN_SIMILARITY = 0.5;
const CONTEXT_MIN_SHARED_LINES = 0.5;

// ---------------------------------------------------------------------------------------------
// The chain

const CONTROL_ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r" };

function exactMatches(content: string, needle: string, adapt: FoundMatch["adapt"]): FoundMatch[] {
  return occurrences(content, needle).map((start) => ({ start, end: start + needle.length, adapt }));
}

const exact: MatchStrategy = {
  name: "exact",
  find: (content, oldText) => exactMatches(content, oldText, asIs),
};

const lineTrimmed: MatchStrategy = {
  name: "line_trimmed",
  find(content, oldText) {
    const { lines, trailingNewline } = oldLinesOf(oldText);
    if (!hasContent(lines)) return [];
    const fileLines = linesOf(content);
    const trimmed = lines.map((l) => l.trim());
    const windows = slidingWindows(fileLines, lines.length, (i) =>
      trimmed.every((t, k) => fileLines[i + k]!.text.trim() === t),
    );
    return lineMatches(content, fileLines, windows, lines, trailingNewline);
  },
};

const whitespaceNormalized: MatchStrategy = {
  name: "whitespace_normalized",
  find(content, oldText) {
    const needle = oldText.replace(/[ \t]+/g, " ");
    if (needle.trim() === "") return [];
    return mappedMatches(mapped(content, collapseBlanks), needle, () => asIs);
  },
};

function withoutCommonIndent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== "").map((l) => indentOf(l).length);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === "" ? "" : l.slice(common).replace(/\r$/, "")));
}

const indentationFlexible: MatchStrategy = {
  name: "indentation_flexible",
  find(content, oldText) {
    const { lines, trailingNewline } = oldLinesOf(oldText);
    if (!hasContent(lines)) return [];
    const fileLines = linesOf(content);
    const wanted = withoutCommonIndent(lines).join("\n");
    const windows = slidingWindows(
      fileLines,
      lines.length,
      (i) => withoutCommonIndent(fileLines.slice(i, i + lines.length).map((l) => l.text)).join("\n") === wanted,
    );
    return lineMatches(content, fileLines, windows, lines, trailingNewline);
  },
};

/**
 * Old text whose line breaks, tabs or carriage returns arrived as backslash sequences. The new
 * text is written as given: the patch tool decides which of its escapes to turn into characters.
 */
const escapeNormalized: MatchStrategy = {
  name: "escape_normalized",
  find(content, oldText) {
    const needle = oldText.replace(/\\([ntr])/g, (_m, ch: string) => CONTROL_ESCAPES[ch]!);
    if (needle === oldText) return [];
    return exactMatches(content, needle, asIs);
  },
};

const trimmedBoundary: MatchStrategy = {
  name: "trimmed_boundary",
  find(content, oldText) {
    const needle = oldText.trim();
    if (needle === oldText || needle === "") return [];
    const trimStart = /^\s/.test(oldText);
    const trimEnd = /\s$/.test(oldText);
    return exactMatches(content, needle, (replacement) => {
      const head = trimStart ? replacement.trimStart() : replacement;
      return trimEnd ? head.trimEnd() : head;
    });
  },
};

const unicodeNormalized: MatchStrategy = {
  name: "unicode_normalized",
  find(content, oldText) {
    const map = mapped(content, foldUnicode);
    const needle = foldText(oldText);
    if (map.text === content && needle === oldText) return [];
    return mappedMatches(map, needle, (start, end) => unicodeAdapter(content.slice(start, end)));
  },
};

const blockAnchor: MatchStrategy = {
  name: "block_anchor",
  find(content, oldText) {
    const { lines, trailingNewline } = oldLinesOf(oldText);
    if (lines.length < 3) return [];
    const first = lines[0]!.trim();
    const last = lines[lines.length - 1]!.trim();
    if (first === "" || last === "") return [];
    const fileLines = linesOf(content);
    const windows: Array<[number, number]> = [];
    const budget: SimilarityBudget = { cells: 20_000_000 };
    for (let i = 0; i < fileLines.length; i++) {
      if (fileLines[i]!.text.trim() !== first) continue;
      const limit = Math.min(fileLines.length - 1, i + 2 * lines.length);
      for (let j = i + 2; j <= limit; j++) {
        if (fileLines[j]!.text.trim() !== last) continue;
        const middle = fileLines.slice(i + 1, j).map((l) => l.text);
        if (blockSimilarity(lines.slice(1, -1), middle, budget) >= BLOCK_ANCHOR_MIN_SIMILARITY) {
          windows.push([i, j]);
          i = j;
        }
        break;
      }
    }
    return lineMatches(content, fileLines, windows, lines, trailingNewline);
  },
};

const contextAware: MatchStrategy = {
  name: "context_aware",
  find(content, oldText) {
    const { lines, trailingNewline } = oldLinesOf(oldText);
    if (lines.length < 3 || !hasContent(lines)) return [];
    const fileLines = linesOf(content);
    const trimmed = lines.map((l) => l.trim());
    let best = 0;
    let windows: Array<[number, number]> = [];
    for (let i = 0; i + lines.length <= fileLines.length; i++) {
      const same = (k: number) => fileLines[i + k]!.text.trim() === trimmed[k];
      if (!same(0) && !same(lines.length - 1)) continue;
      // Score the lines between the anchors: at least half of them must match.
      let shared = 0;
      for (let k = 1; k < lines.length - 1; k++) if (trimmed[k] !== "" && same(k)) shared++;
      const score = shared / (lines.length - 2);
      if (score < CONTEXT_MIN_SHARED_LINES || score < best) continue;
      if (score > best) {
        best = score;
        windows = [];
      }
      const previous = windows[windows.length - 1];
      if (!previous || previous[1] < i) windows.push([i, i + lines.length - 1]);
    }
    return lineMatches(content, fileLines, windows, lines, trailingNewline);
  },
};

/** The strategies in the order they are tried. */
export const MATCH_STRATEGIES: readonly MatchStrategy[] = [
  exact,
  lineTrimmed,
  whitespaceNormalized,
  indentationFlexible,
  escapeNormalized,
  trimmedBoundary,
  unicodeNormalized,
  blockAnchor,
  contextAware,
];
