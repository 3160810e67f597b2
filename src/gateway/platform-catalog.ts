/**
 * Every messaging platform this build can run, described without loading its SDK: which
 * environment variables and config keys turn it on, what `hermes gateway setup` asks for, and
 * where its adapter module lives. The module (and with it the SDK) is imported only when the
 * platform is enabled, or when `hermes doctor` probes its token.
 */
import type { HermesConfig } from "../state/config-schema.js";
import { platformConfig } from "./settings.js";
import type { PlatformAdapter } from "./types.js";

export type Env = Record<string, string | undefined>;

export interface PlatformContext {
  config: HermesConfig;
  env: Env;
  home: string;
  log: (line: string) => void;
}

export interface ProbeResult {
  ok: boolean;
  detail: string;
  hint?: string;
}

/** What a platform's adapter module exports. */
export interface PlatformModule {
  /** Builds the adapter; throws an actionable Error when its settings cannot work. */
  createAdapter(context: PlatformContext): PlatformAdapter | Promise<PlatformAdapter>;
  /** One cheap authenticated call (who am I?) proving the credentials work. */
  probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult>;
}

export interface SetupField {
  /** The environment variable it is saved as in $HERMES_HOME/.env. */
  env: string;
  prompt: string;
  secret: boolean;
  required: boolean;
}

export interface PlatformEntry {
  name: string;
  label: string;
  /** Variables whose presence turns the platform on (all of them are needed). */
  enablingEnv: string[];
  /** Another set of variables that turns it on as well (Matrix: a user id and password instead of a token). */
  alsoEnablingEnv?: string[];
  setup: SetupField[];
  /** Where a user gets the credentials, shown by setup. */
  setupHint: string;
  load(): Promise<PlatformModule>;
}

const truthy = (value: string | undefined) => /^(1|true|yes|on)$/i.test((value ?? "").trim());

export const PLATFORM_CATALOG: readonly PlatformEntry[] = [
  {
    name: "telegram",
    label: "Telegram",
    enablingEnv: ["TELEGRAM_BOT_TOKEN"],
    setupHint: "Create a bot with @BotFather and copy its token; your user id is what @userinfobot tells you.",
    setup: [
      { env: "TELEGRAM_BOT_TOKEN", prompt: "Bot token", secret: true, required: true },
      { env: "TELEGRAM_ALLOWED_USERS", prompt: "Allowed user ids (comma-separated)", secret: false, required: false },
    ],
    load: () => import("./adapters/telegram/platform.js"),
  },
  {
    name: "discord",
    label: "Discord",
    enablingEnv: ["DISCORD_BOT_TOKEN"],
    setupHint:
      "Create an application at the Discord developer portal, add a bot, enable the Message Content intent and copy the bot token.",
    setup: [
      { env: "DISCORD_BOT_TOKEN", prompt: "Bot token", secret: true, required: true },
      { env: "DISCORD_ALLOWED_USERS", prompt: "Allowed user ids (comma-separated)", secret: false, required: false },
    ],
    load: () => import("./adapters/discord/platform.js"),
  },
  {
    name: "slack",
    label: "Slack",
    enablingEnv: ["SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"],
    setupHint:
      "Create a Slack app with Socket Mode on; the bot token starts with xoxb-, the app-level token (connections:write) with xapp-.",
    setup: [
      { env: "SLACK_BOT_TOKEN", prompt: "Bot token (xoxb-...)", secret: true, required: true },
      { env: "SLACK_APP_TOKEN", prompt: "App-level token (xapp-...)", secret: true, required: true },
      { env: "SLACK_ALLOWED_USERS", prompt: "Allowed member ids (comma-separated)", secret: false, required: false },
    ],
    load: () => import("./adapters/slack/platform.js"),
  },
  {
    name: "mattermost",
    label: "Mattermost",
    enablingEnv: ["MATTERMOST_URL", "MATTERMOST_TOKEN"],
    setupHint:
      "Create a bot account (Integrations > Bot Accounts; a System Admin may need to enable them) and copy its token; your user id is under Profile.",
    setup: [
      { env: "MATTERMOST_URL", prompt: "Server address (https://...)", secret: false, required: true },
      { env: "MATTERMOST_TOKEN", prompt: "Bot token", secret: true, required: true },
      { env: "MATTERMOST_ALLOWED_USERS", prompt: "Allowed user ids (comma-separated)", secret: false, required: false },
    ],
    load: () => import("./adapters/mattermost/platform.js"),
  },
  {
    name: "matrix",
    label: "Matrix",
    enablingEnv: ["MATRIX_HOMESERVER", "MATRIX_ACCESS_TOKEN"],
    alsoEnablingEnv: ["MATRIX_HOMESERVER", "MATRIX_USER_ID", "MATRIX_PASSWORD"],
    setupHint:
      "Make an account for the bot on your homeserver, log in as it once and copy its access token (Element: Settings > Help & About); user ids look like @alice:example.org.",
    setup: [
      { env: "MATRIX_HOMESERVER", prompt: "Homeserver address (https://...)", secret: false, required: true },
      { env: "MATRIX_ACCESS_TOKEN", prompt: "Access token", secret: true, required: true },
      { env: "MATRIX_ALLOWED_USERS", prompt: "Allowed user ids (comma-separated)", secret: false, required: false },
    ],
    load: () => import("./adapters/matrix/platform.js"),
  },
  {
    name: "email",
    label: "Email",
    enablingEnv: ["EMAIL_ADDRESS", "EMAIL_PASSWORD", "EMAIL_IMAP_HOST", "EMAIL_SMTP_HOST"],
    setupHint: "Use a mailbox of its own for the agent; with Gmail and the like, an app password.",
    setup: [
      { env: "EMAIL_ADDRESS", prompt: "The agent's address", secret: false, required: true },
      { env: "EMAIL_PASSWORD", prompt: "Password (or app password)", secret: true, required: true },
      { env: "EMAIL_IMAP_HOST", prompt: "IMAP host", secret: false, required: true },
      { env: "EMAIL_SMTP_HOST", prompt: "SMTP host", secret: false, required: true },
      {
        env: "EMAIL_ALLOWED_USERS",
        prompt: "Allowed sender addresses (comma-separated)",
        secret: false,
        required: false,
      },
    ],
    load: () => import("./adapters/email/platform.js"),
  },
];

