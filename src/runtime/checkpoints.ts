/**
 * Checkpoints for the sessions of a runtime: whether a session gets them (`checkpoints.enabled`,
 * on by default in the interactive terminal and ACP), the tracker that takes them, and the
 * automatic pruning (`checkpoints.auto_prune`, at most every `min_interval_hours`).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TurnCheckpointer } from "../agent/checkpointing.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { CheckpointTracker } from "../tools/checkpoints/tracker.js";

/** Platforms where a person edits alongside the agent and expects an undo. */
const ON_BY_DEFAULT = new Set(["acp"]);

export function checkpointsWanted(config: HermesConfig, platform: string, interactive: boolean): boolean {
  const configured = config.checkpoints.enabled;
  if (configured !== undefined) return configured;
  return ON_BY_DEFAULT.has(platform) || (platform === "cli" && interactive);
}

/**
 * A session's checkpointer. The checkpoint code loads on the first change, so a session that
 * only reads never pays for it.
 */
export function sessionCheckpointer(
  home: string,
  config: HermesConfig,
  onWarning: (message: string) => void,
): TurnCheckpointer {
  const settings = config.checkpoints;
  let tracker: Promise<CheckpointTracker> | undefined;
  const load = () =>
    (tracker ??= import("../tools/checkpoints/tracker.js").then(
      ({ CheckpointTracker }) =>
        new CheckpointTracker({
          home,
          maxSnapshots: settings.max_snapshots,
          maxTotalSizeMb: settings.max_total_size_mb,
          maxFileSizeMb: settings.max_file_size_mb,
          retentionDays: settings.retention_days,
          onWarning,
        }),
    ));
  return {
    beforeChange: async (dir, info) => (await load()).beforeChange(dir, info),
    // Callbacks on one promise run in order, so a new turn is in place before the next change.
    newTurn: () => void tracker?.then((loaded) => loaded.newTurn()),
    endTurn: async () => {
      if (tracker) await (await tracker).endTurn();
    },
  };
}

const STAMP = ".last-prune";

/**
 * Prunes every project's checkpoints when auto-pruning is on and the last run is older than
 * `min_interval_hours`. Runs in the background; problems become notices.
 */
export function pruneCheckpointsInBackground(
  home: string,
  config: HermesConfig,
  notice: (message: string) => void,
  now = Date.now(),
): Promise<void> | undefined {
  const settings = config.checkpoints;
  const root = join(home, "checkpoints");
  if (!settings.auto_prune || !existsSync(root)) return undefined;
  const stamp = join(root, STAMP);
  const last = existsSync(stamp) ? Number(readFileSync(stamp, "utf8")) : 0;
  if (Number.isFinite(last) && now - last < settings.min_interval_hours * 3_600_000) return undefined;
  writeFileSync(stamp, String(now));
  return (async () => {
    const { pruneAllCheckpoints } = await import("../tools/checkpoints/prune.js");
    const result = await pruneAllCheckpoints({
      home,
      now,
      retentionDays: settings.retention_days,
      maxSnapshots: settings.max_snapshots,
      maxTotalSizeMb: settings.max_total_size_mb,
      deleteOrphans: settings.delete_orphans,
    });
    for (const error of result.errors) notice(`checkpoint pruning: ${error}`);
  })().catch((error: Error) => notice(`checkpoint pruning failed: ${error.message}`));
}
