/**
 * Parser for the V4A multi-file patch format:
 *
 *   *** Begin Patch
 *   *** Update File: src/app.ts        (optionally followed by "*** Move to: new/path.ts")
 *   @@ function main() {               (optional anchor line that precedes the hunk)
 *    context line
 *   -removed line
 *   +added line
 *   *** Add File: notes.txt            (every content line starts with "+")
 *   +hello
 *   *** Delete File: old.txt
 *   *** End Patch
 */

export interface PatchHunk {
  /** Text after "@@", used to find the right place when the hunk's lines occur more than once. */
  anchor: string | null;
  oldLines: string[];
  newLines: string[];
}

export type PatchOperation =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo: string | null; hunks: PatchHunk[] };

export class PatchParseError extends Error {}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";

function isHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE) || line.trim() === END;
}

export function parseV4aPatch(text: string): PatchOperation[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let i = lines.findIndex((line) => line.trim() === BEGIN);
  if (i < 0) throw new PatchParseError(`The patch must start with "${BEGIN}".`);
  i++;
  const operations: PatchOperation[] = [];
  let ended = false;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === END) {
      ended = true;
      break;
    }
    if (line.startsWith(ADD)) {
      const path = line.slice(ADD.length).trim();
      const body: string[] = [];
      let bareTail = 0;
      i++;
      while (i < lines.length && !isHeader(lines[i] ?? "")) {
        const content = lines[i] ?? "";
        // A bare empty line is taken as an empty line of the file, however the "+" got lost.
        if (content !== "" && !content.startsWith("+")) {
          throw new PatchParseError(`Line ${i + 1}: every line of an added file must start with "+".`);
        }
        bareTail = content === "" ? bareTail + 1 : 0;
        body.push(content.slice(1));
        i++;
      }
      // Bare empty lines before the next header separate sections; they are not content.
      body.length -= bareTail;
      operations.push({ kind: "add", path, content: body.length ? `${body.join("\n")}\n` : "" });
      continue;
    }
    if (line.startsWith(DELETE)) {
      operations.push({ kind: "delete", path: line.slice(DELETE.length).trim() });
      i++;
      continue;
    }
    if (line.startsWith(UPDATE)) {
      const path = line.slice(UPDATE.length).trim();
      i++;
      let moveTo: string | null = null;
      if ((lines[i] ?? "").startsWith(MOVE)) {
        moveTo = (lines[i] ?? "").slice(MOVE.length).trim();
        i++;
      }
      const parsed = parseHunks(lines, i);
      i = parsed.next;
      if (parsed.hunks.length === 0 && moveTo === null) {
        throw new PatchParseError(`"${UPDATE}${path}" has no changes.`);
      }
      operations.push({ kind: "update", path, moveTo, hunks: parsed.hunks });
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    throw new PatchParseError(`Line ${i + 1}: expected a file header ("${ADD}", "${UPDATE}" or "${DELETE}").`);
  }
  if (!ended) throw new PatchParseError(`The patch must end with "${END}".`);
  if (operations.length === 0) throw new PatchParseError("The patch changes no file.");
  return operations;
}

function parseHunks(lines: string[], start: number): { hunks: PatchHunk[]; next: number } {
  const hunks: PatchHunk[] = [];
  let current: PatchHunk | null = null;
  let i = start;
  const flush = () => {
    if (current && (current.oldLines.length || current.newLines.length)) hunks.push(current);
    current = null;
  };
  while (i < lines.length && !isHeader(lines[i] ?? "")) {
    const line = lines[i] ?? "";
    i++;
    if (line.startsWith("@@")) {
      flush();
      const anchor = line.slice(2).trim();
      current = { anchor: anchor || null, oldLines: [], newLines: [] };
      continue;
    }
    if (line.trim() === END_OF_FILE) continue;
    current ??= { anchor: null, oldLines: [], newLines: [] };
    const marker = line[0];
    const body = line.slice(1);
    if (marker === "+") current.newLines.push(body);
    else if (marker === "-") current.oldLines.push(body);
    else if (marker === " ") {
      current.oldLines.push(body);
      current.newLines.push(body);
    } else if (line === "") {
      // An empty line in a hunk is an empty context line whose leading space was stripped.
      current.oldLines.push("");
      current.newLines.push("");
    } else {
      throw new PatchParseError(`Line ${i}: hunk lines must start with " ", "-" or "+".`);
    }
  }
  flush();
  for (const hunk of hunks) trimTrailingBlankContext(hunk);
  return { hunks, next: i };
}

/** Blank lines between hunks or before the next header are separators, not context. */
function trimTrailingBlankContext(hunk: PatchHunk): void {
  while (hunk.oldLines.length && hunk.newLines.length && hunk.oldLines.at(-1) === "" && hunk.newLines.at(-1) === "") {
    hunk.oldLines.pop();
    hunk.newLines.pop();
  }
}
