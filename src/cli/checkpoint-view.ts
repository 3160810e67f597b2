/**
 * What `/rollback` and `hermes checkpoints` show and do: the checkpoints of the project a
 * directory belongs to, numbered 1 (newest) to n, a diff, and restores of the tree or of one file.
 */
import { existsSync, realpathSync } from "node:fs";
import type { HermesConfig } from "../state/config-schema.js";
import type { Checkpoint, CheckpointStore, RestoreResult } from "../tools/checkpoints/store.js";

export interface ProjectCheckpoints {
  project: string;
  /** Undefined when the project has never been checkpointed. */
  store: CheckpointStore | undefined;
}

/** The checkpoint store of the project containing `dir`, without creating one. */
export async function checkpointsFor(home: string, config: HermesConfig, dir: string): Promise<ProjectCheckpoints> {
  const { openCheckpointStore, projectRoot, shadowDirFor } = await import("../tools/checkpoints/index.js");
  const project = projectRoot(dir) ?? dir;
  const real = existsSync(project) ? realpathSync(project) : project;
  if (!existsSync(shadowDirFor(home, real))) return { project, store: undefined };
  const settings = config.checkpoints;
  const store = await openCheckpointStore({
    home,
    projectDir: project,
    maxSnapshots: settings.max_snapshots,
    maxTotalSizeMb: settings.max_total_size_mb,
    maxFileSizeMb: settings.max_file_size_mb,
    retentionDays: settings.retention_days,
  });
  return { project, store };
}

function when(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `oldest`: the first checkpoint kept, which has nothing before it to compare with. */
export function checkpointLine(position: number, checkpoint: Checkpoint, oldest = false): string {
  const turn = checkpoint.turn === null ? "" : `turn ${checkpoint.turn}  `;
  const files = oldest
    ? plural(checkpoint.totalFiles, "file")
    : `${plural(checkpoint.filesChanged, "file")} changed since ${position + 1}`;
  return `${String(position).padStart(2)}  ${when(checkpoint.createdAt)}  ${turn}${files}  (${checkpoint.reason})`;
}

export function listText(project: string, checkpoints: readonly Checkpoint[]): string {
  if (checkpoints.length === 0) return `No checkpoints for ${project}.`;
  return [
    `Checkpoints of ${project}, newest first (restore with /rollback N, or hermes checkpoints restore N):`,
    ...checkpoints.map((checkpoint, index) => checkpointLine(index + 1, checkpoint, index === checkpoints.length - 1)),
  ].join("\n");
}

export function restoreText(position: string, result: RestoreResult): string {
  const lines: string[] = [];
  const changed = result.restoredFiles.length + result.removedFiles.length;
  lines.push(
    changed === 0
      ? `Checkpoint ${position}: nothing to restore, the files already match.`
      : `Restored checkpoint ${position}: ${result.restoredFiles.length} file(s) restored, ${result.removedFiles.length} removed.`,
  );
  for (const file of result.restoredFiles) lines.push(`  restored ${file}`);
  for (const file of result.removedFiles) lines.push(`  removed  ${file}`);
  const kept = [...result.keptHandEdits, ...result.keptUnsaved];
  if (kept.length > 0) {
    lines.push(`Kept ${kept.length} file(s) changed by hand after the agent's last turn (--force overwrites them):`);
    for (const file of kept) lines.push(`  kept     ${file}`);
  }
  if (result.safetyCheckpoint) lines.push("The state before this restore is checkpoint 1 now: restore it to undo.");
  return lines.join("\n");
}

export interface RollbackRequest {
  action: "list" | "diff" | "restore";
  position?: string;
  file?: string;
  force: boolean;
}

/** `/rollback`, `/rollback N [FILE] [--force]`, `/rollback diff N`; a string is a usage problem. */
export function parseRollback(args: string): RollbackRequest | string {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const force = words.includes("--force");
  const rest = words.filter((word) => word !== "--force");
  if (rest.length === 0) return force ? "Usage: /rollback N [FILE] [--force]" : { action: "list", force };
  if (rest[0] === "diff") {
    if (!rest[1] || rest.length > 2 || !/^\d+$/.test(rest[1])) return "Usage: /rollback diff N";
    return { action: "diff", position: rest[1], force };
  }
  if (!/^\d+$/.test(rest[0]!) || rest.length > 2) return "Usage: /rollback [N [FILE] [--force] | diff N]";
  return { action: "restore", position: rest[0]!, ...(rest[1] ? { file: rest[1] } : {}), force };
}

/** Runs a parsed request against the project's checkpoints; the text to show. */
export async function runRollback(request: RollbackRequest, project: ProjectCheckpoints): Promise<string> {
  const store = project.store;
  if (!store) return `No checkpoints for ${project.project}.`;
  const checkpoints = await store.list();
  if (request.action === "list") return listText(project.project, checkpoints);
  const position = Number(request.position);
  if (position < 1 || position > checkpoints.length) {
    return `There is no checkpoint ${request.position} (${checkpoints.length ? `1 to ${checkpoints.length}` : "none yet"}).`;
  }
  // By id from here on: the restore's own safety checkpoint shifts every position by one.
  const { id } = checkpoints[position - 1]!;
  if (request.action === "diff") {
    const diff = await store.diff(id);
    return diff.trim() ? diff : `Checkpoint ${position} matches the files as they are.`;
  }
  const result = await store.restore(id, {
    ...(request.file ? { file: request.file } : {}),
    force: request.force,
  });
  return restoreText(String(position), result);
}
