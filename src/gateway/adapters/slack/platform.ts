/**
 * The Slack platform module: settings from the environment and config.yaml, and the token probe
 * `hermes doctor` runs. Tokens: SLACK_BOT_TOKEN (xoxb-, or `platforms.slack.token`) and
 * SLACK_APP_TOKEN (xapp-, or `platforms.slack.extra.app_token`).
 */
import { WebClient } from "@slack/web-api";
import {
  apiRoot,
  type PlatformContext,
  type PlatformModule,
  type ProbeResult,
  platformSetting,
} from "../../platform-catalog.js";
import type { PlatformAdapter } from "../../types.js";
import { envFlag, envList, idSet } from "../env-values.js";
import { SlackAdapter } from "./adapter.js";
import { slackErrorCode } from "./errors.js";
import { sdkLogger } from "./socket.js";

interface SlackTokens {
  botToken: string;
  appToken: string;
}

function tokens(context: PlatformContext): SlackTokens {
  return {
    botToken: platformSetting(context, "slack", "SLACK_BOT_TOKEN", "token"),
    appToken: platformSetting(context, "slack", "SLACK_APP_TOKEN", "app_token"),
  };
}

/** What is wrong with the tokens' shape, or undefined when both look right. */
function tokenProblem({ botToken, appToken }: SlackTokens): { detail: string; hint: string } | undefined {
  if (!botToken) return { detail: "no bot token", hint: "set SLACK_BOT_TOKEN to the app's xoxb- token" };
  if (!botToken.startsWith("xoxb-")) {
    return {
      detail: "the bot token does not start with xoxb-",
      hint: "use the Bot User OAuth Token from OAuth & Permissions, not a user or app-level token",
    };
  }
  if (!appToken) {
    return {
      detail: "no app-level token",
      hint: "set SLACK_APP_TOKEN to an xapp- token with connections:write (Basic Information > App-Level Tokens)",
    };
  }
  if (!appToken.startsWith("xapp-")) {
    return {
      detail: "the app-level token does not start with xapp-",
      hint: "generate an app-level token with connections:write under Basic Information > App-Level Tokens",
    };
  }
  return undefined;
}

function apiUrl(context: PlatformContext): string | undefined {
  const root = apiRoot(context, "slack");
  return root ? `${root}/` : undefined;
}

export function createAdapter(context: PlatformContext): PlatformAdapter {
  const found = tokens(context);
  const problem = tokenProblem(found);
  if (problem) throw new Error(`slack: ${problem.detail}; ${problem.hint}`);
  const slack = context.config.slack;
  const url = apiUrl(context);
  return new SlackAdapter({
    ...found,
    ...(url ? { apiUrl: url } : {}),
    home: context.home,
    log: context.log,
    maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    // SLACK_* variables win over config.yaml, as each platform's do.
    rules: {
      requireMention:
        envFlag("slack", "SLACK_REQUIRE_MENTION", context.env.SLACK_REQUIRE_MENTION) ?? slack.require_mention,
      freeResponseChannels: idSet(envList(context.env.SLACK_FREE_RESPONSE_CHANNELS) ?? slack.free_response_channels),
      allowedChannels: idSet(envList(context.env.SLACK_ALLOWED_CHANNELS) ?? slack.allowed_channels),
    },
  });
}

export async function probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  const found = tokens(context);
  const problem = tokenProblem(found);
  if (problem) return { ok: false, ...problem };
  const url = apiUrl(context);
  const client = new WebClient(found.botToken, {
    ...(url ? { slackApiUrl: url } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: timeoutMs,
    logger: sdkLogger(context.log),
  });
  try {
    const result = await client.auth.test();
    return {
      ok: true,
      detail: `${result.user ?? result.user_id ?? "the bot"} in ${result.team ?? result.team_id ?? "its workspace"}`,
    };
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === "invalid_auth" || code === "not_authed" || code === "token_revoked" || code === "account_inactive") {
      return {
        ok: false,
        detail: `Slack rejected the bot token (${code})`,
        hint: "copy the Bot User OAuth Token (xoxb-) again from OAuth & Permissions, or reinstall the app",
      };
    }
    const why = code ?? (error instanceof Error ? error.message : String(error));
    return { ok: false, detail: `auth.test failed: ${why}`, hint: "check the network and SLACK_API_ROOT, if set" };
  }
}

export const platform: PlatformModule = { createAdapter, probe };
