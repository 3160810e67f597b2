/**
 * Five-field cron expressions (minute hour day-of-month month day-of-week): validation and
 * "next matching minute" in a given IANA time zone or fixed UTC offset, with plain calendar
 * arithmetic and Intl.
 */

export interface CronFields {
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  daysOfWeek: ReadonlySet<number>;
  /** Both day fields restricted: a day matches when either does (classic cron rule). */
  dayOr: boolean;
  /**
   * The minute or hour field is a star form ("*", "*\/15"): when clocks fall back, such a job
   * also fires on the second pass through the repeated wall times. A job pinned to fixed
   * minutes and hours fires only on the first pass, so it runs once a day as intended.
   */
  repeatsInFallBack: boolean;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  namesStartAt?: number;
}

const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"] as const;
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] as const;

const FIELD_SPECS: readonly FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES, namesStartAt: 1 },
  { name: "day of week", min: 0, max: 7, names: DAY_NAMES, namesStartAt: 0 },
];

const MACROS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

export class CronSyntaxError extends Error {
  override name = "CronSyntaxError";
}

/** True when the text has the shape of a cron expression (it may still be invalid). */
export function looksLikeCron(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() in MACROS) return true;
  const fields = trimmed.split(/\s+/);
  return fields.length === 5 && fields.every((f) => /^[\d*,/\-?a-z]+$/i.test(f)) && /[\d*]/.test(fields[0] ?? "");
}

/** Parses and validates an expression; throws CronSyntaxError naming the bad field. */
export function parseCronExpression(expr: string): CronFields {
  const trimmed = expr.trim();
  const expanded = MACROS[trimmed.toLowerCase()] ?? trimmed;
  const parts = expanded.split(/\s+/);
  if (parts.length !== 5) {
    throw new CronSyntaxError(`cron expression "${expr}" must have 5 fields (minute hour day month weekday)`);
  }
  const [minutes, hours, daysOfMonth, months, rawDays] = parts.map((part, i) => parseField(part, FIELD_SPECS[i]!));
  const daysOfWeek = new Set([...rawDays!].map((d) => d % 7));
  const restricted = (part: string | undefined) => part !== "*" && part !== "?";
  const starForm = (part: string | undefined) => /^[*?]/.test(part ?? "");
  return {
    minutes: minutes!,
    hours: hours!,
    daysOfMonth: daysOfMonth!,
    months: months!,
    daysOfWeek,
    dayOr: restricted(parts[2]) && restricted(parts[4]),
    repeatsInFallBack: starForm(parts[0]) || starForm(parts[1]),
  };
}

