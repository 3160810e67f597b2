/**
 * The IMAP side: one connection with INBOX open, listening by IDLE where the server has it and
 * by polling otherwise. It reports new mail and a lost connection; it never decides what to do
 * with either.
 */
import { ImapFlow, type ImapFlowOptions } from "imapflow";
import type { EmailSettings, ServerSettings } from "./settings.js";

export interface FetchedMail {
  uid: number;
  size: number;
  source: Buffer;
  /** The mail is larger than the limit: `source` is only its beginning. */
  truncated: boolean;
}

/** Mail larger than this is read only in part (its text; attachments would be cut anyway). */
export const MAX_MAIL_BYTES = 60 * 1024 * 1024;
const PARTIAL_READ_BYTES = 512 * 1024;

export function imapOptions(settings: EmailSettings, timeoutMs?: number): ImapFlowOptions {
  const server: ServerSettings = settings.imap;
  return {
    host: server.host,
    port: server.port,
    secure: server.implicitTls,
    // Without implicit TLS the login must still never cross the wire in the clear.
    doSTARTTLS: !server.plain && !server.implicitTls,
    auth: { user: settings.address, pass: settings.password },
    logger: false,
    disableAutoIdle: true,
    // Servers end an IDLE after about 30 minutes, and quiet connections die in NAT tables.
    maxIdleTime: 4 * 60_000,
    ...(timeoutMs !== undefined ? { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs } : {}),
  };
}

export interface MailboxEvents {
  newMail(): void;
  lost(error: Error): void;
}

export class Mailbox {
  private client: ImapFlow | undefined;
  private poller: NodeJS.Timeout | undefined;

  constructor(
    private readonly settings: EmailSettings,
    private readonly events: MailboxEvents,
  ) {}

  get supportsIdle(): boolean {
    return this.client?.capabilities.has("IDLE") ?? false;
  }

  get open(): boolean {
    return this.client?.usable ?? false;
  }

  async connect(): Promise<void> {
    const client = new ImapFlow(imapOptions(this.settings));
    let closedByUs = false;
    const lost = (error: Error) => {
      if (closedByUs || this.client !== client) return;
      this.client = undefined;
      clearInterval(this.poller);
      this.events.lost(error);
    };
    client.on("error", (error: Error) => lost(new Error(`IMAP error: ${error.message}`)));
    client.on("close", () => lost(new Error("the IMAP connection closed")));
    client.on("exists", () => this.events.newMail());
    this.client = client;
    this.closeClient = () => {
      closedByUs = true;
      client.close();
    };
    try {
      await client.connect();
      await client.mailboxOpen("INBOX");
    } catch (error) {
      this.closeClient();
      this.client = undefined;
      throw error;
    }
    if (!this.supportsIdle) {
      this.poller = setInterval(() => this.events.newMail(), this.settings.pollIntervalMs);
      this.poller.unref();
    }
  }

  private closeClient: () => void = () => undefined;

  /** Listens for new mail until the next command (IDLE ends by itself when one is sent). */
  listen(): void {
    const client = this.client;
    if (!client || !this.supportsIdle || client.idling) return;
    client.idle().catch(() => undefined);
  }

  async unseenUids(): Promise<number[]> {
    const client = this.live();
    const found = await client.search({ seen: false }, { uid: true });
    return Array.isArray(found) ? found.sort((a, b) => a - b) : [];
  }

  async fetch(uid: number): Promise<FetchedMail | undefined> {
    const client = this.live();
    const head = await client.fetchOne(String(uid), { uid: true, size: true }, { uid: true });
    if (!head) return undefined;
    const size = head.size ?? 0;
    const truncated = size > MAX_MAIL_BYTES;
    const query = truncated ? { source: { maxLength: PARTIAL_READ_BYTES } } : { source: true };
    const full = await client.fetchOne(String(uid), { uid: true, ...query }, { uid: true });
    if (full === false || !full.source) return undefined;
    return { uid, size, source: full.source, truncated };
  }

  async markSeen(uids: number[]): Promise<void> {
    if (uids.length === 0) return;
    await this.live().messageFlagsAdd(uids.join(","), ["\\Seen"], { uid: true });
  }

  /** A round trip on the live connection; a connection that does not answer in time is dead. */
  async noop(timeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the IMAP server did not answer NOOP in ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.live().noop(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.poller);
    this.closeClient();
    this.client = undefined;
  }

  private live(): ImapFlow {
    const client = this.client;
    if (!client?.usable) throw new Error("the IMAP connection is not open");
    return client;
  }
}
