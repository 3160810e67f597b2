/**
 * The gateway's settings from config.yaml and the environment, resolved once at start-up:
 * which platforms are on, who may talk to the agent on each, and how chats behave.
 */
import type { HermesConfig } from "../state/config-schema.js";
import { validateToolset } from "../tools/toolsets.js";
import type { ResetPolicy } from "./reset-policy.js";
import type { SessionKeyOptions } from "./session-key.js";

export type BusyInputMode = "interrupt" | "queue" | "steer";
export type ToolProgressMode = "off" | "new" | "all" | "verbose";
/** How previews stream (`streaming.transport`; "off" turns streaming off instead). */
export type StreamTransport = "auto" | "draft" | "edit";

export interface PlatformAccess {
  /** `<PLATFORM>_ALLOW_ALL_USERS=true`: anyone on this platform. */
  allowAll: boolean;
  /** `<PLATFORM>_ALLOWED_USERS`: user ids (and user names) allowed on this platform. */
  allowedUsers: Set<string>;
  /** `<PLATFORM>_GROUP_ALLOWED_CHATS`: group chats whose every member may talk. */
  allowedGroups: Set<string>;
}

export interface PlatformDisplay {
  streaming: boolean;
  toolProgress: ToolProgressMode;
  editIntervalMs: number;
  /** Characters of a reply before its first preview (`streaming.buffer_threshold`). */
  previewAfterChars: number;
  /** A preview older than this is replaced by a fresh message, not edited (`streaming.fresh_final_after_seconds`; 0 = never). */
  freshFinalAfterMs: number;
  /** Appended to a growing preview (`streaming.cursor`). */
  cursor: string;
  transport: StreamTransport;
}

export interface PlatformDelivery {
  /** Which parts of a reply quote the message they answer: none, the first, or every part. */
  replyToMode: "off" | "first" | "all";
  /** Show typing while the agent works. */
  typingIndicator: boolean;
  /** Tell a chat whose turn a restart cut short that it was stopped. */
  restartNotification: boolean;
}

const REPLY_TO_MODES = ["off", "first", "all"] as const;

/** The pause before each further part of a reply, drawn between these (`human_delay`). */
export interface HumanDelay {
  minMs: number;
  maxMs: number;
}

/** The range `natural` draws from (the original's defaults). */
const NATURAL_DELAY: HumanDelay = { minMs: 800, maxMs: 2500 };

export interface GatewaySettings {
  keys: SessionKeyOptions;
  reset: ResetPolicy;
  unauthorizedDm: "pair" | "ignore";
  busyMode: BusyInputMode;
  queueLimit: number;
  maxConcurrentRuns: number;
  maxInboundAttempts: number;
  /** `gateway.platform_connect_timeout` in milliseconds. */
  connectTimeoutMs: number;
  /** `GATEWAY_ALLOW_ALL_USERS=true`: anyone on any platform (after the other checks). */
  allowAllUsers: boolean;
  /** `GATEWAY_ALLOWED_USERS`: user ids allowed on every platform. */
  allowedUsers: Set<string>;
  access(platform: string): PlatformAccess;
  display(platform: string): PlatformDisplay;
  /** How replies go out on a platform (`platforms.<name>.*`, its `<PLATFORM>_REPLY_TO_MODE`). */
  delivery(platform: string): PlatformDelivery;
  /** The toolsets agents on this platform get. */
  toolsets(platform: string): string[];
  /** null: the parts of a reply follow each other at once. */
  humanDelay: HumanDelay | null;
}

type Env = Record<string, string | undefined>;

const truthy = (value: string | undefined) => /^(1|true|yes|on)$/i.test((value ?? "").trim());

function idList(value: string | undefined): Set<string> {
  return new Set(
    (value ?? "")
      .split(/[,\s]+/)
      .map((id) => id.trim())
      .filter(Boolean),
  );
}

/** Platforms that stream by editing unless told otherwise (the original's defaults). */
const STREAMING_BY_DEFAULT: Record<string, boolean> = { telegram: true, discord: false, test: true };
/** Where every progress line would be a message of its own (a mail), tools are not shown by default. */
const TOOL_PROGRESS_BY_DEFAULT: Record<string, ToolProgressMode> = { email: "off" };
/** Platforms whose user ids are case-insensitive (mail addresses). */
const CASELESS_IDS = new Set(["email"]);

