/**
 * When a job fires next, and how late a fire may still run: half the job's period, clamped to
 * [120 s, 7200 s] (one-shot jobs: 120 s). A fire missed by more is recorded as skipped and the
 * job moves on to its next time after now, so a machine that slept all night does not replay
 * every missed fire at once.
 */
import type { CronJob } from "../state/cron-store.js";
import { computeNextRun, ONCE_GRACE_MS } from "./schedule.js";

const MIN_GRACE_MS = 120_000;
const MAX_GRACE_MS = 7_200_000;

const iso = (ms: number) => new Date(ms).toISOString();
const toMs = (text: string | null) => (text === null ? null : Date.parse(text));

/**
 * The scheduler reads a cron job without its own zone in this machine's zone, daylight saving
 * included (computeNextRun alone would use the fixed offset of the UTC timestamps passed here).
 */
function withZone(schedule: CronJob["schedule"]): CronJob["schedule"] {
  if (schedule.kind !== "cron" || schedule.tz) return schedule;
  return { ...schedule, tz: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

/** The first fire at or after `from` (for a new job), or after the fire at `firedAt` (once it ran). */
export function nextRunAfter(job: Pick<CronJob, "schedule">, from: number, firedAt?: number): number | null {
  const timing = { schedule: withZone(job.schedule), lastRunAt: firedAt === undefined ? null : iso(firedAt) };
  return toMs(computeNextRun(timing, iso(firedAt ?? from)));
}

/** How late the fire due at `due` may start. */
export function graceMs(job: Pick<CronJob, "schedule">, due: number): number {
  if (job.schedule.kind === "once") return ONCE_GRACE_MS;
  const following = nextRunAfter(job, due, due);
  const period = following === null ? 0 : following - due;
  return Math.min(MAX_GRACE_MS, Math.max(MIN_GRACE_MS, Math.floor(period / 2)));
}

/** The first fire of the schedule strictly after `now` (what a skipped job moves on to). */
export function nextRunAfterNow(job: Pick<CronJob, "schedule">, due: number, now: number): number | null {
  if (job.schedule.kind === "once") return null;
  let next = nextRunAfter(job, due, due);
  // Interval jobs count from their last fire; step until the next one is in the future.
  for (let guard = 0; next !== null && next <= now && guard < 100_000; guard++) next = nextRunAfter(job, next, next);
  return next;
}
