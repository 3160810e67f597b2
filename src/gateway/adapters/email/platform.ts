/**
 * The email platform's module: the adapter, and a probe that logs in to IMAP and checks the
 * SMTP login, so `hermes doctor` can tell a wrong password from an unreachable server.
 */
import { ImapFlow } from "imapflow";
import type { PlatformContext, PlatformModule, ProbeResult } from "../../platform-catalog.js";
import type { PlatformAdapter } from "../../types.js";
import { EmailAdapter } from "./adapter.js";
import { imapOptions } from "./mailbox.js";
import { readEmailSettings } from "./settings.js";
import { smtpTransport } from "./smtp.js";

const APP_PASSWORD_HINT =
  "Check EMAIL_ADDRESS and EMAIL_PASSWORD. Gmail, Outlook, iCloud, Yahoo and others refuse the account password for IMAP/SMTP when two-step sign-in is on: create an app password and use it.";

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const detail = (error as { responseText?: string; response?: string }).responseText ?? "";
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}

function isAuthFailure(error: unknown): boolean {
  const failure = error as { authenticationFailed?: boolean; code?: string; responseCode?: number };
  return failure?.authenticationFailed === true || failure?.code === "EAUTH" || failure?.responseCode === 535;
}

async function probeImap(context: PlatformContext, timeoutMs: number): Promise<ProbeResult | undefined> {
  const settings = readEmailSettings(context);
  const client = new ImapFlow({ ...imapOptions(settings, timeoutMs), verifyOnly: true });
  client.on("error", () => undefined);
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    const where = `IMAP ${settings.imap.host}:${settings.imap.port}`;
    if (isAuthFailure(error)) return { ok: false, detail: `${where} refused the login`, hint: APP_PASSWORD_HINT };
    return {
      ok: false,
      detail: `${where}: ${describe(error)}`,
      hint: "Check EMAIL_IMAP_HOST and EMAIL_IMAP_PORT (993 for TLS, 143 for STARTTLS).",
    };
  } finally {
    client.close();
  }
}

async function probeSmtp(context: PlatformContext, timeoutMs: number): Promise<ProbeResult | undefined> {
  const settings = readEmailSettings(context);
  const transport = smtpTransport(settings, timeoutMs);
  try {
    await transport.verify();
    return undefined;
  } catch (error) {
    const where = `SMTP ${settings.smtp.host}:${settings.smtp.port}`;
    if (isAuthFailure(error)) return { ok: false, detail: `${where} refused the login`, hint: APP_PASSWORD_HINT };
    return {
      ok: false,
      detail: `${where}: ${describe(error)}`,
      hint: "Check EMAIL_SMTP_HOST and EMAIL_SMTP_PORT (587 for STARTTLS, 465 for TLS).",
    };
  } finally {
    transport.close();
  }
}

export const platform: PlatformModule = {
  createAdapter(context: PlatformContext): PlatformAdapter {
    return new EmailAdapter({
      settings: readEmailSettings(context),
      home: context.home,
      log: context.log,
      maxInboundMediaBytes: context.config.gateway.max_inbound_media_bytes,
    });
  },
  async probe(context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
    let settings: ReturnType<typeof readEmailSettings>;
    try {
      settings = readEmailSettings(context);
    } catch (error) {
      return { ok: false, detail: describe(error) };
    }
    const failure = (await probeImap(context, timeoutMs)) ?? (await probeSmtp(context, timeoutMs));
    return failure ?? { ok: true, detail: `logged in to IMAP and SMTP as ${settings.address}` };
  },
};
export const { createAdapter, probe } = platform;
