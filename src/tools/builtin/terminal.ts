/**
 * The `terminal` tool: run a shell command in the session's working directory, in the
 * foreground (wait for it, with a time limit) or in the background (hand it to the process
 * manager). Every command passes the approval policy first.
 */

import { resolve } from "node:path";
import { isDirectory } from "../../util/fs-kind.js";
import { z } from "../../util/schema/index.js";
import { ApprovalPolicy } from "../approval/policy.js";
import { cleanTerminalOutput, HeadTailBuffer } from "../output-capture.js";
import { exitCodeOf, spawnGroup, spawnShell, superviseChild } from "../process-group.js";
import { defaultProcessManager, type ProcessManager } from "../process-manager.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { shellCommandEnv } from "../shell-init.js";
import {
  discardShellState,
  recordShellState,
  type SessionShellState,
  shellStateFor,
  withSessionEnv,
  wrapForState,
} from "../shell-state.js";

export const DEFAULT_TERMINAL_TIMEOUT_SECONDS = 180;
export const MAX_FOREGROUND_TIMEOUT_SECONDS = 600;
export const DEFAULT_TERMINAL_OUTPUT_CHARS = 50_000;
const EXIT_TIMEOUT = 124;
const EXIT_INTERRUPTED = 130;

export interface TerminalDeps {
  processManager?: ProcessManager;
  /** Shared approval state; `ctx.services.approvals` overrides it per call. */
  approvals?: ApprovalPolicy;
  /** `terminal.timeout`: default foreground limit in seconds. */
  defaultTimeoutSeconds?: number;
  /** Largest foreground timeout accepted; default `TERMINAL_MAX_FOREGROUND_TIMEOUT` or 600. */
  maxForegroundTimeoutSeconds?: number;
  /** Output kept for the model; the middle of longer output is dropped with a marker. */
  maxOutputChars?: number;
  /** Time between SIGTERM and SIGKILL when stopping a command. */
  killGraceMs?: number;
  /** `terminal.allow_keep_alive`: background processes may outlive hermes when asked to. */
  allowKeepAlive?: boolean;
  /**
   * `terminal.persistent_shell` (default on): a session's next command starts in the directory
   * and with the exported variables its last one ended with (see tools/shell-state.ts).
   */
  persistentShell?: boolean;
}

export const terminalParameters = z.object({
  command: z.string().describe("Bash command."),
  background: z
    .boolean()
    .optional()
    .describe("Start in the background and return a session_id at once (servers, watchers, long jobs)."),
  timeout: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("Foreground limit in seconds (default 180, max 600); the call returns when the command ends."),
  workdir: z.string().optional().describe("Directory to run in (absolute or relative)."),
  notify_on_complete: z
    .boolean()
    .optional()
    .describe("With background: one notification when it exits, instead of polling."),
  keep_alive: z
    .boolean()
    .optional()
    .describe("With background: keep running after hermes exits (output to a file); only if the user allowed it."),
});

export type TerminalArgs = z.infer<typeof terminalParameters>;

export interface TerminalResult {
  output: string;
  exit_code: number;
  error?: string;
  /** Where the session's next command will run, when that is not its working directory. */
  cwd?: string;
  session_id?: string;
  pid?: number | null;
}

const DESCRIPTION = [
  "Run a bash command. The directory after cd and exported variables carry over to the next command; workdir is for one command.",
  "Returns JSON {output, exit_code, error?, cwd?}: stdout and stderr merged, long output cut in the middle; cwd when not the working directory.",
  "Destructive commands need the user's approval; some are refused.",
  "Long jobs: background=true, then the process tool. Read and edit files with the file tools.",
].join(" ");

export function registerTerminalTools(registry: ToolRegistry, deps: TerminalDeps = {}): void {
  const fallbackPolicy = deps.approvals ?? new ApprovalPolicy();
  registry.register({
    name: "terminal",
    toolset: "terminal",
    description: DESCRIPTION,
    parameters: terminalParameters,
    emoji: "💻",
    // Room for the output kept (`tool_output.max_bytes`) and the fields around it.
    maxResultChars: Math.max(100_000, (deps.maxOutputChars ?? DEFAULT_TERMINAL_OUTPUT_CHARS) + 10_000),
    handler: async (args, ctx) => JSON.stringify(await runTerminal(args, ctx, { ...deps, approvals: fallbackPolicy })),
  });
}

function fail(error: string, exitCode = -1): TerminalResult {
  return { output: "", exit_code: exitCode, error };
}

