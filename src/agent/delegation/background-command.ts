/**
 * `/agents`, in the terminal and in chats: the background subagents of the current session
 * (`delegate_task` with `background: true`), and stopping them. A stopped child's result is
 * dropped: nothing comes back to the conversation for it.
 */
import type { BackgroundDelegations, RunningBackgroundChild } from "./background.js";

export const AGENTS_USAGE = "/agents [stop ID | stop all]";
const GOAL_SHOWN_CHARS = 80;

function elapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${String(seconds % 60).padStart(2, "0")}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, "0")}m`;
}

function goalLine(goal: string): string {
  const flat = goal.replace(/\s+/g, " ").trim();
  return flat.length > GOAL_SHOWN_CHARS ? `${flat.slice(0, GOAL_SHOWN_CHARS - 1)}…` : flat;
}

function listing(children: readonly RunningBackgroundChild[], now: number): string {
  if (children.length === 0) return "No background subagents are running in this session.";
  const lines = children.map((child) => `  ${child.id}  ${elapsed(now - child.startedAt)}  ${goalLine(child.goal)}`);
  return [
    `Background subagents of this session (${children.length} running):`,
    ...lines,
    "Stop one with /agents stop ID, or all of them with /agents stop all.",
  ].join("\n");
}

/** The answer to `/agents <args>` for the session `sessionId` (undefined: no session yet). */
export function answerAgentsCommand(
  background: BackgroundDelegations,
  sessionId: string | undefined,
  args: string,
  now: number,
): string {
  const ofSession = (origin: { sessionId: string }) => sessionId !== undefined && origin.sessionId === sessionId;
  const words = args.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0 || (words.length === 1 && words[0] === "list")) {
    return listing(background.runningChildren(ofSession), now);
  }
  if (words[0] !== "stop" || words.length !== 2) return `Usage: ${AGENTS_USAGE}`;
  const target = words[1] as string;
  if (target === "all") {
    const stopped = background.cancel(ofSession, "stopped by the user");
    return stopped === 0
      ? "No background subagents are running in this session."
      : stopped === 1
        ? "Stopped 1 background subagent; its result will not be reported."
        : `Stopped ${stopped} background subagents; their results will not be reported.`;
  }
  const child = background.runningChildren(ofSession).find((candidate) => candidate.id === target);
  if (!child || !background.stop(target, ofSession)) {
    return `No running background subagent ${target} in this session (see /agents).`;
  }
  return `Stopped ${child.id} (${goalLine(child.goal)}); its result will not be reported.`;
}
