/**
 * `delegate_task` with `background: true`: the children are built and limited exactly as in the
 * foreground, but each runs on its own abort signal (the parent's turn may end, or be stopped,
 * without touching them) and the tool answers at once with their delegation ids.
 */
import type { BackgroundDelegations, BackgroundOrigin, DispatchEntry } from "./background.js";
import { type ChildEnvironment, type DelegateTask, runChild } from "./run-child.js";

const DISPATCHED_NOTE =
  "Running in the background. Its summary arrives later as a new message in this conversation: do not wait or poll for it. Carry on with other work, or end your turn and tell the user it is under way.";
const DUPLICATE_NOTE =
  "A subagent with this goal is already running for this conversation; its result will arrive as a new message.";

function rejected(error: string): string {
  return JSON.stringify({ status: "rejected", error });
}

function originOf(env: ChildEnvironment): BackgroundOrigin {
  const chat = env.ctx.services?.cronOrigin;
  return {
    sessionId: env.ctx.sessionId ?? "",
    platform: env.ctx.platform ?? "cli",
    ...(chat !== undefined ? { chat } : {}),
  };
}

function preview(goal: string, max = 60): string {
  const flat = goal.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Starts `tasks` as background children (all or none) and returns the tool's JSON answer. */
export function dispatchInBackground(
  tasks: readonly DelegateTask[],
  env: ChildEnvironment,
  registry: BackgroundDelegations | undefined,
): string {
  if (!registry) return rejected("background subagents are not available here; call delegate_task without background");
  if (env.depth > 0) {
    return rejected("only the top-level agent can dispatch background subagents; run this task in the foreground");
  }
  const origin = originOf(env);
  if (!registry.deliverable(origin)) {
    return rejected(
      `nothing here (platform ${origin.platform}) can bring a background subagent's result back to this conversation; run the task in the foreground (background: false)`,
    );
  }
  const { progress, ...ctx } = env.ctx;
  const outcome = registry.dispatch(
    tasks.map((task) => ({
      goal: task.goal,
      run: (signal: AbortSignal) => runChild(task, { ...env, ctx: { ...ctx, signal } }),
    })),
    origin,
  );
  if (!outcome.ok) return rejected(outcome.error);
  for (const entry of outcome.entries) {
    if (entry.status === "dispatched")
      progress?.(`subagent ${entry.delegation_id} started in the background: ${preview(entry.goal)}`);
  }
  return JSON.stringify(answer(outcome.entries));
}

function answer(entries: DispatchEntry[]) {
  const anyStarted = entries.some((entry) => entry.status === "dispatched");
  const note = anyStarted ? DISPATCHED_NOTE : DUPLICATE_NOTE;
  const [only] = entries;
  if (entries.length === 1 && only)
    return { status: only.status, delegation_id: only.delegation_id, goal: only.goal, note };
  return { status: anyStarted ? "dispatched" : "duplicate", delegations: entries, note };
}
