/**
 * Reads "when may I try again" out of an error response: `retry-after` / `retry-after-ms`,
 * provider rate-limit reset headers (OpenAI, Anthropic, OpenRouter, IETF draft), reset fields
 * in error bodies, Google's RetryInfo, and "try again in 5 minutes" wording.
 * All results are epoch seconds.
 */

const UNIT_SECONDS: Record<string, number> = {
  ms: 0.001,
  millisecond: 0.001,
  milliseconds: 0.001,
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
};

const UNIT = "(?:milliseconds?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d)(?![a-z])";
const DURATION_PART = new RegExp(`(\\d+(?:\\.\\d+)?)\\s*(${UNIT})`, "g");

/** "6m0s", "1h2m3.5s", "20ms", "5 minutes", "1 hour and 30 minutes" → seconds. */
export function parseDurationSeconds(text: string): number | undefined {
  const input = text.trim().toLowerCase();
  let total = 0;
  let matched = false;
  for (const match of input.matchAll(DURATION_PART)) {
    total += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ""] ?? 0);
    matched = true;
  }
  const leftover = input.replace(DURATION_PART, "").replace(/\band\b|[\s,]/g, "");
  return matched && leftover === "" ? total : undefined;
}

/**
 * A reset value in any of the forms providers use: epoch milliseconds, epoch seconds, a delta in
 * seconds, a Go-style duration, or an ISO-8601 / HTTP date.
 */
export function parseResetValue(value: unknown, nowMs: number): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return numericReset(value, nowMs);
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return numericReset(Number(text), nowMs);
  const duration = /^[\d.]+\s*[a-z]/i.test(text) && !/^\d{4}-/.test(text) ? parseDurationSeconds(text) : undefined;
  if (duration !== undefined) return nowMs / 1000 + duration;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date / 1000;
}

function numericReset(n: number, nowMs: number): number {
  if (n > 1e12) return n / 1000; // epoch milliseconds
  if (n > 1e9) return n; // epoch seconds
  return nowMs / 1000 + n; // seconds from now
}

/** `retry-after-ms`, then `retry-after` (seconds or an HTTP date). */
export function retryAfterFromHeaders(headers: Record<string, string>, nowMs: number): number | undefined {
  const ms = headers["retry-after-ms"];
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms.trim())) return nowMs / 1000 + Number(ms) / 1000;
  const value = headers["retry-after"];
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return nowMs / 1000 + Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(date, nowMs) / 1000;
}

interface LimitFamily {
  remaining?: number;
  reset?: number;
}

const RESET_HEADER = [
  /^x-ratelimit-reset(?:-(.+))?$/,
  /^ratelimit-reset(?:-(.+))?$/,
  /^anthropic-ratelimit-(.+)-reset$/,
  /^x-ratelimit-(.+)-reset$/,
];
const REMAINING_HEADER = [
  /^x-ratelimit-remaining(?:-(.+))?$/,
  /^ratelimit-remaining(?:-(.+))?$/,
  /^anthropic-ratelimit-(.+)-remaining$/,
];

function familyOf(name: string, patterns: RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(name);
    if (match) return match[1] ?? "default";
  }
  return undefined;
}

/**
 * The reset time of the limit that was hit: among families whose `remaining` is 0, the latest
 * reset; when no family says which, the latest reset of all (never retry too early).
 */
export function resetFromRateLimitHeaders(headers: Record<string, string>, nowMs: number): number | undefined {
  const families = new Map<string, LimitFamily>();
  const family = (key: string) => {
    let entry = families.get(key);
    if (!entry) {
      entry = {};
      families.set(key, entry);
    }
    return entry;
  };
  for (const [name, value] of Object.entries(headers)) {
    const resetKey = familyOf(name, RESET_HEADER);
    if (resetKey !== undefined) {
      const reset = parseResetValue(value, nowMs);
      if (reset !== undefined) family(resetKey).reset = reset;
      continue;
    }
    const remainingKey = familyOf(name, REMAINING_HEADER);
    if (remainingKey !== undefined && /^\d+$/.test(value.trim())) family(remainingKey).remaining = Number(value);
  }
  const withReset = [...families.values()].filter((f) => f.reset !== undefined);
  const exhausted = withReset.filter((f) => f.remaining === 0);
  const pool = exhausted.length > 0 ? exhausted : withReset;
  if (pool.length === 0) return undefined;
  return Math.max(...pool.map((f) => f.reset as number));
}

type Dict = Record<string, unknown>;
const isDict = (v: unknown): v is Dict => typeof v === "object" && v !== null && !Array.isArray(v);

const BODY_RESET_KEYS = ["reset_at", "resets_at", "resetAt", "resetsAt", "reset_time", "reset"];
const BODY_RETRY_KEYS = ["retry_after", "retryAfter", "retry_after_seconds"];

/** Reset fields in the body (`error.reset_at`, `retry_after`, Google RetryInfo `retryDelay`). */
export function resetFromBody(body: unknown, nowMs: number): number | undefined {
  const top = Array.isArray(body) ? body[0] : body;
  if (!isDict(top)) return undefined;
  const objects = [top, top.error, isDict(top.error) ? top.error.metadata : undefined].filter(isDict);
  for (const object of objects) {
    for (const key of BODY_RETRY_KEYS) {
      const value = object[key];
      const seconds = typeof value === "number" ? value : typeof value === "string" ? Number(value) : Number.NaN;
      if (Number.isFinite(seconds) && seconds >= 0) return nowMs / 1000 + seconds;
    }
    for (const key of BODY_RESET_KEYS) {
      const reset = parseResetValue(object[key], nowMs);
      if (reset !== undefined) return reset;
    }
    const details = object.details;
    if (Array.isArray(details)) {
      for (const detail of details) {
        if (isDict(detail) && typeof detail.retryDelay === "string") {
          const seconds = parseDurationSeconds(detail.retryDelay);
          if (seconds !== undefined) return nowMs / 1000 + seconds;
        }
      }
    }
  }
  return undefined;
}

const WAIT_PHRASE = new RegExp(
  `(?:try again|retry|wait|resets?|available again)\\s+(?:in|after|for)?\\s*((?:\\d+(?:\\.\\d+)?\\s*${UNIT}[\\s,]*(?:and\\s+)?)+)`,
  "i",
);
const RESET_AT_PHRASE =
  /(?:resets?|try again|available again)\s+(?:at|on|after)\s+(\d{4}-\d{2}-\d{2}[t\s][\d:.]+(?:z|[+-]\d{2}:?\d{2})?)/i;

/** "try again in 5 minutes", "retry in 37.5s", "resets at 2026-03-01T13:00:00Z". */
export function resetFromMessage(text: string, nowMs: number): number | undefined {
  const after = WAIT_PHRASE.exec(text);
  if (after?.[1]) {
    const seconds = parseDurationSeconds(after[1]);
    if (seconds !== undefined) return nowMs / 1000 + seconds;
  }
  const at = RESET_AT_PHRASE.exec(text);
  if (at?.[1]) {
    const date = Date.parse(at[1].toUpperCase().replace(" ", "T"));
    if (!Number.isNaN(date)) return date / 1000;
  }
  return undefined;
}
