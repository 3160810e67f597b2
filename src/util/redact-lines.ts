/**
 * Running a pattern only over the lines that can hold a match. The patterns that find named
 * secrets (`API_KEY=...`, `password: ...`, `?token=...`) never cross a line break and each needs
 * a secret word in the line; tried at every position of a 100 KB log they cost milliseconds
 * where one scan for the words and a few short lines cost a fraction of that.
 */

/** What starting the pattern on one more line costs, in characters of text it could scan instead. */
const PER_LINE_COST = 64;

// The replacer String.prototype.replace calls: the match, its groups, the offset, the whole string.
// biome-ignore lint/suspicious/noExplicitAny: groups may be undefined, so their types vary per pattern
export type Replacer = (match: string, ...rest: any[]) => string;

/** A line of a text: `[start, end)`, `end` at its newline or at the end of the text. */
export type LineSpan = readonly [number, number];

function lineAround(text: string, at: number): LineSpan {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  const end = text.indexOf("\n", at);
  return [start, end === -1 ? text.length : end];
}

/** The lines of `text`, in order, on which the global pattern `word` finds something. */
export function linesWith(text: string, word: RegExp): LineSpan[] {
  const lines: LineSpan[] = [];
  word.lastIndex = 0;
  for (let found = word.exec(text); found !== null; found = word.exec(text)) {
    const line = lineAround(text, found.index);
    lines.push(line);
    if (line[1] >= text.length) break;
    word.lastIndex = line[1];
  }
  return lines;
}

/** The lines of `text` that contain the literal `piece`, in order. */
export function linesContaining(text: string, piece: string): LineSpan[] {
  const lines: LineSpan[] = [];
  for (let at = text.indexOf(piece); at !== -1; ) {
    const line = lineAround(text, at);
    lines.push(line);
    at = line[1] >= text.length ? -1 : text.indexOf(piece, line[1]);
  }
  return lines;
}

/**
 * `text` with `pattern` (global, never matching across a line break) replaced on the given
 * lines only. The replacer sees each line as the whole string and offsets within it, which for
 * such a pattern is what it would see of the whole text: its look-behinds find a line break or
 * the start, both of which end a name.
 */
export function replaceOnLines(text: string, lines: readonly LineSpan[], pattern: RegExp, replacer: Replacer): string {
  if (lines.length === 0) return text;
  // When most of the text is on such lines, one pass over all of it costs less than a pass per line.
  let covered = 0;
  for (const [start, end] of lines) covered += end - start + PER_LINE_COST;
  if (covered > text.length) return text.replace(pattern, replacer);
  let out = "";
  let copied = 0;
  let changed = false;
  for (const [start, end] of lines) {
    const line = text.slice(start, end);
    const replaced = line.replace(pattern, replacer);
    if (replaced === line) continue;
    out += text.slice(copied, start) + replaced;
    copied = end;
    changed = true;
  }
  return changed ? out + text.slice(copied) : text;
}