export function catalogEntry(name: string): PlatformEntry | undefined {
  return PLATFORM_CATALOG.find((entry) => entry.name === name);
}

/**
 * Whether config and the environment turn a platform on: `<NAME>_ENABLED`, `platforms.<name>.enabled`,
 * or the platform's credentials being present. `<NAME>_ENABLED=false` wins over everything, so a
 * token kept in .env need not start a bot the user switched off.
 */
export function platformEnabled(config: HermesConfig, env: Env, name: string): boolean {
  const prefix = name.toUpperCase();
  const enabledVar = env[`${prefix}_ENABLED`];
  if (enabledVar !== undefined && enabledVar.trim() !== "") return truthy(enabledVar);
  const own = platformConfig(config, name);
  if (own?.enabled) return true;
  const entry = catalogEntry(name);
  if (!entry) return false;
  const allSet = (variables: readonly string[]) => variables.every((variable) => Boolean(env[variable]?.trim()));
  if (allSet(entry.enablingEnv) || (entry.alsoEnablingEnv && allSet(entry.alsoEnablingEnv))) return true;
  // A token given in config.yaml counts as credentials too.
  return entry.enablingEnv.length === 1 && Boolean(own?.token);
}

/**
 * The chat platforms config and the environment turn on (the catalog's, and any other named under
 * `platforms` that is enabled), which messages may be sent to. Webhooks are not chats.
 */
export function messagingPlatforms(config: HermesConfig, env: Env): string[] {
  const names = new Set([
    ...PLATFORM_CATALOG.map((entry) => entry.name),
    ...Object.keys(config.platforms),
    ...Object.keys(config.gateway.platforms),
  ]);
  return [...names].filter((name) => name !== "webhook" && platformEnabled(config, env, name));
}

/** The API root a platform's SDK talks to: `<NAME>_API_ROOT` wins over `platforms.<name>.api_root`. */
export function apiRoot(context: PlatformContext, name: string): string | undefined {
  const fromEnv = context.env[`${name.toUpperCase()}_API_ROOT`]?.trim();
  if (fromEnv) return fromEnv.replace(/\/+$/, "");
  const fromConfig = platformConfig(context.config, name)?.api_root?.trim();
  return fromConfig ? fromConfig.replace(/\/+$/, "") : undefined;
}

/** A setting from the environment first, then `platforms.<name>.<key>`, then `platforms.<name>.extra.<key>`. */
export function platformSetting(context: PlatformContext, name: string, envName: string, key: string): string {
  const fromEnv = context.env[envName]?.trim();
  if (fromEnv) return fromEnv;
  const own = platformConfig(context.config, name) as Record<string, unknown> | undefined;
  const direct = own?.[key];
  if (typeof direct === "string" && direct) return direct;
  if (typeof direct === "number") return String(direct);
  const extra = (own?.extra ?? {}) as Record<string, unknown>;
  const value = extra[key];
  return typeof value === "string" || typeof value === "number" ? String(value) : "";
}
