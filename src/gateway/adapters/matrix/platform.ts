/**
 * The Matrix platform module: settings from the environment and config.yaml, and the token probe
 * `hermes doctor` runs. The homeserver is MATRIX_HOMESERVER (or `platforms.matrix.extra.homeserver`),
 * the token MATRIX_ACCESS_TOKEN (or `platforms.matrix.token`): an access token of the bot's
 * account; without one, MATRIX_USER_ID and MATRIX_PASSWORD log in (see login.ts). The room rules come from the `matrix:` section, each overridden by its variable when
 * that is set (MATRIX_REQUIRE_MENTION, MATRIX_FREE_RESPONSE_ROOMS, MATRIX_ALLOWED_ROOMS);
 * MATRIX_AUTO_THREAD=false answers room mentions in the room instead of a thread.
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
import { MatrixAdapter } from "./adapter.js";
import { MatrixHttpError } from "./errors.js";
import type { MatrixRoomRules } from "./inbound.js";
import { logIn, type PasswordLogin, PasswordRefused } from "./login.js";
import { CLIENT_V3, MatrixRest } from "./rest.js";

type Credentials = { homeserver: string } & ({ token: string } | { login: PasswordLogin });

/** The server's address without a trailing slash or a pasted API path, or why it is unusable. */
export function homeserverAddress(raw: string): { url: string } | { problem: string } {
  return serverBaseUrl(raw, {
    noun: "homeserver",
    variable: "MATRIX_HOMESERVER",
    example: "https://matrix.example.org",
    credential: "the access token",
    stripApiPath: (path) => path.replace(/\/_matrix(\/.*)?$/, ""),
  });
}

function credentials(context: PlatformContext): Credentials | { problem: string; hint: string } {
  const address = homeserverAddress(platformSetting(context, "matrix", "MATRIX_HOMESERVER", "homeserver"));
  if ("problem" in address) {
    return {
      problem: address.problem,
      hint: "the homeserver your Matrix account lives on (not the Element web app's address)",
    };
  }
  const token = platformSetting(context, "matrix", "MATRIX_ACCESS_TOKEN", "token");
  if (token) return { homeserver: address.url, token };
  const userId = context.env.MATRIX_USER_ID?.trim();
  const password = context.env.MATRIX_PASSWORD ?? "";
  if (userId && password) return { homeserver: address.url, login: { userId, password } };
  return {
    problem: password ? "MATRIX_PASSWORD is set without MATRIX_USER_ID" : "no access token",
    hint: password
      ? "set MATRIX_USER_ID to the bot's user id (@bot:example.org) for password login"
      : "set MATRIX_ACCESS_TOKEN (Element: Settings > Help & About > Access Token), or MATRIX_USER_ID and MATRIX_PASSWORD",
  };
}

export function roomRules(context: PlatformContext): MatrixRoomRules {
  const { env } = context;
  const section = context.config.matrix;
  return {
    requireMention: envFlag("matrix", "MATRIX_REQUIRE_MENTION", env.MATRIX_REQUIRE_MENTION) ?? section.require_mention,
    freeResponseRooms: idSet(envList(env.MATRIX_FREE_RESPONSE_ROOMS) ?? section.free_response_rooms),
    allowedRooms: idSet(envList(env.MATRIX_ALLOWED_ROOMS) ?? section.allowed_rooms),
    replyInThreads: replyInThreads(env),
    dmThreads: envFlag("matrix", "MATRIX_DM_AUTO_THREAD", env.MATRIX_DM_AUTO_THREAD) ?? false,
    dmMentionThreads: envFlag("matrix", "MATRIX_DM_MENTION_THREADS", env.MATRIX_DM_MENTION_THREADS) ?? false,
    ignoreUsers: ignorePatterns(env.MATRIX_IGNORE_USER_PATTERNS),
    processNotices: envFlag("matrix", "MATRIX_PROCESS_NOTICES", env.MATRIX_PROCESS_NOTICES) ?? false,
  };
}

/**
 * Whether a room mention is answered in a thread under it: MATRIX_SESSION_SCOPE `room` keeps the
 * room one conversation, `thread` threads every one, `auto` (the default) leaves it to
 * MATRIX_AUTO_THREAD (default true).
 */
