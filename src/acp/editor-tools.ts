/**
 * The file and terminal tools as an editor session runs them. Each wrapper looks for the
 * session in `ctx.services` (set only for ACP agents) and otherwise calls the original tool,
 * so nothing changes for agents of other surfaces sharing the registry.
 *
 * - plan mode refuses every tool that writes or runs something;
 * - ask mode asks before a file edit (the answer goes through the approval policy, so
 *   "allow for this session" holds for later edits);
 * - when the client offers `fs/*` or `terminal/*`, reads, writes and commands go through the
 *   editor (it sees unsaved buffers and shows the terminal); otherwise they run here.
 */
import { isAbsolute } from "node:path";
import type { ApprovalPolicy } from "../tools/approval/policy.js";
import {
  approvePersistentWrite,
  checkWritePath,
  displayPath,
  readRefusal,
  realLocation,
  resolveToolPath,
} from "../tools/builtin/file-paths.js";
import { numberLine } from "../tools/builtin/read-file.js";
import type { ToolContext, ToolRegistry, ToolSpec } from "../tools/registry.js";
import type { ClientBridge } from "./client-bridge.js";
import { type ModeId, WRITING_TOOLS } from "./modes.js";

export const EDITOR_SESSION_SERVICE = "acpSession";

/** The slice of an ACP session the tools need. */
export interface EditorSession {
  readonly mode: ModeId;
  readonly bridge: ClientBridge;
  /** Show a running editor terminal in the tool call that started it. */
  showTerminal(terminalId: string): void;
}

const DEFAULT_READ_LIMIT = 500;
const MAX_READ_LIMIT = 2000;
const TERMINAL_OUTPUT_BYTES = 50_000;
const DEFAULT_TIMEOUT_SECONDS = 180;
const MAX_TIMEOUT_SECONDS = 600;
const EDIT_APPROVAL_KEY = "acp_file_edit";

type Handler = ToolSpec["handler"];
type Args = Record<string, unknown>;

const json = (value: unknown) => JSON.stringify(value);

function editorSession(ctx: ToolContext): EditorSession | undefined {
  return ctx.services?.[EDITOR_SESSION_SERVICE] as EditorSession | undefined;
}

function policyOf(ctx: ToolContext, fallback: ApprovalPolicy): ApprovalPolicy {
  return (ctx.services?.approvals as ApprovalPolicy | undefined) ?? fallback;
}

/** In ask mode, the user's yes before a file changes; undefined when the edit may go ahead. */
async function editRefusal(
  session: EditorSession,
  path: string,
  ctx: ToolContext,
  policy: ApprovalPolicy,
): Promise<string | undefined> {
  if (session.mode !== "ask") return undefined;
  const shown = displayPath(path, ctx.cwd);
  const verdict = await policy.checkAction(
    `edit ${shown}`,
    { key: EDIT_APPROVAL_KEY, description: `edit ${shown}` },
    ctx,
  );
  return verdict.allowed ? undefined : verdict.message;
}

function planRefusal(name: string): string {
  return json({
    error: `Plan mode is read-only: ${name} is not available. Describe the change instead; the user switches modes to apply it.`,
  });
}

async function readThroughEditor(args: Args, ctx: ToolContext, bridge: ClientBridge): Promise<string | undefined> {
  const path = resolveToolPath(String(args.path ?? ""), ctx.cwd);
  const refusal = readRefusal(realLocation(path));
  if (refusal) return json({ error: refusal });
  const offset = typeof args.offset === "number" && args.offset >= 1 ? Math.floor(args.offset) : 1;
  const limit = Math.min(typeof args.limit === "number" ? Math.floor(args.limit) : DEFAULT_READ_LIMIT, MAX_READ_LIMIT);
  let content: string;
  try {
    content = await bridge.readTextFile(path, offset, limit + 1);
  } catch (error) {
    return json({ error: `${displayPath(path, ctx.cwd)}: ${(error as Error).message}` });
  }
  const lines = content.split(/\r?\n/);
  if (lines.at(-1) === "") lines.pop();
  const more = lines.length > limit;
  const shown = lines.slice(0, limit).map((line, i) => numberLine(offset + i, line));
  return json({
    path: displayPath(path, ctx.cwd),
    content: shown.join("\n"),
    ...(more ? { next_offset: offset + limit } : {}),
  });
}

async function writeThroughEditor(path: string, content: string, ctx: ToolContext, bridge: ClientBridge) {
  await bridge.writeTextFile(path, content);
  return json({ success: true, path: displayPath(path, ctx.cwd), bytes_written: Buffer.byteLength(content) });
}

/** Replace mode of `patch` on the editor's copy of the file (exact match). */
async function patchThroughEditor(args: Args, path: string, ctx: ToolContext, bridge: ClientBridge) {
  const shown = displayPath(path, ctx.cwd);
  const oldText = String(args.old_string ?? "");
  const newText = String(args.new_string ?? "");
  if (!oldText) return json({ error: "old_string is required in replace mode" });
  let content: string;
  try {
    content = await bridge.readTextFile(path);
  } catch (error) {
    return json({ error: `${shown}: ${(error as Error).message}` });
  }
  const count = content.split(oldText).length - 1;
  if (count === 0) {
    return json({ error: `old_string was not found in ${shown}. Read the file again and copy the text exactly.` });
  }
  if (count > 1 && args.replace_all !== true) {
    return json({
      error: `old_string occurs ${count} times in ${shown}; add surrounding lines to make it unique, or set replace_all.`,
    });
  }
  const updated =
    args.replace_all === true ? content.split(oldText).join(newText) : content.replace(oldText, () => newText);
  await bridge.writeTextFile(path, updated);
  return json({ success: true, path: shown, replacements: args.replace_all === true ? count : 1 });
}

