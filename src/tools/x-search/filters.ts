/**
 * The filters of one x_search call, checked before anything is sent: xAI takes any string in its
 * date and handle fields and answers a malformed or impossible filter with a confident answer
 * that cites nothing, which costs a paid call and misleads the model.
 */

/** xAI accepts at most this many handles in either list. */
export const MAX_HANDLES = 10;
/** What X allows in a handle: letters, digits and underscores, 1 to 15 of them. */
const HANDLE = /^[A-Za-z0-9_]{1,15}$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface XSearchFilterInput {
  allowed_x_handles?: string[] | undefined;
  excluded_x_handles?: string[] | undefined;
  from_date?: string | undefined;
  to_date?: string | undefined;
  enable_image_understanding?: boolean | undefined;
  enable_video_understanding?: boolean | undefined;
}

/** The fields of the `x_search` entry of the request's `tools`, as xAI names them. */
export interface XSearchFilters {
  allowed_x_handles?: string[];
  excluded_x_handles?: string[];
  from_date?: string;
  to_date?: string;
  enable_image_understanding?: true;
  enable_video_understanding?: true;
}

export type FilterCheck = { ok: true; filters: XSearchFilters } | { ok: false; error: string };

function handles(raw: string[] | undefined, field: string): string[] | string {
  const cleaned = [...new Set((raw ?? []).map((handle) => handle.trim().replace(/^@/, "")).filter(Boolean))];
  if (cleaned.length > MAX_HANDLES) return `${field} takes at most ${MAX_HANDLES} handles (got ${cleaned.length})`;
  const bad = cleaned.find((handle) => !HANDLE.test(handle));
  if (bad !== undefined) {
    return `${field}: ${JSON.stringify(bad.slice(0, 40))} is not an X handle (1-15 letters, digits or _, with or without @)`;
  }
  return cleaned;
}

/** A real calendar day written YYYY-MM-DD, as milliseconds since the epoch (UTC midnight). */
function day(value: string, field: string): number | string {
  const match = ISO_DATE.exec(value);
  const wrong = `${field} must be a date written YYYY-MM-DD (got ${JSON.stringify(value.slice(0, 40))})`;
  if (!match) return wrong;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const at = Date.UTC(year, month - 1, date);
  const back = new Date(at);
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== date) return wrong;
  return at;
}

/**
 * Checks and normalises the filters: handles lose a leading `@`, the two handle lists exclude each
 * other, dates are real days in order, and `from_date` is not after today (UTC), since no post can
 * exist in a window that has not begun. A `to_date` in the future is fine ("until tomorrow").
 */
export function checkFilters(input: XSearchFilterInput, now: Date = new Date()): FilterCheck {
  const allowed = handles(input.allowed_x_handles, "allowed_x_handles");
  if (typeof allowed === "string") return { ok: false, error: allowed };
  const excluded = handles(input.excluded_x_handles, "excluded_x_handles");
  if (typeof excluded === "string") return { ok: false, error: excluded };
  if (allowed.length > 0 && excluded.length > 0) {
    return { ok: false, error: "give allowed_x_handles or excluded_x_handles, not both: xAI takes one or the other" };
  }
  const fromText = input.from_date?.trim() ?? "";
  const toText = input.to_date?.trim() ?? "";
  const from = fromText ? day(fromText, "from_date") : undefined;
  if (typeof from === "string") return { ok: false, error: from };
  const to = toText ? day(toText, "to_date") : undefined;
  if (typeof to === "string") return { ok: false, error: to };
  if (from !== undefined && to !== undefined && from > to) {
    return { ok: false, error: `from_date (${fromText}) is after to_date (${toText}); swap them or widen the range` };
  }
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  if (from !== undefined && from > today) {
    const todayText = new Date(today).toISOString().slice(0, 10);
    return {
      ok: false,
      error: `from_date (${fromText}) is in the future (today is ${todayText} UTC); X has no posts there yet`,
    };
  }
  const filters: XSearchFilters = {};
  if (allowed.length > 0) filters.allowed_x_handles = allowed;
  if (excluded.length > 0) filters.excluded_x_handles = excluded;
  if (fromText) filters.from_date = fromText;
  if (toText) filters.to_date = toText;
  if (input.enable_image_understanding) filters.enable_image_understanding = true;
  if (input.enable_video_understanding) filters.enable_video_understanding = true;
  return { ok: true, filters };
}

/** Whether the filters narrow which posts may be found (the media switches do not). */
export function narrows(filters: XSearchFilters): boolean {
  return Boolean(filters.allowed_x_handles || filters.excluded_x_handles || filters.from_date || filters.to_date);
}
