/** The `write_file` tool: replace a file's whole content, creating parent directories. */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { z } from "../../util/schema/index.js";
import { type DiagnoseHook, diagnoseEdited } from "../lsp/hook.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import type { TextFormat } from "../text-encoding.js";
import {
  describeFsError,
  encodeForFile,
  isBinaryFile,
  json,
  NEW_FILE_FORMAT,
  readEditableFile,
  writeFileAtomic,
} from "./file-io.js";
import { approvePersistentWrite, checkWritePath, displayPath } from "./file-paths.js";

export const writeFileParameters = z.object({
  path: z.string().describe("File path (absolute, relative, or ~/...)"),
  content: z.string().describe("The whole new content"),
});

export type WriteFileArgs = z.infer<typeof writeFileParameters>;

export interface EditToolOptions {
  /** Asked after a successful write for the file's language-server diagnostics (`lsp.*`). */
  diagnose?: DiagnoseHook;
}

/** Said in the edit tools' descriptions when a language server may check what they write. */
export const DIAGNOSTICS_SENTENCE = " Adds the file's language-server diagnostics when available.";

export async function writeFileTool(
  args: WriteFileArgs,
  ctx: ToolContext,
  options: EditToolOptions = {},
): Promise<string> {
  const check = checkWritePath(args.path, ctx.cwd);
  if (!check.ok) return json({ error: check.error });
  const shown = displayPath(check.path, ctx.cwd);
  const refusal = await approvePersistentWrite(check.real, ctx);
  if (refusal) return json({ error: refusal });
  // Write to the real location, so a symlink keeps pointing at the updated file.
  const target = check.real;
  try {
    if (existsSync(target) && statSync(target).isDirectory()) {
      return json({ error: `${shown} is a directory; give a file path.` });
    }
    const parent = dirname(target);
    const dirsCreated = !existsSync(parent);
    if (dirsCreated) mkdirSync(parent, { recursive: true });
    const created = !existsSync(target);
    // Rewriting a text file keeps its encoding, byte-order mark and line endings.
    const format: TextFormat = created || isBinaryFile(target) ? NEW_FILE_FORMAT : readEditableFile(target).format;
    const encoded = encodeForFile(args.content, format);
    if ("error" in encoded) return json({ error: `${shown}: ${encoded.error}` });
    writeFileAtomic(target, encoded.bytes);
    const checked = await diagnoseEdited(options.diagnose, [
      { path: target, text: args.content, shown, cwd: ctx.cwd, signal: ctx.signal },
    ]);
    return json({
      success: true,
      path: shown,
      bytes_written: encoded.bytes.length,
      created,
      ...(dirsCreated ? { dirs_created: true } : {}),
      ...(format === NEW_FILE_FORMAT ? {} : formatNote(format)),
      ...checked,
    });
  } catch (error) {
    return json({ error: describeFsError(error, shown) });
  }
}

function formatNote(format: TextFormat): Record<string, string> {
  const kept: string[] = [];
  if (format.encoding !== "utf-8") kept.push(`the ${format.encoding} encoding`);
  if (format.bom) kept.push("the byte-order mark");
  if (format.lineEnding === "crlf") kept.push("CRLF line endings");
  return kept.length > 0 ? { note: `Kept the file's ${kept.join(", ")}.` } : {};
}

export function registerWriteFileTool(registry: ToolRegistry, options: EditToolOptions = {}): void {
  registry.register({
    name: "write_file",
    toolset: "file",
    description:
      "Create or overwrite a file (parent directories are created). Returns JSON with the path and bytes written. " +
      "For small edits use patch." +
      (options.diagnose ? DIAGNOSTICS_SENTENCE : ""),
    parameters: writeFileParameters,
    handler: (args, ctx) => writeFileTool(args, ctx, options),
    parallelSafe: false,
    pathArgs: ["path"],
    emoji: "✍️",
  });
}
