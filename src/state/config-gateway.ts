/**
 * The messaging gateway's part of config.yaml: `gateway.*` (with the API server's
 * `gateway.api_server.*`), `platforms.<name>` and the per-platform sections `telegram`,
 * `discord`, `slack` and `mattermost`.
 */
import { z } from "../util/schema/index.js";
import {
  accepts,
  bool,
  idList,
  integerAtLeast,
  integerBetween,
  numberBetween,
  oneOf,
  section,
  stringMap,
  text,
} from "./config-fields.js";

/**
 * `gateway.api_server.*` mirrors the API_SERVER_* environment variables (the environment wins).
 * `max_body_bytes` is our addition.
 */
const apiServerSection = section({
  enabled: bool(false),
  host: text("127.0.0.1"),
  port: integerBetween(0, 65_535, 8642),
  key: text(""),
  /** Comma-separated origins allowed to call the server from a browser ("" = none, "*" = any). */
  cors_origins: text(""),
  model_name: text("hermes-agent"),
  max_concurrent_runs: integerAtLeast(1, 10),
  max_body_bytes: integerAtLeast(1024, 4 * 1024 * 1024),
});

/** `platforms.<name>`: one messaging platform (the original's keys; `api_root` is our addition). */
const platformSection = z.looseObject(
  {
    enabled: bool(false),
    token: text(""),
    api_key: text(""),
    home_channel: text(""),
    reply_to_mode: oneOf(["off", "first", "all"]).default("first"),
    typing_indicator: bool(true),
    gateway_restart_notification: bool(true),
    /** A local or self-hosted API root for the platform's SDK (tests, proxies). */
    api_root: text(""),
    extra: z.record(z.string(), z.unknown(), accepts("a mapping of settings")).default({}),
  },
  accepts("a mapping of platform settings"),
);

/** The original's top-level `telegram:` section. */
export const telegramSection = section({
  /** React to a message while working on it. */
  reactions: bool(false),
  /** Group chats the bot answers in (empty: any the allowlists admit). */
  allowed_chats: idList(),
  /** An extra system-prompt line per chat id. */
  channel_prompts: stringMap(),
  /** Bot API 10.1 rich messages for replies MarkdownV2 renders badly; rich drafts for their previews. */
  extra: section({ rich_messages: bool(false), rich_drafts: bool(false) }),
});

/** A Discord server id (digits; quoted in YAML, as it is too long for a number), or "" for none. */
function discordServerId() {
  const message = accepts('a Discord server id in quotes (digits, e.g. "123456789012345678"), or "" for none');
  return z
    .preprocess(
      (value) => (typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value),
      z.string(message).refine((value) => value === "" || /^\d{1,20}$/.test(value), message),
    )
    .default("");
}

/** The original's top-level `discord:` section. */
export const discordSection = section({
  /** In guild channels, answer only messages that mention the bot. */
  require_mention: bool(true),
  /** Channels where the bot answers without a mention. */
  free_response_channels: idList(),
  /** Channels the bot answers in at all (empty: every channel it can read). */
  allowed_channels: idList(),
  /** Open a thread for the conversation a channel mention starts. */
  auto_thread: bool(true),
  /** Inside threads, answer only messages that mention the bot. */
  thread_require_mention: bool(false),
  /** React with 👀 while working and ✅ when done. */
  reactions: bool(true),
  channel_prompts: stringMap(),
  allow_any_attachment: bool(false),
  max_attachment_bytes: integerAtLeast(0, 33_554_432),
  /** A message reaching the agent in a server channel brings the chat before it (since the bot last spoke). */
  history_backfill: bool(true),
  /** At most this many earlier messages are read (in pages of 100). */
  history_backfill_limit: integerBetween(0, 500, 50),
  /** Another bot addresses this one only with an inline `<@id>` mention, not a reply ping. */
  bots_require_inline_mention: bool(false),
  /** A DM from someone on no allowlist is answered if they hold a DISCORD_ALLOWED_ROLES role on this server. */
  dm_role_auth_guild: discordServerId(),
});

/** The original's top-level `slack:` section. */
export const slackSection = section({
  /** In channels, answer only messages that mention the app. */
  require_mention: bool(true),
  free_response_channels: idList(),
  allowed_channels: idList(),
  channel_prompts: stringMap(),
});

/** The original's top-level `mattermost:` section (MATTERMOST_* variables override it). */
export const mattermostSection = section({
  /** In channels, answer only posts that mention the bot. */
  require_mention: bool(true),
  free_response_channels: idList(),
  allowed_channels: idList(),
  channel_prompts: stringMap(),
});

export const platformsMap = () =>
  z.record(z.string(), platformSection, accepts("a mapping of platform names to settings")).default({});

export const gatewaySection = section({
  api_server: apiServerSection,
  /** The same as top-level `platforms` (the original reads both). */
  platforms: platformsMap(),
  /** Our addition: agent runs at once across every chat (each chat runs one at a time). */
  max_concurrent_runs: integerAtLeast(1, 10),
  /** Our addition: messages a busy chat may queue (busy_input_mode queue); later ones are summarised. */
  queue_limit: integerAtLeast(1, 10),
  /** Each chat message reaches the model with the time it was sent. */
  message_timestamps: section({ enabled: bool(false) }),
  /** Our addition: a message whose run crashed the process this many times is set aside. */
  max_inbound_attempts: integerAtLeast(1, 2),
  /** Bytes: a ceiling on files chat users send, on top of each platform's own limit (0 = no ceiling). */
  max_inbound_media_bytes: integerAtLeast(0, 134_217_728),
  /** Replies may send only files under the media cache, media_delivery_allow_dirs and (if trusted) recent files. */
  strict: bool(false),
  /** Folders a strict gateway may send files from (a list, or one string of paths separated by ":"). */
  media_delivery_allow_dirs: z
    .preprocess(
      (value) =>
        typeof value === "string"
          ? value
              .split(":")
              .map((dir) => dir.trim())
              .filter(Boolean)
          : value,
      z.array(z.string(), accepts("a list of folders, or one string of folders separated by ':'")),
    )
    .default([]),
  /** In strict mode, a file changed within trust_recent_files_seconds may be sent too. */
  trust_recent_files: bool(true),
  trust_recent_files_seconds: integerAtLeast(0, 600),
  /** Seconds a platform may take to connect; past it the attempt counts as failed and is retried. */
  platform_connect_timeout: numberBetween(0.1, 3600, 30),
  /** A gateway started this many times within the window refuses to start again (a crash loop). */
  restart_loop_guard: section({
    max_restarts: integerAtLeast(1, 3),
    window_seconds: integerAtLeast(1, 60),
  }),
  /** Overrides `display.busy_input_mode` for the gateway ("" = follow it). */
  busy_input_mode: oneOf(["", "interrupt", "queue", "steer"]).default(""),
  /** Agents kept in memory by a long-lived process (our addition); transcripts reload from the store. */
  agent_cache: section({
    max_agents: integerAtLeast(1, 64),
    idle_timeout_minutes: integerAtLeast(0, 30),
  }),
});
