/** The `process` tool: look after background processes started with `terminal(background=true)`. */
import { z } from "../../util/schema/index.js";
import type { ApprovalPolicy } from "../approval/policy.js";
import { defaultProcessManager, type ProcessManager, ProcessNotFoundError } from "../process-manager.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export const DEFAULT_WAIT_SECONDS = 180;
export const MAX_WAIT_SECONDS = 600;

export interface ProcessToolDeps {
  processManager?: ProcessManager;
  /** Checks text written to a process's stdin as the command it is. */
  approvals?: ApprovalPolicy;
}

const ACTIONS = ["list", "poll", "log", "wait", "kill", "write", "submit", "close"] as const;

export const processParameters = z.object({
  action: z
    .enum(ACTIONS)
    .describe(
      "list; poll (status and new output); log (lines by offset/limit); wait (until exit or timeout); kill (with children); write (raw stdin); submit (text + Enter); close (stdin EOF).",
    ),
  session_id: z.string().optional().describe("From terminal(background=true); not needed for list."),
  data: z.string().optional().describe("Text for write and submit."),
  timeout: z.number().int().min(1).optional().describe("wait: seconds (default 180, max 600)."),
  offset: z.number().int().min(0).optional().describe("log: first line (default: the last `limit` lines)."),
  limit: z.number().int().min(1).optional().describe("log: lines (default 200)."),
});

export type ProcessArgs = z.infer<typeof processParameters>;

export function registerProcessTools(registry: ToolRegistry, deps: ProcessToolDeps = {}): void {
  registry.register({
    name: "process",
    toolset: "terminal",
    description:
      "Manage processes started with terminal(background=true). Returns JSON: the process list, or a process's status, exit code and output (wait returns what it has when the timeout passes).",
    parameters: processParameters,
    emoji: "⚙️",
    maxResultChars: 100_000,
    handler: (args, ctx) => runProcessAction(args, ctx, deps),
  });
}

export async function runProcessAction(
  args: ProcessArgs,
  ctx: ToolContext,
  deps: ProcessToolDeps = {},
): Promise<string> {
  const manager =
    (ctx.services?.processManager as ProcessManager | undefined) ?? deps.processManager ?? defaultProcessManager();
  const owner = ctx.sessionId ?? ctx.taskId;
  if (args.action === "list") return JSON.stringify({ processes: manager.list(owner) });
  const id = args.session_id;
  if (!id) return JSON.stringify({ error: `session_id is required for action "${args.action}"` });
  try {
    switch (args.action) {
      case "poll":
        return JSON.stringify(manager.poll(id, owner));
      case "log":
        return JSON.stringify(manager.log(id, { offset: args.offset, limit: args.limit }, owner));
      case "wait": {
        const seconds = Math.min(args.timeout ?? DEFAULT_WAIT_SECONDS, MAX_WAIT_SECONDS);
        return JSON.stringify(await manager.wait(id, seconds * 1000, ctx.signal, owner));
      }
      case "kill":
        return JSON.stringify(await manager.kill(id, owner));
      case "write":
      case "submit": {
        if (args.data === undefined) return JSON.stringify({ error: `data is required for action "${args.action}"` });
        // Text written to a background shell is a command like any other: the same policy decides.
        if (deps.approvals && args.data.trim()) {
          const verdict = await deps.approvals.check(args.data.trim(), ctx);
          if (!verdict.allowed) return JSON.stringify({ error: verdict.message });
        }
        const text = args.action === "submit" ? `${args.data}\n` : args.data;
        return JSON.stringify({ ...manager.write(id, text, owner), bytes_written: Buffer.byteLength(text) });
      }
      case "close":
        return JSON.stringify(manager.closeStdin(id, owner));
    }
  } catch (err) {
    const hint = err instanceof ProcessNotFoundError ? ' Use action "list" to see the processes.' : "";
    return JSON.stringify({ error: `${(err as Error).message}.${hint}` });
  }
}
