/**
 * `display.inline_diffs`: after a successful write_file or patch, the change as a short coloured
 * unified diff. patch reports its diff in its result; for write_file the file is read just before
 * the tool runs and again after it, and the two are compared here.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { unifiedDiff } from "../../util/unified-diff.js";
import type { Style } from "./theme.js";

/** Diff lines shown before the rest is counted. */
export const INLINE_DIFF_LINES = 16;
/** Files larger than this are not compared (the diff would not fit on a screen anyway). */
const MAX_COMPARED_BYTES = 256 * 1024;

export interface DiffColours {
  added: Style;
  removed: Style;
  hunk: Style;
  muted: Style;
}

/** The first lines of a unified diff, coloured, and a count of the lines left out. */
export function formatInlineDiff(diff: string, colours: DiffColours, maxLines = INLINE_DIFF_LINES): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---")) return colours.muted(line);
    if (line.startsWith("+")) return colours.added(line);
    if (line.startsWith("-")) return colours.removed(line);
    if (line.startsWith("@@")) return colours.hunk(line);
    return colours.muted(line);
  });
  const hidden = lines.length - shown.length;
  if (hidden > 0) shown.push(colours.muted(`… ${hidden} more diff line${hidden === 1 ? "" : "s"}`));
  return shown.join("\n");
}

/** The `diff` a patch result carries, if the result is the tool's JSON. */
export function diffOfPatchResult(result: string): string | undefined {
  try {
    const parsed = JSON.parse(result) as { success?: unknown; diff?: unknown };
    return parsed.success === true && typeof parsed.diff === "string" && parsed.diff ? parsed.diff : undefined;
  } catch {
    return undefined;
  }
}

/** A text file's content, "" when it does not exist, undefined when it cannot be compared. */
function readComparable(path: string): string | undefined {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return undefined;
    size = stat.size;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "" : undefined;
  }
  if (size > MAX_COMPARED_BYTES) return undefined;
  const buffer = Buffer.alloc(size);
  const fd = openSync(path, "r");
  try {
    readSync(fd, buffer, 0, size, 0);
  } finally {
    closeSync(fd);
  }
  if (buffer.includes(0)) return undefined;
  return buffer.toString("utf8");
}

function resolvePath(path: string, cwd: string): string {
  if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** Before-and-after snapshots of the files write_file calls change, by call id. */
export class WriteSnapshots {
  private readonly before = new Map<string, { path: string; shown: string; text: string }>();

  constructor(private readonly cwd: () => string) {}

  /** At tool_start: remember what the file holds now. */
  capture(callId: string, args: unknown): void {
    const path = (args as { path?: unknown } | undefined)?.path;
    if (typeof path !== "string" || !path) return;
    try {
      const real = resolvePath(path, this.cwd());
      const text = readComparable(real);
      if (text !== undefined) this.before.set(callId, { path: real, shown: path, text });
    } catch {
      // Unreadable: no diff for this call.
    }
  }

  /** At tool_end: the diff from the captured content to what the file holds now. */
  diff(callId: string): string | undefined {
    const entry = this.before.get(callId);
    this.before.delete(callId);
    if (!entry) return undefined;
    try {
      const after = readComparable(entry.path);
      if (after === undefined) return undefined;
      return unifiedDiff(entry.text, after, entry.shown) || undefined;
    } catch {
      return undefined;
    }
  }

  forget(callId: string): void {
    this.before.delete(callId);
  }
}
