/**
 * Reset times as providers and older auth.json files give them: epoch seconds, epoch
 * milliseconds, numeric strings or ISO-8601 dates. All become epoch seconds.
 */

/** Epoch values above this are milliseconds (1e12 seconds is some 30,000 years away). */
const MILLISECONDS_ABOVE = 1e12;

function fromNumber(value: number): number | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  return value > MILLISECONDS_ABOVE ? value / 1000 : value;
}

/** Epoch seconds, or null when the value names no usable time. */
export function parseResetTime(value: unknown): number | null {
  if (typeof value === "number") return fromNumber(value);
  if (typeof value !== "string") return null;
  const raw = value.trim();
  if (raw === "") return null;
  if (/^[+-]?\d+(?:\.\d+)?$/.test(raw)) return fromNumber(Number(raw));
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw)) return null;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : fromNumber(ms / 1000);
}