/** Refuses a `<PLATFORM>_REPLY_TO_MODE` (or MATTERMOST_REPLY_MODE) that is not off, first or all. */
function checkReplyModeVariables(env: Env): void {
  for (const [name, value] of Object.entries(env)) {
    if (!name.endsWith("_REPLY_TO_MODE") && name !== "MATTERMOST_REPLY_MODE") continue;
    const mode = value?.trim().toLowerCase();
    if (mode && !REPLY_TO_MODES.some((known) => known === mode)) {
      throw new Error(`${name}="${value}" is not one of ${REPLY_TO_MODES.join(", ")}`);
    }
  }
}

export function resolveGatewaySettings(config: HermesConfig, env: Env = process.env): GatewaySettings {
  checkReplyModeVariables(env);
  const busy = config.gateway.busy_input_mode || config.display.busy_input_mode;
  const accessCache = new Map<string, PlatformAccess>();
  return {
    keys: {
      groupSessionsPerUser: config.group_sessions_per_user,
      threadSessionsPerUser: config.thread_sessions_per_user,
    },
    reset: {
      mode: config.session_reset.mode,
      atHour: config.session_reset.at_hour,
      idleMinutes: config.session_reset.idle_minutes,
    },
    unauthorizedDm: config.unauthorized_dm_behavior,
    busyMode: busy,
    queueLimit: config.gateway.queue_limit,
    maxConcurrentRuns: config.gateway.max_concurrent_runs,
    maxInboundAttempts: config.gateway.max_inbound_attempts,
    connectTimeoutMs: Math.round(config.gateway.platform_connect_timeout * 1000),
    allowAllUsers: truthy(env.GATEWAY_ALLOW_ALL_USERS),
    allowedUsers: idList(env.GATEWAY_ALLOWED_USERS),
    access(platform) {
      const cached = accessCache.get(platform);
      if (cached) return cached;
      const prefix = platform.toUpperCase().replaceAll(/[^A-Z0-9]/g, "_");
      const users = idList(env[`${prefix}_ALLOWED_USERS`]);
      const access: PlatformAccess = {
        allowAll: truthy(env[`${prefix}_ALLOW_ALL_USERS`]),
        allowedUsers: CASELESS_IDS.has(platform) ? new Set([...users].map((id) => id.toLowerCase())) : users,
        allowedGroups: idList(env[`${prefix}_GROUP_ALLOWED_CHATS`]),
      };
      accessCache.set(platform, access);
      return access;
    },
    display(platform) {
      const own = config.display.platforms[platform];
      const { transport } = config.streaming;
      return {
        streaming:
          transport !== "off" &&
          (own?.streaming ?? STREAMING_BY_DEFAULT[platform] ?? config.streaming.enabled ?? config.display.streaming),
        toolProgress:
          own?.tool_progress ??
          config.display.tool_progress_overrides[platform] ??
          TOOL_PROGRESS_BY_DEFAULT[platform] ??
          config.display.tool_progress,
        editIntervalMs: Math.round((own?.edit_interval ?? config.streaming.edit_interval ?? 1) * 1000),
        previewAfterChars: config.streaming.buffer_threshold,
        freshFinalAfterMs: Math.round(config.streaming.fresh_final_after_seconds * 1000),
        cursor: config.streaming.cursor,
        transport: transport === "off" ? "edit" : transport,
      };
    },
    delivery(platform) {
      const own = platformConfig(config, platform);
      const prefix = platform.toUpperCase().replaceAll(/[^A-Z0-9]/g, "_");
      // Mattermost's variable has always been MATTERMOST_REPLY_MODE.
      const fromEnv = (env[`${prefix}_REPLY_TO_MODE`] ?? env[`${prefix}_REPLY_MODE`])?.trim().toLowerCase();
      const replyToMode = REPLY_TO_MODES.find((mode) => mode === fromEnv) ?? own?.reply_to_mode ?? "first";
      return {
        replyToMode,
        typingIndicator: own?.typing_indicator ?? true,
        restartNotification: own?.gateway_restart_notification ?? true,
      };
    },
    humanDelay: humanDelay(config.human_delay),
    toolsets(platform) {
      const own = config.platform_toolsets[platform];
      if (own) return own;
      // A platform without a toolset of its own (the test adapter) gets what a chat bot gets.
      return [validateToolset(`hermes-${platform}`) ? `hermes-${platform}` : "hermes-telegram"];
    },
  };
}

function humanDelay(setting: HermesConfig["human_delay"]): HumanDelay | null {
  if (setting.mode === "off") return null;
  if (setting.mode === "natural") return NATURAL_DELAY;
  return { minMs: setting.min_ms, maxMs: setting.max_ms };
}

/** Platform settings from `platforms.<name>` and `gateway.platforms.<name>` (top level wins). */
export function platformConfig(config: HermesConfig, platform: string) {
  return config.platforms[platform] ?? config.gateway.platforms[platform];
}
