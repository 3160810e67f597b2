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

/** "30m", "2 h", "1day" → minutes. Throws a ScheduleError for anything else. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]+)\s*$/i.exec(String(text));
  const unit = match ? UNIT_MINUTES[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) {
    throw new ScheduleError(`"${text}" is not a duration; use a number and a unit, e.g. 30m, 2h or 1d`);
  }
  return Math.round(Number(match[1]) * unit);
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
 * When the job should run next, as an ISO string, or null when it never will again.
 * Interval jobs count from their last run (or from now when they have not run yet); cron jobs
 * take the first matching minute after now, in `schedule.tz` or the machine's zone.
 */
export function computeNextRun(job: ScheduledJobTiming, now: Moment): string | null {
  const current = readMoment(now);
  const { schedule } = job;
  const lastRun = job.lastRunAt ? parseIso(job.lastRunAt, current.offsetMinutes) : undefined;
  switch (schedule.kind) {
    case "once": {
      const runAt = schedule.runAt ? parseIso(schedule.runAt, current.offsetMinutes) : undefined;
      if (!runAt) throw new ScheduleError(`one-shot job has no valid runAt ("${schedule.runAt}")`);
      if (lastRun && lastRun.ms >= runAt.ms) return null;
      if (current.ms - runAt.ms > ONCE_GRACE_MS) return null;
      return schedule.runAt!;
    }
    case "interval": {
      const minutes = Number(schedule.minutes);
      if (!(minutes > 0)) throw new ScheduleError(`interval job has no valid minutes ("${schedule.minutes}")`);
      const base = lastRun ?? current;
      return formatIso(base.ms + minutes * MINUTE_MS, current.offsetMinutes);
    }
    case "cron": {
      const timeZone = schedule.tz || Intl.DateTimeFormat().resolvedOptions().timeZone;
      assertTimeZone(timeZone);
      const next = nextCronRun(parseCronExpression(schedule.expr ?? ""), current.ms, timeZone);
      return next === null ? null : formatIso(next, zoneOffsetMinutes(next, timeZone));
    }
    default:
      throw new ScheduleError(`unknown schedule kind "${schedule.kind}"`);
  }
}

const SILENT_WHOLE = new Set(["[silent]", "silent", "no_reply", "no reply"]);
const SILENT_MARKER = "[silent]";

/**
 * True when a cron job's reply means "nothing to report": the whole reply is a silence marker,
 * or it starts or ends with [SILENT]. A marker merely mentioned mid-text does not count.
 */
export function isSilentResponse(text: string | null | undefined): boolean {
  const normalized = String(text ?? "")
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase();
  if (normalized === "") return false;
  if (SILENT_WHOLE.has(normalized)) return true;
  return normalized.startsWith(SILENT_MARKER) || normalized.endsWith(SILENT_MARKER);
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

/** ISO-8601 with an explicit numeric offset (+00:00 for UTC), milliseconds only when present. */
export function formatIso(ms: number, offsetMinutes: number): string {
  const wall = new Date(ms + offsetMinutes * MINUTE_MS);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const date = `${pad(wall.getUTCFullYear(), 4)}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`;
  const time = `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}:${pad(wall.getUTCSeconds())}`;
  const millis = wall.getUTCMilliseconds() ? `.${pad(wall.getUTCMilliseconds(), 3)}` : "";
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${date}T${time}${millis}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
