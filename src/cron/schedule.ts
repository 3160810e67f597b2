/**
 * Schedules for cron jobs: "30m" (once, 30 minutes from now), "every 2h" (interval),
 * "0 9 * * 1-5" (cron expression) or an ISO timestamp (once, at that time); when a job runs
 * next; and whether an agent's reply asks for nothing to be delivered.
 */
import {
  assertTimeZone,
  looksLikeCron,
  nextCronRun,
  parseCronExpression,
  zoneOffsetMinutes,
} from "./cron-expression.js";

export { CronSyntaxError, parseCronExpression } from "./cron-expression.js";

export type Schedule =
  | { kind: "once"; runAt: string }
  | { kind: "interval"; minutes: number }
  | { kind: "cron"; expr: string; tz?: string };

export interface ScheduledJobTiming {
  schedule: { kind: string; runAt?: string | null; minutes?: number | null; expr?: string | null; tz?: string | null };
  lastRunAt?: string | null;
}

/** A moment given as an ISO-8601 string (its offset matters) or a Date (local offset). */
export type Moment = string | Date;

export class ScheduleError extends Error {
  override name = "ScheduleError";
}

/** A one-shot job still runs if the scheduler notices it this late (e.g. a tick was delayed). */
export const ONCE_GRACE_MS = 120_000;
const MINUTE_MS = 60_000;

const UNIT_MINUTES: Record<string, number> = {
  m: 1,
  min: 1,
  mins: 1,
  minute: 1,
  minutes: 1,
  h: 60,
  hr: 60,
  hrs: 60,
  hour: 60,
  hours: 60,
  d: 1440,
  day: 1440,
  days: 1440,
};

/** "30m", "2 h", "1day" → minutes; whole numbers only. Throws a ScheduleError for anything else. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+)\s*([a-z]+)\s*$/i.exec(String(text));
  const unit = match ? UNIT_MINUTES[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new ScheduleError(`"${text}" is not a duration; use a whole number and a unit, e.g. 30m, 2h or 1d`);
  }
  return Number(match[1]) * unit;
}

/** Turns user text into a schedule. `now` anchors relative durations and naive timestamps. */
export function parseSchedule(text: string, options: { now?: Moment } = {}): Schedule {
  const trimmed = String(text).trim();
  const every = /^every\s+(.+)$/i.exec(trimmed);
  if (every) {
    const minutes = parseDuration(every[1]!);
    if (minutes <= 0) throw new ScheduleError(`the interval in "${text}" must be at least one minute`);
    return { kind: "interval", minutes };
  }
  const now = readMoment(options.now ?? new Date());
  if (isDuration(trimmed)) {
    return { kind: "once", runAt: formatIso(now.ms + parseDuration(trimmed) * MINUTE_MS, now.offsetMinutes) };
  }
  if (looksLikeCron(trimmed)) {
    const expr = trimmed.split(/\s+/).join(" ");
    try {
      parseCronExpression(expr);
    } catch (error) {
      throw new ScheduleError(`invalid cron expression "${trimmed}": ${(error as Error).message}`);
    }
    return { kind: "cron", expr };
  }
  const timestamp = parseIso(trimmed, now.offsetMinutes);
  if (timestamp) return { kind: "once", runAt: formatIso(timestamp.ms, timestamp.offsetMinutes) };
  throw new ScheduleError(
    `"${text}" is not a schedule; use a delay (30m), an interval (every 2h), ` +
      "a cron expression (0 9 * * *) or a timestamp (2026-06-01T09:00)",
  );
}

/**
 * When the job should run next, as an ISO string, or null when it never will again (including a
 * job of unknown kind or one missing its runAt, minutes or expr).
 * A one-shot job runs once: never again after any recorded run. Interval and cron jobs count from
 * their last run, or from now when they have not run yet. A cron expression is read in
 * `schedule.tz` when set, otherwise at the UTC offset of `now`.
 */
