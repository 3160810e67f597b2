/**
 * Checkpoints around the agent's turns: before a tool call that changes files (a file edit, a
 * terminal command or script that is not read-only) the project it touches is snapshotted,
 * once per project per turn; when the turn ends, however it ends, each touched project gets
 * its after-turn mark so later hand edits can be told apart from the agent's.
 */
import { dirname, resolve } from "node:path";
import { resolveToolPath } from "../tools/builtin/file-paths.js";
import { classifyToolCall } from "../tools/permissions/classify.js";

/** Tools whose "execute" effect can change files in the working directory. */
const FILE_CHANGING_RUNNERS = new Set(["terminal", "execute_code"]);

/** Directories a call may change: the parents of the files it edits, or where a command runs. */
export function directoriesChangedBy(name: string, args: Record<string, unknown>, cwd: string): string[] {
  const { effect, paths } = classifyToolCall(name, args);
  if (effect === "edit") return [...new Set(paths.map((path) => dirname(resolveToolPath(path, cwd))))];
  if (effect === "execute" && FILE_CHANGING_RUNNERS.has(name)) {
    const workdir = typeof args.workdir === "string" && args.workdir.trim() ? args.workdir : ".";
    return [resolve(cwd, workdir)];
  }
  return [];
}

/** What takes the checkpoints: CheckpointTracker, or something that loads it on first use. */
export interface TurnCheckpointer {
  beforeChange(dir: string, info: { turn?: number; sessionId?: string }): Promise<unknown>;
  newTurn(): void;
  endTurn(): Promise<void>;
}

export interface TurnCheckpoints {
  tracker: TurnCheckpointer;
  turn: number;
  sessionId: string;
}

/** Snapshots what the call is about to change (at most once per project per turn). */
export async function checkpointBefore(
  checkpoints: TurnCheckpoints,
  call: { name: string; args: Record<string, unknown>; cwd: string },
): Promise<void> {
  for (const dir of directoriesChangedBy(call.name, call.args, call.cwd)) {
    await checkpoints.tracker.beforeChange(dir, { turn: checkpoints.turn, sessionId: checkpoints.sessionId });
  }
}
