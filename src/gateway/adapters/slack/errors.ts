/**
 * Slack Web API failures as the gateway core understands them. The WebClient is built not to
 * retry on its own, so every failure reaches here once and the core's delivery ledger decides.
 */
import { ErrorCode } from "@slack/web-api";
import { PlatformSendError } from "../../types.js";

/** Platform errors a retry can fix; every other `ok: false` answer will fail the same way again. */
const TRANSIENT_PLATFORM_ERRORS = new Set([
  "ratelimited",
  "internal_error",
  "fatal_error",
  "service_unavailable",
  "request_timeout",
  "team_added_to_org",
]);

const HINTS: Record<string, string> = {
  invalid_auth: "the bot token was rejected; check SLACK_BOT_TOKEN",
  not_authed: "no bot token was sent; set SLACK_BOT_TOKEN",
  token_revoked: "the bot token was revoked; reinstall the app and update SLACK_BOT_TOKEN",
  account_inactive: "the bot's account is deactivated; reinstall the app",
  channel_not_found: "the channel does not exist or the app cannot see it",
  not_in_channel: "invite the app to the channel (/invite @app) first",
  is_archived: "the channel is archived",
  missing_scope: "the app lacks a scope this needs; add it under OAuth & Permissions and reinstall",
  msg_too_long: "the message is longer than Slack accepts",
  message_not_found: "the message to change is gone",
  cant_update_message: "only the app's own messages can be edited",
};

interface SlackErrorLike {
  code?: string;
  message?: string;
  data?: { error?: string; needed?: string };
  retryAfter?: number;
  statusCode?: number;
  original?: Error;
}

/** The platform's error code (`channel_not_found`), when the failure carried one. */
export function slackErrorCode(error: unknown): string | undefined {
  const coded = error as SlackErrorLike | undefined;
  return coded?.code === ErrorCode.PlatformError ? coded.data?.error : undefined;
}

export function toSendError(action: string, error: unknown): PlatformSendError {
  if (error instanceof PlatformSendError) return error;
  const coded = (error ?? {}) as SlackErrorLike;
  switch (coded.code) {
    case ErrorCode.RateLimitedError: {
      const seconds = Math.max(0, Number(coded.retryAfter ?? 1));
      return new PlatformSendError(`Slack rate-limited ${action}; retry after ${seconds} s`, {
        retryable: true,
        retryAfterMs: seconds * 1000,
      });
    }
    case ErrorCode.PlatformError: {
      const code = coded.data?.error ?? "unknown_error";
      const needed = coded.data?.needed ? ` (needs ${coded.data.needed})` : "";
      const hint = HINTS[code] ? `: ${HINTS[code]}` : "";
      return new PlatformSendError(`Slack refused ${action}: ${code}${needed}${hint}`, {
        retryable: TRANSIENT_PLATFORM_ERRORS.has(code),
      });
    }
    case ErrorCode.HTTPError: {
      const status = Number(coded.statusCode ?? 0);
      return new PlatformSendError(`Slack answered ${action} with HTTP ${status}`, {
        retryable: status >= 500 || status === 408,
      });
    }
    case ErrorCode.RequestError:
      return new PlatformSendError(
        `Slack could not be reached for ${action}: ${coded.original?.message ?? coded.message ?? "network error"}`,
        { retryable: true },
      );
    default:
      // A 429 without a usable Retry-After comes back as a plain error from the client.
      if (/Retry header did not contain a valid timeout/.test(coded.message ?? "")) {
        return new PlatformSendError(`Slack rate-limited ${action} without saying for how long`, { retryable: true });
      }
      return new PlatformSendError(
        `${action} failed: ${error instanceof Error ? error.message : String(error)}`,
        // An error that is not Slack's (a file that cannot be read) will not fix itself.
        { retryable: false },
      );
  }
}
