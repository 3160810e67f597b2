/**
 * The Telegram platform module: builds the adapter from TELEGRAM_BOT_TOKEN (or
 * `platforms.telegram.token`) and proves a token works with `getMe`.
 */
import { randomBytes } from "node:crypto";
import { Api } from "grammy";
import {
  apiRoot,
  type PlatformContext,
  type PlatformModule,
  type ProbeResult,
  platformSetting,
} from "../../platform-catalog.js";
import { platformConfig } from "../../settings.js";
import { TELEGRAM_API_ROOT, TelegramAdapter, type TelegramAdapterOptions } from "./adapter.js";
import { describeError, isGrammyError } from "./errors.js";
import type { RichSettings } from "./rich.js";

const TOKEN_HINT = "check TELEGRAM_BOT_TOKEN (or platforms.telegram.token): copy the token @BotFather gave you";

function tokenOf(context: PlatformContext): string {
  return platformSetting(context, "telegram", "TELEGRAM_BOT_TOKEN", "token");
}

function pollTimeout(context: PlatformContext): number | undefined {
  const raw = platformSetting(context, "telegram", "TELEGRAM_POLL_TIMEOUT", "poll_timeout");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 50) {
    throw new Error(`telegram poll_timeout "${raw}" must be a whole number of seconds from 0 to 50`);
  }
  return seconds;
}

/** Webhook mode, when `webhook_url` is set: where to listen and the secret Telegram must send. */
function webhookSettings(context: PlatformContext): TelegramAdapterOptions["webhook"] {
  const setting = (env: string, key: string) => platformSetting(context, "telegram", env, key);
  const url = setting("TELEGRAM_WEBHOOK_URL", "webhook_url");
  if (!url) return undefined;
  if (!URL.canParse(url)) throw new Error(`telegram webhook_url "${url}" is not a URL`);
  const port = Number(setting("TELEGRAM_WEBHOOK_PORT", "webhook_port") || 8443);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`telegram webhook_port "${setting("TELEGRAM_WEBHOOK_PORT", "webhook_port")}" is not a port number`);
  }
  const secret = setting("TELEGRAM_WEBHOOK_SECRET", "webhook_secret") || randomBytes(32).toString("hex");
  if (!/^[\w-]{1,256}$/.test(secret)) {
    throw new Error("telegram webhook_secret may hold only letters, digits, _ and - (at most 256)");
  }
  return { url, port, host: setting("TELEGRAM_WEBHOOK_HOST", "webhook_host") || "127.0.0.1", secret };
}

/** A yes/no `extra` key: `platforms.telegram.extra.<key>` first, then the top-level `telegram.extra.<key>`. */
function extraFlag(context: PlatformContext, key: "rich_messages" | "rich_drafts"): boolean {
  const extra = (platformConfig(context.config, "telegram")?.extra ?? {}) as Record<string, unknown>;
  const value = extra[key] ?? context.config.telegram.extra[key];
  if (typeof value === "boolean") return value;
  const word = String(value).trim().toLowerCase();
  if (/^(true|yes|on|1)$/.test(word)) return true;
  if (/^(false|no|off|0)$/.test(word)) return false;
  throw new Error(`platforms.telegram.extra.${key} is "${String(value)}"; set it to true or false`);
}

function richSettings(context: PlatformContext): RichSettings {
  return { messages: extraFlag(context, "rich_messages"), drafts: extraFlag(context, "rich_drafts") };
}

export function createTelegramAdapter(context: PlatformContext): TelegramAdapter {
  const token = tokenOf(context);
  if (!token) throw new Error(`telegram is enabled but has no bot token; ${TOKEN_HINT}`);
  if (!/^\d+:[\w-]+$/.test(token))
    throw new Error(`the telegram bot token is not in the form <id>:<secret>; ${TOKEN_HINT}`);
  const timeout = pollTimeout(context);
  const webhook = webhookSettings(context);
  return new TelegramAdapter({
    token,
    apiRoot: apiRoot(context, "telegram") ?? TELEGRAM_API_ROOT,
    home: context.home,
    log: context.log,
    allowedChats: context.config.telegram.allowed_chats,
    maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    rich: richSettings(context),
    ...(timeout !== undefined ? { pollTimeoutSeconds: timeout } : {}),
    ...(webhook ? { webhook } : {}),
  });
}

async function probeTelegram(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  const token = tokenOf(context);
  if (!token) return { ok: false, detail: "no bot token", hint: TOKEN_HINT };
  const api = new Api(token, { apiRoot: apiRoot(context, "telegram") ?? TELEGRAM_API_ROOT });
  try {
    const me = await api.getMe(AbortSignal.timeout(timeoutMs) as unknown as Parameters<Api["getMe"]>[0]);
    return { ok: true, detail: `@${me.username} (${me.id})` };
  } catch (error) {
    if (isGrammyError(error, 401) || isGrammyError(error, 404)) {
      return { ok: false, detail: "Telegram refused the bot token", hint: TOKEN_HINT };
    }
    return {
      ok: false,
      detail: `could not reach the Bot API: ${describeError(error, token)}`,
      hint: "check the network (or TELEGRAM_API_ROOT / platforms.telegram.api_root)",
    };
  }
}

export const platform: PlatformModule = {
  createAdapter: createTelegramAdapter,
  probe: probeTelegram,
};
export const { createAdapter, probe } = platform;
