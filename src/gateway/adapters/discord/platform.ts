/**
 * The Discord platform module: builds the adapter from DISCORD_BOT_TOKEN (or
 * `platforms.discord.token`), DISCORD_API_ROOT (or `platforms.discord.api_root`; the form
 * discord.js's `rest.api` takes, e.g. https://discord.com/api, to which it appends `/v10/...`),
 * DISCORD_ALLOW_BOTS and DISCORD_ALLOWED_ROLES, and the `discord:` section, and probes the token
 * with `GET /users/@me`.
 */
import { DiscordAPIError, REST, Routes } from "discord.js";
import {
  apiRoot,
  type PlatformContext,
  type PlatformModule,
  type ProbeResult,
  platformSetting,
} from "../../platform-catalog.js";
import type { PlatformAdapter } from "../../types.js";
import { accessFrom } from "./access.js";
import { DiscordAdapter } from "./adapter.js";
import { rulesFrom } from "./inbound.js";
import { restOptions } from "./rest-options.js";

function token(context: PlatformContext): string {
  const value = platformSetting(context, "discord", "DISCORD_BOT_TOKEN", "token");
  if (!value) {
    throw new Error(
      "Discord needs a bot token: set DISCORD_BOT_TOKEN (or platforms.discord.token) to the token from the developer portal's Bot page",
    );
  }
  return value;
}

export function createAdapter(context: PlatformContext): PlatformAdapter {
  const root = apiRoot(context, "discord");
  return new DiscordAdapter({
    token: token(context),
    ...(root ? { apiRoot: root } : {}),
    home: context.home,
    rules: rulesFrom(context.config, context.env),
    access: accessFrom(context.env, context.config),
    sessionKeys: {
      groupSessionsPerUser: context.config.group_sessions_per_user,
      threadSessionsPerUser: context.config.thread_sessions_per_user,
    },
    maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    log: context.log,
  });
}

export async function probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  let secret: string;
  try {
    secret = token(context);
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
  const root = apiRoot(context, "discord");
  const rest = new REST(restOptions({ ...(root ? { apiRoot: root } : {}), requestTimeoutMs: timeoutMs })).setToken(
    secret,
  );
  try {
    const me = (await rest.get(Routes.user())) as { id: string; username: string };
    return { ok: true, detail: `${me.username} (${me.id})` };
  } catch (error) {
    if (error instanceof DiscordAPIError && error.status === 401) {
      return {
        ok: false,
        detail: "Discord rejected the bot token (401 Unauthorized)",
        hint: "Copy the token again from the developer portal (your application → Bot → Reset Token) into DISCORD_BOT_TOKEN",
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      detail: `could not reach Discord: ${message}`,
      hint: root ? `check DISCORD_API_ROOT (${root})` : "check this machine's network access to discord.com",
    };
  }
}

export const platform: PlatformModule = { createAdapter, probe };