function replyInThreads(env: PlatformContext["env"]): boolean {
  const scope = env.MATRIX_SESSION_SCOPE?.trim().toLowerCase() || "auto";
  if (scope === "room") return false;
  if (scope === "thread") return true;
  if (scope !== "auto") {
    throw new Error(`MATRIX_SESSION_SCOPE must be auto, room or thread, not "${env.MATRIX_SESSION_SCOPE}"`);
  }
  return envFlag("matrix", "MATRIX_AUTO_THREAD", env.MATRIX_AUTO_THREAD) ?? true;
}

/** MATRIX_IGNORE_USER_PATTERNS: comma-separated regular expressions over user ids; a bad one stops the start. */
function ignorePatterns(raw: string | undefined): RegExp[] {
  const sources = (envList(raw) ?? []).map((item) => item.trim()).filter(Boolean);
  return sources.map((source) => {
    try {
      return new RegExp(source);
    } catch (error) {
      throw new Error(
        `MATRIX_IGNORE_USER_PATTERNS: "${source}" is not a regular expression (${(error as Error).message}); write e.g. ^@telegram_`,
      );
    }
  });
}

export function createAdapter(context: PlatformContext): PlatformAdapter {
  const found = credentials(context);
  if ("problem" in found) throw new Error(`matrix: ${found.problem}; ${found.hint}`);
  return new MatrixAdapter({
    ...found,
    home: context.home,
    log: context.log,
    maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    ...mediaLimit(context.env.MATRIX_MAX_MEDIA_BYTES),
    rules: roomRules(context),
    allowRoomMentions: envFlag("matrix", "MATRIX_ALLOW_ROOM_MENTIONS", context.env.MATRIX_ALLOW_ROOM_MENTIONS) ?? false,
    reactions: envFlag("matrix", "MATRIX_REACTIONS", context.env.MATRIX_REACTIONS) ?? true,
  });
}

export async function probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  const found = credentials(context);
  if ("problem" in found) return { ok: false, detail: found.problem, hint: found.hint };
  const rest = new MatrixRest({ homeserver: found.homeserver, token: "token" in found ? found.token : "", timeoutMs });
  try {
    if ("login" in found) {
      // A probe must not add a session to the account: it logs in and out again.
      rest.setToken((await logIn(rest, found.login)).accessToken);
      const me = await rest.get<{ user_id?: string }>(`${CLIENT_V3}/account/whoami`);
      await rest.post(`${CLIENT_V3}/logout`, {}).catch(() => undefined);
      return { ok: true, detail: `${me.user_id ?? found.login.userId} on ${found.homeserver} (password login)` };
    }
    const me = await rest.get<{ user_id?: string }>(`${CLIENT_V3}/account/whoami`);
    return { ok: true, detail: `${me.user_id ?? "(no user id)"} on ${found.homeserver}` };
  } catch (error) {
    if (error instanceof PasswordRefused) {
      return { ok: false, detail: error.message, hint: "check MATRIX_USER_ID and MATRIX_PASSWORD" };
    }
    if (error instanceof MatrixHttpError && error.status === 401) {
      return {
        ok: false,
        detail: `the homeserver rejected the access token (HTTP 401 ${error.errcode ?? ""})`.trim(),
        hint: "log in as the bot again and save the new access token as MATRIX_ACCESS_TOKEN",
      };
    }
    const why = error instanceof Error ? error.message : String(error);
    return { ok: false, detail: `GET /account/whoami failed: ${why}`, hint: "check MATRIX_HOMESERVER and the network" };
  }
}

export const platform: PlatformModule = { createAdapter, probe };

/** MATRIX_MAX_MEDIA_BYTES: larger files users send are named to the agent but not downloaded. */
function mediaLimit(raw: string | undefined): { maxMediaBytes?: number } {
  const text = raw?.trim();
  if (!text) return {};
  const bytes = Number(text);
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new Error(`MATRIX_MAX_MEDIA_BYTES must be a whole number of bytes above 0, not "${raw}"`);
  }
  return { maxMediaBytes: bytes };
}
