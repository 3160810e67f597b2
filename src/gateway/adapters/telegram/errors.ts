/** How Bot API failures map onto what the gateway core can act on. */
import { GrammyError, HttpError } from "grammy";
import { PlatformSendError } from "../../types.js";

export function isGrammyError(error: unknown, code?: number): error is GrammyError {
  return error instanceof GrammyError && (code === undefined || error.error_code === code);
}

/** Telegram's answer when MarkdownV2 entities do not parse. */
export function isParseError(error: unknown): boolean {
  return isGrammyError(error, 400) && /can't parse entities|can't find end of/i.test(error.description);
}

export function isNotModified(error: unknown): boolean {
  return isGrammyError(error, 400) && /message is not modified/i.test(error.description);
}

/**
 * A failed call as a PlatformSendError: a 429 waits what Telegram asks, 5xx and network failures
 * can pass, any other 4xx will fail again the same way.
 */
/** The Bot API did not answer (a network failure): the call may or may not have taken effect. */
export function isUnanswered(error: unknown): boolean {
  return error instanceof HttpError;
}

export function toSendError(error: unknown, action: string): PlatformSendError {
  if (error instanceof PlatformSendError) return error;
  if (error instanceof GrammyError) {
    const detail = `telegram ${action} failed (${error.error_code}: ${error.description})`;
    if (error.error_code === 429) {
      const seconds = Number(error.parameters.retry_after ?? 1);
      return new PlatformSendError(detail, { retryable: true, retryAfterMs: Math.max(0, seconds) * 1000 });
    }
    return new PlatformSendError(detail, { retryable: error.error_code >= 500 });
  }
  if (error instanceof HttpError) {
    return new PlatformSendError(`telegram ${action} failed: the Bot API could not be reached (${error.message})`, {
      retryable: true,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new PlatformSendError(`telegram ${action} failed: ${message}`, { retryable: false });
}

/** A short description of an error that never contains the bot token. */
export function describeError(error: unknown, token: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return token ? message.replaceAll(token, "<token>") : message;
}
