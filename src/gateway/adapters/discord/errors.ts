/**
 * discord.js failures as the gateway core understands them. A 4xx other than 429 cannot succeed
 * by trying again; a rate limit the REST client handed back (one longer than it waits for
 * itself) carries Discord's wait; 5xx answers and network failures are worth another attempt.
 */
import { DiscordAPIError, HTTPError, RateLimitError } from "discord.js";
import { PlatformSendError } from "../../types.js";

export function toSendError(error: unknown, action: string): PlatformSendError {
  if (error instanceof PlatformSendError) return error;
  if (error instanceof RateLimitError) {
    const waitMs = Math.max(error.retryAfter, error.timeToReset, 0);
    return new PlatformSendError(`Discord rate-limited ${action}; retry in ${Math.ceil(waitMs / 1000)} s`, {
      retryable: true,
      retryAfterMs: waitMs,
    });
  }
  if (error instanceof DiscordAPIError) {
    const retryable = error.status === 429 || error.status >= 500;
    return new PlatformSendError(`Discord refused ${action}: ${error.status} ${error.message} (code ${error.code})`, {
      retryable,
    });
  }
  if (error instanceof HTTPError) {
    return new PlatformSendError(`Discord failed ${action}: HTTP ${error.status}`, { retryable: error.status >= 500 });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PlatformSendError(`${action} did not reach Discord: ${message}`, { retryable: true });
}

/** Whether Discord said the thing is already gone (unknown message or channel). */
export function isUnknownResource(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.status === 404;
}