export function computeNextRun(job: ScheduledJobTiming, now: Moment): string | null {
  const current = readMoment(now);
  const { schedule } = job;
  const lastRun = job.lastRunAt ? parseIso(job.lastRunAt, current.offsetMinutes) : undefined;
  const base = lastRun ?? current;
  switch (schedule.kind) {
    case "once": {
      if (job.lastRunAt) return null;
      const runAt = schedule.runAt ? parseIso(schedule.runAt, current.offsetMinutes) : undefined;
      if (!runAt || current.ms - runAt.ms > ONCE_GRACE_MS) return null;
      return schedule.runAt!;
    }
    case "interval": {
      const minutes = Number(schedule.minutes ?? Number.NaN);
      if (!(minutes > 0)) return null;
      return formatIso(base.ms + minutes * MINUTE_MS, current.offsetMinutes);
    }
    case "cron": {
      if (!schedule.expr) return null;
      const timeZone = schedule.tz || formatOffset(current.offsetMinutes);
      assertTimeZone(timeZone);
      const next = nextCronRun(parseCronExpression(schedule.expr), base.ms, timeZone);
      return next === null ? null : formatIso(next, zoneOffsetMinutes(next, timeZone));
    }
    default:
      return null;
  }
}

const SILENT_MARKERS = new Set(["[SILENT]", "SILENT", "NO_REPLY", "NO REPLY"]);

const isMarker = (text: string) => SILENT_MARKERS.has(text.trim().split(/\s+/).join(" ").toUpperCase());

/**
 * True when a cron job's reply means "nothing to report". Markers are [SILENT], SILENT, NO_REPLY
 * and NO REPLY, in any case and spacing. The reply is silent when it is a marker as a whole, when
 * its first or last non-blank line is a marker, or when it begins or ends with [SILENT]. A marker
 * inside a sentence does not count.
 */
export function isSilentResponse(text: string | null | undefined): boolean {
  const trimmed = String(text ?? "").trim();
  if (trimmed === "") return false;
  if (isMarker(trimmed)) return true;
  const lines = trimmed.split(/\r\n|\r|\n/).filter((line) => line.trim() !== "");
  if (isMarker(lines[0]!) || isMarker(lines[lines.length - 1]!)) return true;
  const upper = trimmed.toUpperCase();
  return upper.startsWith("[SILENT]") || upper.endsWith("[SILENT]");
}

function isDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

interface Instant {
  ms: number;
  offsetMinutes: number;
}

function readMoment(moment: Moment): Instant {
  if (moment instanceof Date) {
    const ms = moment.getTime();
    if (Number.isNaN(ms)) throw new ScheduleError("invalid date");
    return { ms, offsetMinutes: -moment.getTimezoneOffset() };
  }
  const date = new Date();
  const parsed = parseIso(moment, -date.getTimezoneOffset());
  if (!parsed) throw new ScheduleError(`"${moment}" is not an ISO-8601 timestamp`);
  return parsed;
}

const ISO_RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Parses an ISO-8601 timestamp; one without an offset is read in `defaultOffsetMinutes`. */
function parseIso(text: string, defaultOffsetMinutes: number): Instant | undefined {
  const m = ISO_RE.exec(text.trim());
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = m[7] ? Number(`0.${m[7]}`) * 1000 : 0;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, Math.floor(millis));
  if (new Date(wall).getUTCDate() !== day) return undefined;
  const offsetMinutes = m[8] === undefined ? defaultOffsetMinutes : parseOffset(m[8]);
  return { ms: wall - offsetMinutes * MINUTE_MS, offsetMinutes };
}

function parseOffset(text: string): number {
  if (text.toUpperCase() === "Z") return 0;
  const sign = text.startsWith("-") ? -1 : 1;
  const digits = text.slice(1).replace(":", "");
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0));
}

/** "+05:30" / "-08:00" for an offset in minutes east of UTC. */
function formatOffset(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${offsetMinutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** ISO-8601 with an explicit numeric offset (+00:00 for UTC), milliseconds only when present. */
export function formatIso(ms: number, offsetMinutes: number): string {
  const wall = new Date(ms + offsetMinutes * MINUTE_MS);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const date = `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`;
  const time = `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`;
  const millis = wall.getUTCMilliseconds() ? `.${pad(wall.getUTCMilliseconds(), 3)}` : "";
  return `${date}T${time}${millis}${formatOffset(offsetMinutes)}`;
}
