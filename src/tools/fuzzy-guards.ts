/**
 * Checks and repairs around a fuzzy replacement: where ambiguous matches are, quotes that picked
 * up a stray backslash in transit, indentation slips in the new text, and tabs or carriage
 * returns that arrived as two-character escapes.
 */

const MAX_LOCATIONS = 5;
const MAX_SNIPPET = 80;

/** One "  L<line>: <line text>" row per match start (the first five), then how many more. */
export function describeLocations(content: string, starts: readonly number[]): string {
  const rows = starts.slice(0, MAX_LOCATIONS).map((start) => {
    const lineNumber = content.slice(0, start).split("\n").length;
    const lineStart = content.lastIndexOf("\n", start - 1) + 1;
    const lineEnd = content.indexOf("\n", start);
    let text = content.slice(lineStart, lineEnd < 0 ? content.length : lineEnd).trim();
    if (text.length > MAX_SNIPPET) text = `${text.slice(0, MAX_SNIPPET - 3)}...`;
    return `  L${lineNumber}: ${text}`;
  });
  if (starts.length > MAX_LOCATIONS) rows.push(`  ... and ${starts.length - MAX_LOCATIONS} more`);
  return rows.join("\n");
}

const ESCAPED_QUOTES = ["\\'", '\\"'] as const;

/**
 * An error when `oldText` (and `newText`, when given) carry a backslash-escaped quote that
 * `fileText` does not contain: a tool-call encoding step most likely added the backslash, and
 * writing the new text as it is would put stray backslashes into the file.
 */
export function escapeDriftError(fileText: string, oldText: string, newText?: string): string | null {
  for (const escaped of ESCAPED_QUOTES) {
    if (!oldText.includes(escaped) || fileText.includes(escaped)) continue;
    if (newText !== undefined && !newText.includes(escaped)) continue;
    const quote = escaped[1];
    return (
      `Escape-drift: ${newText === undefined ? "old_string contains" : "old_string and new_string contain"} ${escaped} but the ` +
      `file has no such sequence there; a backslash was probably added in front of the quote in transit. ` +
      `Read the file again and send the text with plain ${quote} characters, without backslashes.`
    );
  }
  return null;
}

const indentWidth = (line: string) => /^[ \t]*/.exec(line)![0].length;
const opensBlock = (line: string) => /[:{(]$/.test(line.trimEnd());
const nonBlankLines = (text: string) => text.split("\n").filter((line) => line.trim() !== "");

/**
 * An error when new lines sit deeper than any old line although neither text opens a block
 * (a line ending in ':', '{' or '('): that extra depth is almost always a slip, and a match
 * that was not verbatim would write it into the file unchanged.
 */
export function suspiciousIndentError(oldText: string, newText: string): string | null {
  const oldLines = nonBlankLines(oldText);
  const newLines = nonBlankLines(newText);
  if (oldLines.length === 0 || newLines.length === 0) return null;
  if (oldLines.some(opensBlock) || newLines.some(opensBlock)) return null;
  const deepest = Math.max(...oldLines.map(indentWidth));
  const deeper = newLines.filter((line) => indentWidth(line) > deepest);
  if (deeper.length === 0) return null;
  return (
    `Suspicious indentation in new_string: ${deeper.length} line(s) are indented more than the ` +
    `${deepest} column(s) of old_string's deepest line, yet neither text opens a block with ':', '{' or '('. ` +
    `Fix the indentation of ${JSON.stringify(deeper[0]!.trim().slice(0, 60))} and try again.`
  );
}

/**
 * Turns the two-character sequences \t and \r in the new text into a real tab or carriage return,
 * each only when the replaced file text itself contains that character (a file that spells out
 * "\t" in a string literal keeps it). \n is left alone: it is far more often meant literally.
 */
export function restoreControlEscapes(newText: string, replacedText: string): string {
  let text = newText;
  if (replacedText.includes("\t")) text = text.replaceAll("\\t", "\t");
  if (replacedText.includes("\r")) text = text.replaceAll("\\r", "\r");
  return text;
}
