/**
 * The skills curator's settings, resolved in one place. Two spellings are read: the original's
 * top-level `curator.*` keys and our older `learning.curator.*`. A key set under
 * `learning.curator` wins; otherwise `curator.*` (with its defaults) applies. The run interval is
 * one value: `learning.curator.interval_days` when set (in days), else `curator.interval_hours`.
 */
import type { HermesConfig } from "./config-schema.js";

export interface CuratorBackupSettings {
  enabled: boolean;
  /** How many backups are kept (the newest). */
  keep: number;
}

export interface CuratorSettings {
  /** Scheduled runs happen (`hermes curator run` by hand works either way). */
  enabled: boolean;
  intervalHours: number;
  /** A scheduled run waits until no session has been active for this long. */
  minIdleHours: number;
  staleAfterDays: number;
  archiveAfterDays: number;
  consolidate: boolean;
  pruneBuiltins: boolean;
  backup: CuratorBackupSettings;
}

export type CuratorConfig = Pick<HermesConfig, "curator"> & {
  learning: { curator: Partial<HermesConfig["learning"]["curator"]> };
};

export function resolveCuratorSettings(config: CuratorConfig): CuratorSettings {
  const legacy = config.learning.curator;
  const current = config.curator;
  return {
    enabled: current.enabled,
    intervalHours: legacy.interval_days !== undefined ? legacy.interval_days * 24 : current.interval_hours,
    minIdleHours: current.min_idle_hours,
    staleAfterDays: legacy.stale_after_days ?? current.stale_after_days,
    archiveAfterDays: legacy.archive_after_days ?? current.archive_after_days,
    consolidate: current.consolidate,
    pruneBuiltins: current.prune_builtins,
    backup: { enabled: current.backup.enabled, keep: current.backup.keep },
  };
}

/** "7 days", "36 hours", "1.5 hours": an interval as a person would say it. */
export function describeHours(hours: number): string {
  if (hours >= 24 && hours % 24 === 0) return hours === 24 ? "1 day" : `${hours / 24} days`;
  return hours === 1 ? "1 hour" : `${hours} hours`;
}
