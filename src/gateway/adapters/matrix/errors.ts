/**
 * Matrix Client-Server API failures as the gateway core understands them: a 429
 * (`M_LIMIT_EXCEEDED`, with the wait the homeserver names in `retry_after_ms`), a 5xx or a
 * network failure can succeed later; any other 4xx will fail the same way again. Messages carry
 * the homeserver's `errcode` and text and, where it helps, what to do.
 */
import { PlatformSendError } from "../../types.js";

/** The error body a homeserver answers with. */
export interface MatrixErrorBody {
  errcode?: string;
  error?: string;
  retry_after_ms?: number;
}

/** A failure the homeserver answered with an HTTP status. */
export class MatrixHttpError extends PlatformSendError {
  constructor(
    message: string,
    options: PlatformSendError["options"],
    readonly status: number,
    readonly errcode: string | undefined,
  ) {
    super(message, options);
  }
}

const HINTS: Record<string, string> = {
  M_UNKNOWN_TOKEN: "the access token was rejected; log in again and update MATRIX_ACCESS_TOKEN",
  M_MISSING_TOKEN: "no access token was sent; set MATRIX_ACCESS_TOKEN",
  M_FORBIDDEN: "the bot may not do this here; invite it to the room or give it the power level needed",
  M_NOT_FOUND: "the room, event or file does not exist, or the bot cannot see it",
  M_TOO_LARGE: "the message or file is larger than the homeserver accepts",
};

/** How long the homeserver asks to wait, in ms: `retry_after_ms` in the body, else `Retry-After` (seconds). */
export function retryAfterMs(body: MatrixErrorBody | undefined, headers: Headers): number | undefined {
  if (typeof body?.retry_after_ms === "number" && Number.isFinite(body.retry_after_ms) && body.retry_after_ms >= 0) {
    return Math.ceil(body.retry_after_ms);
  }
  const seconds = Number(headers.get("retry-after")?.trim() || Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

function said(body: MatrixErrorBody | undefined, fallback: string): string {
  const text = [body?.errcode, (body?.error ?? "").trim()].filter(Boolean).join(" ") || fallback.trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function httpError(
  action: string,
  status: number,
  body: MatrixErrorBody | undefined,
  headers: Headers,
  rawText = "",
): MatrixHttpError {
  if (status === 429) {
    const wait = retryAfterMs(body, headers);
    const when = wait === undefined ? "" : `; retry after ${Math.ceil(wait / 1000)} s`;
    return new MatrixHttpError(
      `the Matrix homeserver rate-limited ${action}${when}`,
      { retryable: true, ...(wait === undefined ? {} : { retryAfterMs: wait }) },
      status,
      body?.errcode,
    );
  }
  const text = said(body, rawText);
  const hint = body?.errcode && HINTS[body.errcode] ? ` (${HINTS[body.errcode]})` : "";
  return new MatrixHttpError(
    `the Matrix homeserver answered ${action} with HTTP ${status}${text ? `: ${text}` : ""}${hint}`,
    { retryable: status >= 500 || status === 408 },
    status,
    body?.errcode,
  );
}

export function networkError(action: string, error: unknown): PlatformSendError {
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const why = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return new PlatformSendError(`the Matrix homeserver could not be reached for ${action}: ${why}`, {
    retryable: true,
  });
}
