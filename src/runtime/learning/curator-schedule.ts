/**
 * The curator's scheduled run, started in the background when a runtime where a person works
 * opens (the interactive terminal, ACP): only when `curator.enabled`, the last run is the
 * resolved interval old, and no session has been active for `curator.min_idle_hours` (the
 * newest session's last activity in the session store, read before this runtime's own session
 * starts). `hermes curator run` by hand skips these checks.
 */
import { existsSync } from "node:fs";
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import type { HermesConfig } from "../../state/config-schema.js";
import { describeHours, resolveCuratorSettings } from "../../state/curator-settings.js";
import { LearningLedger } from "../../state/learning-ledger.js";
import type { SessionStore } from "../../state/session-store.js";
import { lastCuratorRun } from "../../tools/skills/curator.js";
import { userSkillsDir } from "../../tools/skills/discovery.js";
import { type CuratorPassResult, runCuratorPass } from "./curator-run.js";

const HOUR_MS = 3_600_000;

export interface ScheduledCuratorOptions {
  home: string;
  config: HermesConfig;
  notice: (message: string) => void;
  /** The last activity of the most recently active session, undefined when there is none. */
  lastSessionActivity: () => Promise<number | undefined>;
  /** For `curator.consolidate`. */
  auxiliary?: () => Promise<AuxiliaryClient>;
  /** Stops a consolidation still waiting for the model (the runtime is closing). */
  signal?: AbortSignal;
  now?: number;
}

/** The newest session's last activity: one row of the store's most-recent-first listing. */
export async function newestSessionActivity(store: Pick<SessionStore, "listSessions">): Promise<number | undefined> {
  const [newest] = await store.listSessions({ limit: 1 });
  return newest?.lastActive;
}

/** Why a scheduled run does not start now, or undefined when it is due and may start. */
function notDue(options: ScheduledCuratorOptions, now: number): string | undefined {
  const settings = resolveCuratorSettings(options.config);
  if (options.config.learning.mode === "off") return "learning.mode is off";
  if (!settings.enabled) return "curator.enabled is false";
  if (!existsSync(userSkillsDir(options.home))) return "there are no skills";
  const last = lastCuratorRun(options.home);
  if (last !== undefined && now - last < settings.intervalHours * HOUR_MS) {
    return `the last run is less than ${describeHours(settings.intervalHours)} old`;
  }
  return undefined;
}

/**
 * Runs the curator when it is due and the user has been away long enough. Resolves with the
 * run's result, or with why it did not run.
 */
export function scheduledCuratorRun(
  options: ScheduledCuratorOptions,
): Promise<CuratorPassResult | { skipped: string }> {
  const now = options.now ?? Date.now();
  const reason = notDue(options, now);
  if (reason) return Promise.resolve({ skipped: reason });
  const minIdleHours = resolveCuratorSettings(options.config).minIdleHours;
  // Asked now, before this runtime's first session is recorded, so it never counts itself.
  const activity = minIdleHours > 0 ? options.lastSessionActivity() : Promise.resolve(undefined);
  return activity.then(async (lastActive) => {
    if (lastActive !== undefined && now - lastActive < minIdleHours * HOUR_MS) {
      return { skipped: `a session was active less than ${describeHours(minIdleHours)} ago (curator.min_idle_hours)` };
    }
    return runCuratorPass({
      home: options.home,
      config: options.config,
      now,
      ledger: new LearningLedger(options.home),
      ...(options.auxiliary ? { auxiliary: options.auxiliary } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  });
}

/** What a finished scheduled run tells the user: one line per thing that changed or waits. */
export function scheduledRunNotices(result: CuratorPassResult): string[] {
  const lines: string[] = [];
  const { report, consolidation } = result;
  if (report.archived.length > 0) {
    const names = report.archived.map((item) => item.name).join(", ");
    lines.push(
      `curator: archived unused skill(s) ${names} to skills/.archive/ (hermes learn log; hermes learn undo ID brings one back)`,
    );
  }
  if (!consolidation) return lines;
  for (const merge of consolidation.applied) {
    const others = merge.skills.filter((name) => name !== merge.keep).join(", ");
    lines.push(
      `curator: merged skill(s) ${others} into ${merge.keep} (hermes learn log; hermes learn undo ID reverts it)`,
    );
  }
  if (consolidation.queued.length > 0) {
    lines.push(
      `curator: ${consolidation.queued.length} skill merge proposal(s) queued; /learn or hermes learn list to decide.`,
    );
  }
  for (const refused of consolidation.refused)
    lines.push(`curator: merge into ${refused.merge.keep} refused: ${refused.message}`);
  if (consolidation.skipped?.startsWith("the curator model failed")) lines.push(`curator: ${consolidation.skipped}`);
  return lines;
}

/** Starts a scheduled run in the background; its outcome arrives as notices. Never throws. */
export function curateInBackground(options: ScheduledCuratorOptions): Promise<void> {
  let started: ReturnType<typeof scheduledCuratorRun>;
  try {
    started = scheduledCuratorRun(options);
  } catch (error) {
    started = Promise.reject(error);
  }
  return started
    .then((result) => {
      if ("skipped" in result) return;
      for (const line of scheduledRunNotices(result)) options.notice(line);
    })
    .catch((error: Error) => options.notice(`curator run failed: ${error.message}`));
}