async function runInEditorTerminal(args: Args, ctx: ToolContext, session: EditorSession) {
  const command = String(args.command ?? "").trim();
  const timeout = typeof args.timeout === "number" ? args.timeout : DEFAULT_TIMEOUT_SECONDS;
  if (timeout > MAX_TIMEOUT_SECONDS) {
    return json({ output: "", exit_code: -1, error: `timeout ${timeout}s is above ${MAX_TIMEOUT_SECONDS}s` });
  }
  const workdir = typeof args.workdir === "string" && args.workdir ? resolveToolPath(args.workdir, ctx.cwd) : ctx.cwd;
  try {
    const result = await session.bridge.runCommand(
      command,
      { cwd: workdir, timeoutMs: timeout * 1000, outputLimit: TERMINAL_OUTPUT_BYTES, signal: ctx.signal },
      (id) => session.showTerminal(id),
    );
    const exitCode = result.exitCode ?? (result.signal ? 128 : -1);
    const error =
      result.stopped === "timeout"
        ? `Command timed out after ${timeout}s and was killed.`
        : result.stopped === "interrupted"
          ? "Command interrupted: the turn was cancelled."
          : undefined;
    return json({ output: result.output, exit_code: exitCode, ...(error ? { error } : {}) });
  } catch (error) {
    return json({
      output: "",
      exit_code: -1,
      error: `the editor could not run the command: ${(error as Error).message}`,
    });
  }
}

function wrap(registry: ToolRegistry, name: string, make: (original: Handler) => Handler): void {
  const spec = registry.get(name);
  if (!spec) return;
  registry.register({ ...spec, handler: make(spec.handler) });
}

/** Install the editor-aware handlers; `approvals` is the runtime's shared policy. */
export function installEditorTools(registry: ToolRegistry, approvals: ApprovalPolicy): void {
  for (const name of WRITING_TOOLS) {
    if (["write_file", "patch", "terminal"].includes(name)) continue;
    wrap(registry, name, (original) => async (args, ctx) => {
      if (editorSession(ctx)?.mode === "plan") return planRefusal(name);
      return original(args, ctx);
    });
  }
  wrap(registry, "read_file", (original) => async (args, ctx) => {
    const session = editorSession(ctx);
    if (!session?.bridge.canReadFiles) return original(args, ctx);
    return (await readThroughEditor(args as Args, ctx, session.bridge)) ?? original(args, ctx);
  });
  wrap(registry, "write_file", (original) => async (args, ctx) => {
    const session = editorSession(ctx);
    if (!session) return original(args, ctx);
    if (session.mode === "plan") return planRefusal("write_file");
    const a = args as Args;
    const check = checkWritePath(String(a.path ?? ""), ctx.cwd);
    if (!check.ok) return json({ error: check.error });
    const refusal = await editRefusal(session, check.path, ctx, policyOf(ctx, approvals));
    if (refusal) return json({ error: refusal });
    // The diff shown for this call reads the file first; let it finish before the file changes.
    await session.bridge.flush();
    if (!session.bridge.canWriteFiles || !isAbsolute(check.real)) return original(args, ctx);
    // Places where files run later (autostart, hooks) ask, as the local tool does.
    const persistent = await approvePersistentWrite(check.real, ctx);
    if (persistent) return json({ error: persistent });
    return writeThroughEditor(check.real, String(a.content ?? ""), ctx, session.bridge);
  });
  wrap(registry, "patch", (original) => async (args, ctx) => {
    const session = editorSession(ctx);
    if (!session) return original(args, ctx);
    if (session.mode === "plan") return planRefusal("patch");
    const a = args as Args;
    const replaceMode = a.mode !== "patch" && typeof a.path === "string";
    const target = replaceMode ? String(a.path) : "files named in the patch";
    const check = replaceMode ? checkWritePath(target, ctx.cwd) : undefined;
    if (check && !check.ok) return json({ error: check.error });
    const refusal = await editRefusal(session, check?.path ?? target, ctx, policyOf(ctx, approvals));
    if (refusal) return json({ error: refusal });
    await session.bridge.flush();
    const viaEditor = check?.ok && session.bridge.canReadFiles && session.bridge.canWriteFiles;
    if (!viaEditor) return original(args, ctx);
    const persistent = await approvePersistentWrite(check.real, ctx);
    if (persistent) return json({ error: persistent });
    return patchThroughEditor(a, check.real, ctx, session.bridge);
  });
  wrap(registry, "terminal", (original) => async (args, ctx) => {
    const session = editorSession(ctx);
    if (!session) return original(args, ctx);
    if (session.mode === "plan") return planRefusal("terminal");
    const a = args as Args;
    if (!session.bridge.canRunTerminals || a.background === true) return original(args, ctx);
    const command = String(a.command ?? "").trim();
    if (!command) return json({ output: "", exit_code: -1, error: "command is empty" });
    const verdict = await policyOf(ctx, approvals).check(command, ctx);
    if (!verdict.allowed) return json({ output: "", exit_code: -1, error: verdict.message });
    return runInEditorTerminal(a, ctx, session);
  });
}