export async function runTerminal(
  args: TerminalArgs,
  ctx: ToolContext,
  deps: TerminalDeps = {},
): Promise<TerminalResult> {
  const command = args.command.trim();
  if (!command) return fail("command is empty");
  const maxTimeout = deps.maxForegroundTimeoutSeconds ?? foregroundLimitFromEnv() ?? MAX_FOREGROUND_TIMEOUT_SECONDS;
  const timeout = args.timeout ?? deps.defaultTimeoutSeconds ?? DEFAULT_TERMINAL_TIMEOUT_SECONDS;
  if (!args.background && timeout > maxTimeout) {
    return fail(
      `timeout ${timeout}s is above the foreground limit of ${maxTimeout}s; run it with background=true and notify_on_complete=true instead`,
    );
  }
  const shell = deps.persistentShell !== false && ctx.sessionId ? shellStateFor(ctx.sessionId) : undefined;
  let note = "";
  if (shell?.cwd && !isDirectory(shell.cwd)) {
    note = `[${shell.cwd}, where the last command ended, no longer exists: running in ${ctx.cwd}]\n`;
    shell.cwd = undefined;
  }
  const here = shell?.cwd ?? ctx.cwd;
  const cwd = args.workdir ? resolve(here, args.workdir) : here;
  if (!isDirectory(cwd)) return fail(`working directory does not exist: ${cwd}`);

  const policy = (ctx.services?.approvals as ApprovalPolicy | undefined) ?? deps.approvals ?? new ApprovalPolicy();
  const verdict = await policy.check(command, ctx);
  if (!verdict.allowed) return fail(verdict.message);

  if (args.keep_alive && !args.background) return fail("keep_alive applies only with background=true");
  if (args.keep_alive && !deps.allowKeepAlive) {
    return fail(
      "keep_alive is not allowed: the user has not set terminal.allow_keep_alive. Start it without keep_alive " +
        "(it stops when hermes exits), or ask the user to allow processes that outlive hermes.",
    );
  }
  if (args.background) {
    return startBackground(
      command,
      cwd,
      { notify: args.notify_on_complete === true, keepAlive: args.keep_alive === true, shell },
      ctx,
      deps,
    );
  }
  const carry = shell ? { state: shell, sessionCwd: ctx.cwd, keepCwd: !args.workdir } : undefined;
  const result = await runForeground(command, cwd, timeout, ctx.signal, { ...deps, ...(carry ? { carry } : {}) });
  if (note) result.output = note + result.output;
  if (shell?.cwd) result.cwd = shell.cwd;
  return result;
}

function foregroundLimitFromEnv(): number | undefined {
  const value = Number(process.env.TERMINAL_MAX_FOREGROUND_TIMEOUT);
  return Number.isInteger(value) && value > 0 ? value : undefined;
}

async function startBackground(
  command: string,
  cwd: string,
  { notify, keepAlive, shell }: { notify: boolean; keepAlive: boolean; shell: SessionShellState | undefined },
  ctx: ToolContext,
  deps: TerminalDeps,
): Promise<TerminalResult> {
  const base = await shellCommandEnv();
  const env = shell ? withSessionEnv(base, shell) : base;
  const manager =
    (ctx.services?.processManager as ProcessManager | undefined) ?? deps.processManager ?? defaultProcessManager();
  const notifier = ctx.services?.notify as ((text: string) => void) | undefined;
  let info: ReturnType<ProcessManager["start"]>;
  try {
    info = manager.start({
      command,
      cwd,
      env,
      sessionId: ctx.sessionId,
      taskId: ctx.taskId,
      onComplete: notify ? notifier : undefined,
      keepAlive,
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  let output = `Background process started (session_id ${info.session_id}). Use the process tool to poll, read its log, wait for it or kill it.`;
  if (info.output_file) output += ` It keeps running after hermes exits; its output goes to ${info.output_file}.`;
  if (notify && !notifier) output += " Completion notifications are not available here; poll it instead.";
  else if (notify) output += " You will be notified when it exits.";
  return { output, exit_code: 0, session_id: info.session_id, pid: info.pid };
}

/** A session's shell state for a foreground command to start from and update. */
export interface CarriedShell {
  state: SessionShellState;
  /** The session's working directory. */
  sessionCwd: string;
  /** False for a one-off `workdir`: the directory the command ends in is not kept. */
  keepCwd: boolean;
}

export async function runForeground(
  command: string,
  cwd: string,
  timeoutSeconds: number,
  signal: AbortSignal,
  deps: Pick<TerminalDeps, "maxOutputChars" | "killGraceMs"> & { carry?: CarriedShell } = {},
): Promise<TerminalResult> {
  if (signal.aborted) return fail("Command not started: the turn was interrupted", EXIT_INTERRUPTED);
  const limit = deps.maxOutputChars ?? DEFAULT_TERMINAL_OUTPUT_CHARS;
  // The end of the output (errors, summaries) usually matters more than the start.
  const buffer = new HeadTailBuffer(Math.floor(limit * 0.4), Math.floor(limit * 0.6));
  const { carry } = deps;
  const base = await shellCommandEnv();
  const env = carry ? withSessionEnv(base, carry.state) : base;
  if (signal.aborted) return fail("Command not started: the turn was interrupted", EXIT_INTERRUPTED);
  const wrapped = carry ? wrapForState(command) : undefined;
  const child = wrapped
    ? spawnGroup("bash", ["-c", ...wrapped.args], { cwd, env, stdin: "ignore" })
    : spawnShell(command, { cwd, env, stdin: "ignore" });
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => buffer.append(chunk));
  child.stderr?.on("data", (chunk: string) => buffer.append(chunk));
  try {
    const exit = await superviseChild(child, {
      timeoutMs: timeoutSeconds * 1000,
      signal,
      graceMs: deps.killGraceMs,
    });
    const output = cleanTerminalOutput(buffer.text());
    if (wrapped && carry) {
      if (exit.stopReason) discardShellState(wrapped.stateFile);
      else recordShellState(carry.state, wrapped.stateFile, env, carry.sessionCwd, carry.keepCwd);
    }
    if (exit.stopReason === "timeout") {
      return {
        output,
        exit_code: EXIT_TIMEOUT,
        error: `Command timed out after ${timeoutSeconds}s and was killed (with its child processes). For long-running work use background=true.`,
      };
    }
    if (exit.stopReason === "interrupted") {
      return { output, exit_code: EXIT_INTERRUPTED, error: "Command interrupted: the turn was cancelled." };
    }
    return { output, exit_code: exitCodeOf(exit) };
  } catch (err) {
    return fail(`could not start the command: ${(err as Error).message}`, 127);
  }
}
