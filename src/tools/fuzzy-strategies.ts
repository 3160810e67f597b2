/**
 * The patch tool's chain of match strategies: the shared ones from util/fuzzy-match, with the
 * last resort extended to old text of one or two lines (line by line similarity).
 */
import {
  blockSimilarity,
  type FoundMatch,
  MATCH_STRATEGIES,
  type MatchStrategy,
  reindent,
  type SimilarityBudget,
} from "../util/fuzzy-match.js";

/** Strategies that accept text only resembling the old text, not equal to it after normalising. */
export const SIMILARITY_STRATEGIES: ReadonlySet<string> = new Set(["block_anchor", "context_aware"]);

const LINE_MIN_SIMILARITY = 0.8;

interface FileLine {
  text: string;
  start: number;
  end: number;
}

function fileLines(content: string): FileLine[] {
  const lines: FileLine[] = [];
  let start = 0;
  for (const text of content.split("\n")) {
    lines.push({ text, start, end: start + text.length });
    start += text.length + 1;
  }
  return lines;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];

/**
 * Old text of one or two lines: a window of file lines matches when each non-blank old line is
 * at least 80% similar to the file line beside it (both trimmed).
 */
function similarShortBlock(content: string, oldText: string): FoundMatch[] {
  const lines = oldText.split("\n");
  const trailingNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (trailingNewline) lines.pop();
  const wanted = lines.map((l) => l.trim());
  const anchor = wanted.findIndex((l) => l !== "");
  if (anchor < 0) return [];
  const file = fileLines(content);
  const budget: SimilarityBudget = { cells: 20_000_000 };
  const close = (want: string, have: string) => {
    if (want === "") return true;
    const shorter = Math.min(want.length, have.length);
    const longer = Math.max(want.length, have.length);
    return shorter >= LINE_MIN_SIMILARITY * longer && blockSimilarity([want], [have], budget) >= LINE_MIN_SIMILARITY;
  };
  const found: FoundMatch[] = [];
  for (let i = 0; i + lines.length <= file.length; i++) {
    if (!wanted.every((want, k) => close(want, file[i + k]!.text.trim()))) continue;
    const last = file[i + lines.length - 1]!;
    let end = last.end;
    if (trailingNewline && content[end] === "\n") end++;
    else if (last.text.endsWith("\r")) end--;
    const oldIndent = indentOf(lines[anchor]!);
    const fileIndent = indentOf(file[i + anchor]!.text);
    found.push({ start: file[i]!.start, end, adapt: (text) => reindent(text, oldIndent, fileIndent) });
    i += lines.length - 1;
  }
  return found;
}

function shared(name: string): MatchStrategy {
  const strategy = MATCH_STRATEGIES.find((s) => s.name === name);
  if (!strategy) throw new Error(`no shared match strategy named ${name}`);
  return strategy;
}

const blockContext = shared("context_aware");

/** Last resort: the shared block strategy for three lines or more, line similarity below that. */
const contextAware: MatchStrategy = {
  name: "context_aware",
  find(content, oldText) {
    const lineCount = oldText.replace(/\n$/, "").split("\n").length;
    return lineCount >= 3 ? blockContext.find(content, oldText) : similarShortBlock(content, oldText);
  },
};

/** The strategies in the order they are tried. */
export const PATCH_STRATEGIES: readonly MatchStrategy[] = MATCH_STRATEGIES.map((s) =>
  s.name === contextAware.name ? contextAware : s,
);
