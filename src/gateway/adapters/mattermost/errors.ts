/**
 * Mattermost REST failures as the gateway core understands them: a 429 (with the wait the
 * server names), a 5xx or a network failure can succeed later; any other 4xx will fail the same
 * way again. Messages carry Mattermost's own error text and, where it helps, what to do.
 */
import { PlatformSendError } from "../../types.js";

/** The error body Mattermost answers with (its AppError). */
export interface MattermostErrorBody {
  id?: string;
  message?: string;
  detailed_error?: string;
  status_code?: number;
}

/** A failure the server answered with an HTTP status. */
export class MattermostHttpError extends PlatformSendError {
  constructor(
    message: string,
    options: PlatformSendError["options"],
    readonly status: number,
  ) {
    super(message, options);
  }
}

const HINTS: Record<number, string> = {
  401: "the token was rejected; create a new bot or personal access token and update MATTERMOST_TOKEN",
  403: "the bot lacks permission here; add it to the channel (channel name > Add Members)",
  404: "the channel or post does not exist, or the bot cannot see it",
  413: "the message or file is larger than the server accepts",
};

/**
 * How long the server asks to wait, in ms: `Retry-After` first, else `X-RateLimit-Reset`. Both
 * are seconds from now on Mattermost; a reset that reads as an epoch time (a proxy's) is turned
 * into the wait until then.
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  for (const name of ["retry-after", "x-ratelimit-reset"]) {
    const raw = headers.get(name)?.trim();
    if (!raw) continue;
    const seconds = Number(raw);
    if (Number.isFinite(seconds) && seconds >= 0) {
      if (seconds > 1_000_000_000) return Math.max(0, seconds * 1000 - now);
      return Math.ceil(seconds * 1000);
    }
    const date = Date.parse(raw);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  return undefined;
}

/** Mattermost's text for a failed call, short enough for a log line. */
export function describeBody(body: MattermostErrorBody | undefined, fallback: string): string {
  const text = (body?.message ?? "").trim() || fallback.trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function httpError(
  action: string,
  status: number,
  body: MattermostErrorBody | undefined,
  headers: Headers,
  rawText = "",
): MattermostHttpError {
  const said = describeBody(body, rawText);
  const detail = said ? `: ${said}` : "";
  if (status === 429) {
    const wait = retryAfterMs(headers);
    const when = wait === undefined ? "" : `; retry after ${Math.ceil(wait / 1000)} s`;
    return new MattermostHttpError(
      `Mattermost rate-limited ${action}${when}`,
      { retryable: true, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
      status,
    );
  }
  const hint = HINTS[status] ? ` (${HINTS[status]})` : "";
  return new MattermostHttpError(
    `Mattermost answered ${action} with HTTP ${status}${detail}${hint}`,
    { retryable: status >= 500 || status === 408 },
    status,
  );
}

export function networkError(action: string, error: unknown): PlatformSendError {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new PlatformSendError(`Mattermost could not be reached for ${action}: ${why}`, { retryable: true });
}
