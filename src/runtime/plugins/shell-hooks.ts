/**
 * Shell hooks from config.yaml: a command per event that reads the event as JSON on stdin and
 * may answer with a JSON decision on stdout. A command runs only once the user has approved
 * that exact command for that event (`hermes hooks approve`), or with `hooks_auto_accept: true`:
 * config.yaml may come from a dotfiles repository or a shared machine, and a hook runs with
 * the user's rights on every tool call.
 *
 * Answers: exit 2 blocks a `pre_tool_call` (stderr, else stdout, is the reason the model reads);
 * exit 0 with `{"block": "why"}` (or `{"decision": "block", "reason": "why"}`), `{"args": {...}}`,
 * `{"context": "..."}` (pre_llm_call; plain text works too) or `{"result": "..."}`
 * (transform_tool_result); any other exit code is a failure, reported once and skipped.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type HookEvent, type HookHandler, isHookEvent } from "../../agent/hooks.js";
import type { HermesConfig } from "../../state/config-schema.js";
import { atomicWriteFile } from "../../util/atomic-write.js";

export const DEFAULT_SHELL_HOOK_TIMEOUT_S = 30;
const MAX_OUTPUT_BYTES = 256 * 1024;
const TOOL_EVENTS = new Set<HookEvent>(["pre_tool_call", "post_tool_call", "transform_tool_result"]);

export interface ShellHook {
  event: HookEvent;
  command: string;
  matcher?: string;
  timeoutSeconds: number;
  /** Stable across runs: changes when the event or the command text changes. */
  id: string;
}

export interface ShellHookProblem {
  event: string;
  message: string;
}

export function shellHookId(event: string, command: string): string {
  return createHash("sha256").update(`${event}\u0000${command}`).digest("hex").slice(0, 16);
}

/** The hooks config.yaml declares, and entries that cannot be used (unknown events, bad matchers). */
export function configuredShellHooks(config: HermesConfig): { hooks: ShellHook[]; problems: ShellHookProblem[] } {
  const hooks: ShellHook[] = [];
  const problems: ShellHookProblem[] = [];
  for (const [event, value] of Object.entries(config.hooks)) {
    if (!isHookEvent(event)) {
      problems.push({ event, message: `hooks.${event}: not an event (one of the names in docs/plugins.md)` });
      continue;
    }
    for (const entry of Array.isArray(value) ? value : [value]) {
      const spec = typeof entry === "string" ? { command: entry } : entry;
      if (!spec.command.trim()) continue;
      if (spec.matcher !== undefined) {
        try {
          new RegExp(spec.matcher);
        } catch {
          problems.push({ event, message: `hooks.${event}: matcher "${spec.matcher}" is not a regular expression` });
          continue;
        }
      }
      hooks.push({
        event,
        command: spec.command,
        ...(spec.matcher !== undefined ? { matcher: spec.matcher } : {}),
        timeoutSeconds: spec.timeout ?? DEFAULT_SHELL_HOOK_TIMEOUT_S,
        id: shellHookId(event, spec.command),
      });
    }
  }
  return { hooks, problems };
}

interface ApprovalFile {
  approved: Record<string, { event: string; command: string; approved_at: string }>;
}

export function approvalsPath(home: string): string {
  return join(home, "hooks", "approved.json");
}

export function readApprovals(home: string): ApprovalFile {
  const path = approvalsPath(home);
  if (!existsSync(path)) return { approved: {} };
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as ApprovalFile;
    if (parsed && typeof parsed.approved === "object" && parsed.approved !== null) return parsed;
  } catch {
    // An unreadable file approves nothing.
  }
  return { approved: {} };
}

export function approveShellHooks(home: string, hooks: readonly ShellHook[], now = new Date()): void {
  const file = readApprovals(home);
  for (const hook of hooks) {
    file.approved[hook.id] = { event: hook.event, command: hook.command, approved_at: now.toISOString() };
  }
  const path = approvalsPath(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  atomicWriteFile(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
}

export function isApproved(home: string, config: HermesConfig, hook: ShellHook): boolean {
  return config.hooks_auto_accept || hook.id in readApprovals(home).approved;
}

export interface ShellHookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs one hook command with `input` on stdin. */
export function runShellCommand(
  command: string,
  input: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ShellHookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const keep = (into: Buffer[]) => (chunk: Buffer) => {
      if (size >= MAX_OUTPUT_BYTES) return;
      size += chunk.length;
      into.push(chunk);
    };
    child.stdout.on("data", keep(out));
    child.stderr.on("data", keep(err));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({
        exitCode: code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        timedOut,
      });
    });
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

function parseAnswer(stdout: string): Record<string, unknown> | undefined {
  const text = stdout.trim();
  if (!text.startsWith("{")) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** What a finished command means for its event (undefined: no opinion). */
export function interpretRun(event: HookEvent, run: ShellHookRun): unknown {
  if (run.timedOut) throw new Error("timed out");
  const answer = parseAnswer(run.stdout);
  if (run.exitCode === 2 && event === "pre_tool_call") {
    const reason = run.stderr.trim() || run.stdout.trim() || "blocked by a hook";
    return { block: reason };
  }
  if (run.exitCode !== 0) {
    const detail = run.stderr.trim().split("\n")[0] ?? "";
    throw new Error(`exited with ${run.exitCode}${detail ? `: ${detail}` : ""}`);
  }
  switch (event) {
    case "pre_tool_call": {
      if (!answer) return undefined;
      const block =
        typeof answer.block === "string" ? answer.block : answer.decision === "block" ? answer.reason : undefined;
      if (typeof block === "string" || answer.decision === "block")
        return { block: String(block ?? "blocked by a hook") };
      return answer.args && typeof answer.args === "object" ? { args: answer.args } : undefined;
    }
    case "pre_llm_call":
      if (answer) return typeof answer.context === "string" ? answer.context : undefined;
      return run.stdout.trim() || undefined;
    case "transform_tool_result":
      return answer && typeof answer.result === "string" ? answer.result : undefined;
    default:
      return undefined;
  }
}

/** The handler the hook runner calls for one approved shell hook. */
export function shellHookHandler(hook: ShellHook, options: { home: string; cwd: string }): HookHandler<HookEvent> {
  const matcher = hook.matcher !== undefined ? new RegExp(hook.matcher) : undefined;
  return async (payload) => {
    const toolName = (payload as { toolName?: string }).toolName;
    if (matcher && TOOL_EVENTS.has(hook.event) && !matcher.test(toolName ?? "")) return undefined;
    const env = {
      ...process.env,
      HERMES_HOME: options.home,
      HERMES_HOOK_EVENT: hook.event,
      ...((payload as { sessionId?: string }).sessionId
        ? { HERMES_SESSION_ID: (payload as { sessionId: string }).sessionId }
        : {}),
    };
    const run = await runShellCommand(hook.command, JSON.stringify({ event: hook.event, ...payload }), {
      cwd: options.cwd,
      env,
      timeoutMs: hook.timeoutSeconds * 1000,
    });
    return interpretRun(hook.event, run) as never;
  };
}
