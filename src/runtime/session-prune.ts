/**
 * `sessions.auto_prune` (the original's keys): sessions idle for more than `retention_days` are
 * deleted with their messages when a long-lived surface starts (the interactive terminal, the
 * gateway, the API server), at most every `min_interval_hours`, and the SQLite file is then
 * compacted (`vacuum_after_prune`). The time of the last pass is kept in
 * `$HERMES_HOME/.last-session-prune`, so several processes of one home do not each prune.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HermesConfig } from "../state/config-schema.js";
import type { SessionStore } from "../state/session-store.js";

const STAMP = ".last-session-prune";

/** Platforms whose processes live long enough for housekeeping (a one-shot run does none). */
const LONG_LIVED = new Set(["api_server", "gateway"]);

export function wantsSessionPrune(platform: string, interactive: boolean): boolean {
  return LONG_LIVED.has(platform) || (platform === "cli" && interactive);
}

/**
 * Starts a pruning pass when one is due; resolves when it is done. Problems become notices: a
 * store that cannot be pruned now is tried again at the next start after the interval.
 */
export function pruneSessionsInBackground(
  home: string,
  store: SessionStore,
  config: HermesConfig,
  notice: (message: string) => void,
  now = Date.now(),
): Promise<void> | undefined {
  const settings = config.sessions;
  if (!settings.auto_prune) return undefined;
  const stamp = join(home, STAMP);
  const last = existsSync(stamp) ? Number(readFileSync(stamp, "utf8")) : Number.NaN;
  if (Number.isFinite(last) && now - last < settings.min_interval_hours * 3_600_000) return undefined;
  writeFileSync(stamp, String(now));
  return (async () => {
    const removed = await store.pruneSessions({ olderThanDays: settings.retention_days, now });
    if (removed.sessions === 0) return;
    if (settings.vacuum_after_prune) await store.compact?.();
    notice(
      `pruned ${removed.sessions} session(s) idle for more than ${settings.retention_days} days (sessions.auto_prune)`,
    );
  })().catch((error: Error) => notice(`session pruning failed: ${error.message}`));
}