function parseField(text: string, spec: FieldSpec): Set<number> {
  const values = new Set<number>();
  for (const item of text.split(",")) {
    if (item === "") throw new CronSyntaxError(`empty list item in the ${spec.name} field "${text}"`);
    const [rangePart, stepPart, extra] = item.split("/");
    if (extra !== undefined) throw new CronSyntaxError(`bad step in the ${spec.name} field "${item}"`);
    const step = stepPart === undefined ? 1 : parseNumber(stepPart, spec, "step");
    if (step < 1) throw new CronSyntaxError(`step must be at least 1 in the ${spec.name} field "${item}"`);

    let start: number;
    let end: number;
    if (rangePart === "*" || rangePart === "?") {
      start = spec.min;
      end = spec.name === "day of week" ? 6 : spec.max;
    } else {
      const bounds = (rangePart ?? "").split("-");
      if (bounds.length > 2) throw new CronSyntaxError(`bad range in the ${spec.name} field "${item}"`);
      start = parseValue(bounds[0] ?? "", spec);
      end = bounds[1] === undefined ? (stepPart === undefined ? start : spec.max) : parseValue(bounds[1], spec);
      if (end < start) throw new CronSyntaxError(`range runs backwards in the ${spec.name} field "${item}"`);
    }
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return values;
}

function parseValue(text: string, spec: FieldSpec): number {
  const upper = text.toUpperCase();
  const named = spec.names?.indexOf(upper as never) ?? -1;
  if (named >= 0) return named + (spec.namesStartAt ?? 0);
  const value = parseNumber(text, spec, "value");
  if (value < spec.min || value > spec.max) {
    throw new CronSyntaxError(`${spec.name} value ${value} is outside ${spec.min}-${spec.max}`);
  }
  return value;
}

function parseNumber(text: string, spec: FieldSpec, what: string): number {
  if (!/^\d+$/.test(text)) throw new CronSyntaxError(`bad ${what} "${text}" in the ${spec.name} field`);
  return Number(text);
}

/** How far ahead to look before concluding an expression never fires (covers leap days). */
const SEARCH_DAYS = 366 * 8;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Wall times this far before the start (in minutes) can still fall after it: covers any fall-back. */
const FALL_BACK_SLACK_MINUTES = 180;

/**
 * The earliest matching instant strictly after `afterMs`, reading the fields in `timeZone` (an
 * IANA name or a fixed offset such as "+05:30"); null if none within the search window.
 *
 * Wall times are visited in order, but when clocks fall back a wall time has two instants and a
 * later wall time's first instant can precede an earlier wall time's second one, so the search
 * keeps the smallest instant found and stops once wall times can only lead to later instants.
 */
export function nextCronRun(fields: CronFields, afterMs: number, timeZone: string): number | null {
  const start = wallClock(afterMs, timeZone);
  const startDay = Date.UTC(start.year, start.month - 1, start.day);
  const startMinuteOfDay = start.hour * 60 + start.minute;
  let best: number | null = null;
  for (let offset = 0; offset <= SEARCH_DAYS; offset++) {
    const day = new Date(startDay + offset * DAY_MS);
    if (!dayMatches(fields, day)) continue;
    for (const hour of sortedValues(fields.hours)) {
      for (const minute of sortedValues(fields.minutes)) {
        if (offset === 0 && hour * 60 + minute < startMinuteOfDay - FALL_BACK_SLACK_MINUTES) continue;
        const wall = {
          year: day.getUTCFullYear(),
          month: day.getUTCMonth() + 1,
          day: day.getUTCDate(),
          hour,
          minute,
        };
        const instants = wallToInstants(wall, timeZone);
        if (instants.length === 0) continue;
        if (best !== null && instants[0]! > best) return best;
        const usable = fields.repeatsInFallBack ? instants : instants.slice(0, 1);
        for (const instant of usable) {
          if (instant > afterMs && (best === null || instant < best)) best = instant;
        }
      }
    }
    if (best !== null) return best;
  }
  return null;
}

function dayMatches(fields: CronFields, day: Date): boolean {
  if (!fields.months.has(day.getUTCMonth() + 1)) return false;
  const dom = fields.daysOfMonth.has(day.getUTCDate());
  const dow = fields.daysOfWeek.has(day.getUTCDay());
  return fields.dayOr ? dom || dow : dom && dow;
}

const sortedCache = new WeakMap<ReadonlySet<number>, number[]>();
function sortedValues(set: ReadonlySet<number>): number[] {
  let sorted = sortedCache.get(set);
  if (!sorted) {
    sorted = [...set].sort((a, b) => a - b);
    sortedCache.set(set, sorted);
  }
  return sorted;
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

const FIXED_OFFSET_RE = /^([+-])(\d{2}):(\d{2})$/;

/** Minutes east of UTC for a fixed-offset zone written "+HH:MM" / "-HH:MM", else undefined. */
function fixedOffset(timeZone: string): number | undefined {
  const m = FIXED_OFFSET_RE.exec(timeZone);
  if (!m) return undefined;
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** Throws a RangeError for an unknown IANA zone name (fixed offsets "+HH:MM" are accepted). */
export function assertTimeZone(timeZone: string): void {
  if (fixedOffset(timeZone) === undefined) formatterFor(timeZone);
}

export function wallClock(ms: number, timeZone: string): WallClock & { second: number } {
  const fixed = fixedOffset(timeZone);
  if (fixed !== undefined) {
    const shifted = new Date(ms + fixed * MINUTE_MS);
    return {
      year: shifted.getUTCFullYear(),
      month: shifted.getUTCMonth() + 1,
      day: shifted.getUTCDate(),
      hour: shifted.getUTCHours(),
      minute: shifted.getUTCMinutes(),
      second: shifted.getUTCSeconds(),
    };
  }
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(ms))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

/** Offset of the zone from UTC at an instant, in minutes (east positive). */
export function zoneOffsetMinutes(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / MINUTE_MS);
}

/**
 * Instants at which the zone's clock shows `wall`, earliest first: none inside a DST gap,
 * two inside a repeated hour.
 */
function wallToInstants(wall: WallClock, timeZone: string): number[] {
  const naive = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute);
  const offsets = new Set([zoneOffsetMinutes(naive - DAY_MS, timeZone), zoneOffsetMinutes(naive + DAY_MS, timeZone)]);
  const found = new Set<number>();
  for (const offset of offsets) {
    const candidate = naive - offset * MINUTE_MS;
    const check = wallClock(candidate, timeZone);
    if (
      check.year === wall.year &&
      check.month === wall.month &&
      check.day === wall.day &&
      check.hour === wall.hour &&
      check.minute === wall.minute
    ) {
      found.add(candidate);
    }
  }
  return [...found].sort((a, b) => a - b);
}
