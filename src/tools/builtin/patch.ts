/**
 * The `patch` tool: targeted edits. "replace" mode swaps one snippet for another with fuzzy
 * matching; "patch" mode applies a V4A multi-file patch. Both answer with a unified diff.
 */
import { existsSync, mkdirSync, statSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "../../util/schema/index.js";
import { fuzzyFindAndReplace, unifiedDiff } from "../fuzzy-patch.js";
import { diagnoseEdited } from "../lsp/hook.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import type { TextFormat } from "../text-encoding.js";
import { describeFsError, encodeForFile, isBinaryFile, json, readEditableFile, writeFileAtomic } from "./file-io.js";
import { approvePersistentWrite, checkWritePath, displayPath } from "./file-paths.js";
import { type PatchHunk, PatchParseError, parseV4aPatch } from "./v4a-patch.js";
import { DIAGNOSTICS_SENTENCE, type EditToolOptions } from "./write-file.js";

export const patchParameters = z.object({
  mode: z.enum(["replace", "patch"]).optional().describe('"replace" (default) or "patch" (V4A, several files)'),
  path: z.string().optional().describe("replace: the file"),
  old_string: z.string().optional().describe("replace: text to find, with enough context to be unique"),
  new_string: z.string().optional().describe("replace: its replacement"),
  replace_all: z.boolean().optional().describe("replace: every occurrence, not one unique match"),
  patch: z
    .string()
    .optional()
    .describe(
      'patch: "*** Begin Patch", "*** Update File: p" / "*** Add File: p" / "*** Delete File: p" sections ' +
        'with @@ hunks of " ", "-", "+" lines, "*** End Patch"',
    ),
});

export type PatchArgs = z.infer<typeof patchParameters>;

const REREAD_HINT =
  "Read the file again with read_file to see its current content, then retry with text copied from it.";

function readTextForEdit(real: string, shown: string): { text: string; format: TextFormat } | { error: string } {
  try {
    if (statSync(real).isDirectory()) return { error: `${shown} is a directory, not a file` };
    if (isBinaryFile(real)) return { error: `${shown} is a binary file; patch edits text files only` };
    const file = readEditableFile(real);
    return { text: file.text, format: file.format };
  } catch (error) {
    return { error: describeFsError(error, shown) };
  }
}

/** Files of one V4A patch checked by a language server; more would make one edit wait on many servers. */
const MAX_DIAGNOSED_FILES = 10;

async function replaceMode(args: PatchArgs, ctx: ToolContext, options: EditToolOptions): Promise<string> {
  if (!args.path) return json({ error: "replace mode needs path" });
  if (args.old_string === undefined || args.new_string === undefined) {
    return json({ error: "replace mode needs old_string and new_string" });
  }
  const check = checkWritePath(args.path, ctx.cwd);
  if (!check.ok) return json({ error: check.error });
  const shown = displayPath(check.path, ctx.cwd);
  const refusal = await approvePersistentWrite(check.real, ctx);
  if (refusal) return json({ success: false, error: refusal });
  const read = readTextForEdit(check.real, shown);
  if ("error" in read) return json({ error: read.error });
  const result = fuzzyFindAndReplace(read.text, args.old_string, args.new_string, {
    replaceAll: args.replace_all ?? false,
  });
  if (result.error || result.count === 0) {
    return json({ success: false, error: result.error ?? "old_string was not found", hint: REREAD_HINT });
  }
  const encoded = encodeForFile(result.content, read.format);
  if ("error" in encoded) return json({ success: false, error: `${shown}: ${encoded.error}` });
  try {
    writeFileAtomic(check.real, encoded.bytes);
  } catch (error) {
    return json({ error: describeFsError(error, shown) });
  }
  const checked = await diagnoseEdited(options.diagnose, [
    { path: check.real, text: result.content, shown, cwd: ctx.cwd, signal: ctx.signal },
  ]);
  return json({
    success: true,
    path: shown,
    replacements: result.count,
    strategy: result.strategy,
    diff: unifiedDiff(read.text, result.content, shown),
    ...checked,
  });
}

/** Apply one hunk; the anchor narrows the search to the text after the anchor line. */
function applyHunk(content: string, hunk: PatchHunk): { content: string } | { error: string } {
  const oldText = hunk.oldLines.join("\n");
  const newText = hunk.newLines.join("\n");
  const anchorAt = hunk.anchor ? findAnchor(content, hunk.anchor) : -1;
  if (!oldText) {
    // Pure insertion: after the anchor line when there is one, else at the end of the file.
    if (anchorAt >= 0) {
      const lineEnd = content.indexOf("\n", anchorAt);
      const at = lineEnd < 0 ? content.length : lineEnd + 1;
      const prefix = lineEnd < 0 ? `${content}\n` : content.slice(0, at);
      return { content: `${prefix}${newText}\n${content.slice(at)}` };
    }
    const separator = content === "" || content.endsWith("\n") ? "" : "\n";
    return { content: `${content}${separator}${newText}\n` };
  }
  if (anchorAt >= 0) {
    const tail = fuzzyFindAndReplace(content.slice(anchorAt), oldText, newText, {});
    if (!tail.error && tail.count > 0) return { content: content.slice(0, anchorAt) + tail.content };
  }
  const whole = fuzzyFindAndReplace(content, oldText, newText, {});
  if (whole.error || whole.count === 0) return { error: whole.error ?? "hunk not found" };
  return { content: whole.content };
}

function findAnchor(content: string, anchor: string): number {
  const exact = content.indexOf(anchor);
  if (exact >= 0) return content.lastIndexOf("\n", exact) + 1;
  let offset = 0;
  for (const line of content.split("\n")) {
    if (line.trim() === anchor.trim()) return offset;
    offset += line.length + 1;
  }
  return -1;
}

interface PlannedWrite {
  real: string;
  shown: string;
  before: string | null;
  after: string | null;
  /** Bytes to write for `after`, in the file's own encoding and line endings. */
  bytes?: Buffer;
}

async function patchMode(args: PatchArgs, ctx: ToolContext, options: EditToolOptions): Promise<string> {
  if (!args.patch) return json({ error: "patch mode needs the patch text" });
  let operations: ReturnType<typeof parseV4aPatch>;
  try {
    operations = parseV4aPatch(args.patch);
  } catch (error) {
    if (error instanceof PatchParseError) return json({ success: false, error: `Invalid patch: ${error.message}` });
    throw error;
  }
  // Plan every change in memory first, so a failing hunk leaves every file untouched.
  const planned: PlannedWrite[] = [];
  const plan = (path: string): { real: string; shown: string } | { error: string } => {
    const check = checkWritePath(path, ctx.cwd);
    if (!check.ok) return { error: check.error };
    return { real: check.real, shown: displayPath(check.path, ctx.cwd) };
  };
  for (const op of operations) {
    const target = plan(op.path);
    if ("error" in target) return json({ success: false, error: target.error });
    if (op.kind === "add") {
      if (existsSync(target.real)) {
        return json({ success: false, error: `${target.shown} already exists; use "*** Update File:" to change it` });
      }
      planned.push({ ...target, before: null, after: op.content, bytes: Buffer.from(op.content, "utf8") });
      continue;
    }
    const read = readTextForEdit(target.real, target.shown);
    if ("error" in read) return json({ success: false, error: read.error });
    if (op.kind === "delete") {
      planned.push({ ...target, before: read.text, after: null });
      continue;
    }
    let content = read.text;
    for (const [index, hunk] of op.hunks.entries()) {
      const applied = applyHunk(content, hunk);
      if ("error" in applied) {
        return json({
          success: false,
          error: `Hunk ${index + 1} of ${target.shown} did not apply: ${applied.error}`,
          hint: REREAD_HINT,
        });
      }
      content = applied.content;
    }
    const encoded = encodeForFile(content, read.format);
    if ("error" in encoded) return json({ success: false, error: `${target.shown}: ${encoded.error}` });
    if (op.moveTo) {
      const destination = plan(op.moveTo);
      if ("error" in destination) return json({ success: false, error: destination.error });
      planned.push({ ...target, before: read.text, after: null });
      planned.push({ ...destination, before: null, after: content, bytes: encoded.bytes });
    } else {
      planned.push({ ...target, before: read.text, after: content, bytes: encoded.bytes });
    }
  }
  for (const write of planned) {
    const refusal = write.after === null ? undefined : await approvePersistentWrite(write.real, ctx);
    if (refusal) return json({ success: false, error: refusal });
  }
  const committed = commitPlan(planned);
  if (committed.success !== true) return json(committed);
  const written = planned.flatMap((write) =>
    write.after === null
      ? []
      : [{ path: write.real, text: write.after, shown: write.shown, cwd: ctx.cwd, signal: ctx.signal }],
  );
  const checked = await diagnoseEdited(options.diagnose, written.slice(0, MAX_DIAGNOSED_FILES));
  return json({ ...committed, ...checked });
}

function commitPlan(planned: PlannedWrite[]): Record<string, unknown> {
  const diffs: string[] = [];
  const modified: string[] = [];
  const created: string[] = [];
  const deleted: string[] = [];
  for (const write of planned) {
    try {
      if (write.after === null) {
        unlinkSync(write.real);
        deleted.push(write.shown);
      } else {
        mkdirSync(dirname(write.real), { recursive: true });
        writeFileAtomic(write.real, write.bytes ?? Buffer.from(write.after, "utf8"));
        (write.before === null ? created : modified).push(write.shown);
      }
    } catch (error) {
      return { success: false, error: describeFsError(error, write.shown), files_changed_before_error: modified };
    }
    diffs.push(unifiedDiff(write.before ?? "", write.after ?? "", write.shown));
  }
  return {
    success: true,
    files_modified: modified,
    files_created: created,
    files_deleted: deleted,
    diff: diffs.join("\n"),
  };
}

export async function patchTool(args: PatchArgs, ctx: ToolContext, options: EditToolOptions = {}): Promise<string> {
  const mode = args.mode ?? (args.patch && !args.path ? "patch" : "replace");
  return mode === "patch" ? patchMode(args, ctx, options) : replaceMode(args, ctx, options);
}

export function registerPatchTool(registry: ToolRegistry, options: EditToolOptions = {}): void {
  registry.register({
    name: "patch",
    toolset: "file",
    description:
      "Edit files in place: replace old_string with new_string (whitespace, indentation and quote differences " +
      "tolerated), or apply a V4A patch that adds, updates, moves and deletes files. Returns a unified diff." +
      (options.diagnose ? DIAGNOSTICS_SENTENCE : ""),
    parameters: patchParameters,
    handler: (args, ctx) => patchTool(args, ctx, options),
    parallelSafe: false,
    pathArgs: ["path"],
    emoji: "🔧",
  });
}
