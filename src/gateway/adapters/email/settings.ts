/**
 * The email platform's settings: the environment first, then `platforms.email.*` and
 * `platforms.email.extra.*` in config.yaml. Mail servers are reached over TLS (implicit on 993
 * and 465, STARTTLS otherwise) with certificate checks; plain text is allowed only to a loopback
 * address, and only when asked for explicitly.
 */
import { isLoopbackHost } from "../../../util/base-url.js";
import { type PlatformContext, platformSetting } from "../../platform-catalog.js";
import { platformConfig } from "../../settings.js";

export interface ServerSettings {
  host: string;
  port: number;
  /** TLS from the first byte (993, 465); otherwise STARTTLS is required. */
  implicitTls: boolean;
  /** No TLS at all (loopback only, explicit opt-in). */
  plain: boolean;
}

export interface EmailSettings {
  address: string;
  password: string;
  imap: ServerSettings;
  smtp: ServerSettings;
  pollIntervalMs: number;
  /** Senders the static allowlists let in (lower-cased), or "all". */
  allowedSenders: Set<string> | "all";
}

const truthy = (value: string) => /^(1|true|yes|on)$/i.test(value.trim());

const setting = (context: PlatformContext, envName: string, key: string) =>
  platformSetting(context, "email", envName, key);

/** A yes/no setting: the environment, else `platforms.email.extra.<key>` (a YAML boolean or a word). */
function flag(context: PlatformContext, envName: string, key: string): boolean {
  const fromEnv = context.env[envName]?.trim();
  if (fromEnv) return truthy(fromEnv);
  const extra = (platformConfig(context.config, "email")?.extra ?? {}) as Record<string, unknown>;
  const value = extra[key];
  return value === true || (typeof value === "string" && truthy(value));
}

function port(value: string, fallback: number, name: string): number {
  if (!value) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65_535)
    throw new Error(`${name} "${value}" is not a port number`);
  return parsed;
}

/** Lower-cased bare addresses from a comma- or space-separated list. */
export function addressList(value: string | undefined): string[] {
  return (value ?? "")
    .split(/[,\s]+/)
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);
}

export function readEmailSettings(context: PlatformContext): EmailSettings {
  const address = setting(context, "EMAIL_ADDRESS", "address");
  const password = setting(context, "EMAIL_PASSWORD", "password");
  const imapHost = setting(context, "EMAIL_IMAP_HOST", "imap_host");
  const smtpHost = setting(context, "EMAIL_SMTP_HOST", "smtp_host");
  const missing = [
    ["EMAIL_ADDRESS", address],
    ["EMAIL_PASSWORD", password],
    ["EMAIL_IMAP_HOST", imapHost],
    ["EMAIL_SMTP_HOST", smtpHost],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0)
    throw new Error(`email: set ${missing.join(", ")} (in $HERMES_HOME/.env or platforms.email.extra)`);
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(address)) throw new Error(`email: EMAIL_ADDRESS "${address}" is not an address`);

  const insecure = flag(context, "EMAIL_INSECURE_NO_TLS", "insecure_no_tls");
  for (const host of insecure ? [imapHost, smtpHost] : []) {
    if (!isLoopbackHost(host)) {
      throw new Error(
        `email: EMAIL_INSECURE_NO_TLS is allowed only for a mail server on this machine, not ${host}; remove it to use TLS`,
      );
    }
  }
  const imapPort = port(setting(context, "EMAIL_IMAP_PORT", "imap_port"), 993, "EMAIL_IMAP_PORT");
  const smtpPort = port(setting(context, "EMAIL_SMTP_PORT", "smtp_port"), 587, "EMAIL_SMTP_PORT");
  const pollSeconds = Number(setting(context, "EMAIL_POLL_INTERVAL", "poll_interval") || 15);
  if (!Number.isFinite(pollSeconds) || pollSeconds <= 0)
    throw new Error("email: EMAIL_POLL_INTERVAL must be a number of seconds above 0");

  const allowAll = truthy(context.env.EMAIL_ALLOW_ALL_USERS ?? "") || truthy(context.env.GATEWAY_ALLOW_ALL_USERS ?? "");
  return {
    address,
    password,
    imap: { host: imapHost, port: imapPort, implicitTls: !insecure && imapPort === 993, plain: insecure },
    smtp: { host: smtpHost, port: smtpPort, implicitTls: !insecure && smtpPort === 465, plain: insecure },
    pollIntervalMs: Math.max(100, Math.round(pollSeconds * 1000)),
    allowedSenders: allowAll
      ? "all"
      : new Set([...addressList(context.env.EMAIL_ALLOWED_USERS), ...addressList(context.env.GATEWAY_ALLOWED_USERS)]),
  };
}
