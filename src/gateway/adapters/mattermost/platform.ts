/**
 * The Mattermost platform module: settings from the environment and config.yaml, and the token
 * probe `hermes doctor` runs. The server is MATTERMOST_URL (or `platforms.mattermost.extra.url`),
 * the token MATTERMOST_TOKEN (or `platforms.mattermost.token`): a bot account's token or a
 * personal access token. The channel rules come from the `mattermost:` section, each overridden
 * by its variable when that is set (MATTERMOST_REQUIRE_MENTION, MATTERMOST_FREE_RESPONSE_CHANNELS,
 * MATTERMOST_ALLOWED_CHANNELS), as the original reads them.
 */
import {
  type PlatformContext,
  type PlatformModule,
  type ProbeResult,
  platformSetting,
} from "../../platform-catalog.js";
import type { PlatformAdapter } from "../../types.js";
import { envFlag, envList, idSet } from "../env-values.js";
import { serverBaseUrl } from "../server-address.js";
import { MattermostAdapter } from "./adapter.js";
import { MattermostHttpError } from "./errors.js";
import type { MattermostChannelRules } from "./inbound.js";
import { MattermostRest, type MattermostUser } from "./rest.js";

interface Credentials {
  serverUrl: string;
  token: string;
}

/** The server's address without a trailing slash or a pasted API path, or why it is unusable. */
export function serverAddress(raw: string): { url: string } | { problem: string } {
  return serverBaseUrl(raw, {
    noun: "server",
    variable: "MATTERMOST_URL",
    example: "https://mm.example.com",
    credential: "the token",
    stripApiPath: (path) => path.replace(/\/api\/v4$/, ""),
  });
}

function credentials(context: PlatformContext): Credentials | { problem: string; hint: string } {
  const address = serverAddress(platformSetting(context, "mattermost", "MATTERMOST_URL", "url"));
  if ("problem" in address)
    return { problem: address.problem, hint: "the address you open Mattermost at in a browser" };
  const token = platformSetting(context, "mattermost", "MATTERMOST_TOKEN", "token");
  if (!token) {
    return {
      problem: "no token",
      hint: "set MATTERMOST_TOKEN to a bot account's token (Integrations > Bot Accounts) or a personal access token",
    };
  }
  return { serverUrl: address.url, token };
}

export function channelRules(context: PlatformContext): MattermostChannelRules {
  const { env } = context;
  const section = context.config.mattermost;
  const replyMode = platformSetting(context, "mattermost", "MATTERMOST_REPLY_MODE", "reply_mode").toLowerCase();
  if (replyMode && replyMode !== "thread" && replyMode !== "off") {
    throw new Error(`mattermost: MATTERMOST_REPLY_MODE="${replyMode}" is neither thread nor off`);
  }
  return {
    requireMention:
      envFlag("mattermost", "MATTERMOST_REQUIRE_MENTION", env.MATTERMOST_REQUIRE_MENTION) ?? section.require_mention,
    freeResponseChannels: idSet(envList(env.MATTERMOST_FREE_RESPONSE_CHANNELS) ?? section.free_response_channels),
    allowedChannels: idSet(envList(env.MATTERMOST_ALLOWED_CHANNELS) ?? section.allowed_channels),
    replyInThreads: replyMode !== "off",
  };
}

export function createAdapter(context: PlatformContext): PlatformAdapter {
  const found = credentials(context);
  if ("problem" in found) throw new Error(`mattermost: ${found.problem}; ${found.hint}`);
  return new MattermostAdapter({
    ...found,
    home: context.home,
    log: context.log,
    maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    rules: channelRules(context),
  });
}

export async function probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  const found = credentials(context);
  if ("problem" in found) return { ok: false, detail: found.problem, hint: found.hint };
  const rest = new MattermostRest({ ...found, timeoutMs });
  try {
    const me = await rest.get<MattermostUser>("/users/me");
    return { ok: true, detail: `@${me.username ?? me.id} on ${found.serverUrl}` };
  } catch (error) {
    if (error instanceof MattermostHttpError && error.status === 401) {
      return {
        ok: false,
        detail: "Mattermost rejected the token (HTTP 401)",
        hint: "create a new token for the bot account (Integrations > Bot Accounts) and save it as MATTERMOST_TOKEN",
      };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, detail: `GET /users/me failed: ${why}`, hint: "check MATTERMOST_URL and the network" };
  }
}

export const platform: PlatformModule = { createAdapter, probe };
