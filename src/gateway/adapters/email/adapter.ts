/**
 * Email as a chat: unseen mail in INBOX comes in (one conversation per reply chain), replies go
 * out by SMTP in the same thread. Mail is marked \Seen only once the gateway has answered it
 * (see seen-ledger.ts), so nothing is lost to a crash; the gateway drops mail it has seen before.
 */
import { basename } from "node:path";
import type {
  AdapterEvents,
  ChatAddress,
  InboundMessage,
  OutboundText,
  PlatformAdapter,
  SentMessage,
} from "../../types.js";
import { PlatformSendError } from "../../types.js";
import { markdownToPlainText, outgoingMessageId, referencesFor, replySubject, smtpSendError } from "./compose.js";
import { type ParsedInbound, parseInbound } from "./inbound.js";
import { Mailbox } from "./mailbox.js";
import { SeenLedger } from "./seen-ledger.js";
import type { EmailSettings } from "./settings.js";
import { type OutgoingMail, type SmtpTransport, sendMail, smtpTransport } from "./smtp.js";
import { ThreadBook } from "./threads.js";

const BARE_ADDRESS = /^[^@\s<>]+@[^@\s<>]+$/;
/** How many received mails are remembered in memory (references, hand-overs). */
const MAX_REMEMBERED = 5000;

export interface EmailAdapterOptions {
  settings: EmailSettings;
  home: string;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes`: a ceiling over the 25 MB attachment limit (0 or unset: none). */
  maxInboundMediaBytes?: number;
}

export class EmailAdapter implements PlatformAdapter {
  readonly platform = "email";
  readonly maxMessageLength = 50_000;
  readonly canEdit = false;
  private events: AdapterEvents | undefined;
  private mailbox: Mailbox | undefined;
  private readonly threads: ThreadBook;
  private readonly seen = new SeenLedger();
  /** Mail handed to the gateway by this process (it would only drop a repeat). */
  private readonly handedOver = new Set<string>();
  /** References of mail received, so a reply names exactly the mail it answers. */
  private readonly inboundReferences = new Map<string, string[]>();
  /** UIDs looked at on the current connection. */
  private looked = new Set<number>();
  private draining: Promise<void> = Promise.resolve();
  private drainQueued = false;
  private readonly transport: SmtpTransport;

  constructor(private readonly options: EmailAdapterOptions) {
    this.threads = new ThreadBook(options.home);
    this.transport = smtpTransport(options.settings);
  }

  /** How new mail is noticed on the current connection. */
  get watching(): "idle" | "polling" | "disconnected" {
    if (!this.mailbox?.open) return "disconnected";
    return this.mailbox.supportsIdle ? "idle" : "polling";
  }

  private get settings(): EmailSettings {
    return this.options.settings;
  }

  async connect(events: AdapterEvents): Promise<void> {
    this.events = events;
    this.looked = new Set();
    const mailbox = new Mailbox(this.settings, {
      newMail: () => this.scheduleDrain(),
      lost: (error) => {
        if (this.mailbox !== mailbox) return;
        this.mailbox = undefined;
        this.events?.listenerLost(error);
      },
    });
    await mailbox.connect();
    this.mailbox = mailbox;
    this.scheduleDrain();
    await this.draining;
  }

  async disconnect(): Promise<void> {
    const mailbox = this.mailbox;
    this.mailbox = undefined;
    this.events = undefined;
    await mailbox?.close();
    await this.draining;
  }

  async checkAlive(): Promise<void> {
    if (!this.mailbox) throw new Error("the IMAP connection is not open");
    await this.mailbox.noop();
  }

  formatMarkdown(text: string): string {
    return markdownToPlainText(text);
  }

  async send(message: OutboundText): Promise<SentMessage> {
    return this.deliver(message, message.text, message.replyTo, message.idempotencyKey);
  }

  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    const filename = basename(path);
    return this.deliver(address, caption?.trim() || `Attached: ${filename}`, null, undefined, [{ path, filename }]);
  }

  async sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    return this.sendFile(address, path, caption);
  }

  private async deliver(
    address: ChatAddress,
    text: string,
    replyTo: string | null | undefined,
    idempotencyKey: string | undefined,
    attachments?: OutgoingMail["attachments"],
  ): Promise<SentMessage> {
    const horizon = this.seen.horizon;
    const mail = this.compose(address.chatId, text, replyTo, idempotencyKey);
    try {
      await sendMail(this.transport, this.settings.address, { ...mail, attachments });
    } catch (error) {
      throw smtpSendError(error);
    }
    const references = referencesFor([...(mail.references ?? []), mail.messageId]);
    if (!mail.inReplyTo) this.threads.started(mail.messageId, address.chatId);
    this.threads.update(address.chatId, {
      to: mail.to,
      subject: mail.subject.replace(/^Re:\s*/i, ""),
      lastMessageId: mail.messageId,
      references,
    });
    await this.settleAfterSend(address.chatId, replyTo, horizon);
    return { messageId: mail.messageId };
  }

  private compose(
    chatId: string,
    text: string,
    replyTo: string | null | undefined,
    idempotencyKey: string | undefined,
  ): OutgoingMail {
    const messageId = outgoingMessageId(idempotencyKey, this.settings.address);
    const thread = this.threads.get(chatId);
    if (thread) {
      const answered = replyTo ? this.inboundReferences.get(replyTo) : undefined;
      const references = referencesFor(answered ?? thread.references);
      return {
        to: thread.to,
        subject: replySubject(thread.subject),
        text,
        messageId,
        inReplyTo: answered && replyTo ? replyTo : thread.lastMessageId,
        references,
      };
    }
    if (BARE_ADDRESS.test(chatId)) {
      // A new conversation (the home address, a scheduled job): the first line is the subject.
      const firstLine = text.split("\n").find((line) => line.trim()) ?? "";
      const subject = firstLine.trim().slice(0, 78) || "A message from your agent";
      return { to: chatId, subject, text, messageId };
    }
    throw new PlatformSendError(
      `no email conversation ${chatId} is known here (it was never received by this mailbox)`,
      { retryable: false },
    );
  }

  private async settleAfterSend(chatId: string, replyTo: string | null | undefined, horizon: number): Promise<void> {
    const released = this.seen.settleBySend(chatId, replyTo, horizon);
    this.threads.answered(released.map((mail) => mail.messageId));
    await this.flagSeen(released.map((mail) => ({ uid: mail.uid, messageId: mail.messageId })));
  }

  /** Sets \Seen now when the connection is up; otherwise the next fetch does it. */
  private async flagSeen(mails: Array<{ uid: number; messageId: string }>): Promise<void> {
    const mailbox = this.mailbox;
    if (mails.length === 0 || !mailbox?.open) return;
    try {
      await mailbox.markSeen(mails.map((mail) => mail.uid));
      for (const mail of mails) this.seen.flagged(mail.messageId);
    } catch (error) {
      this.options.log(`email: marking mail seen failed (${errorText(error)}); trying again on the next fetch`);
    }
  }

  private scheduleDrain(): void {
    if (this.drainQueued) return;
    this.drainQueued = true;
    this.draining = this.draining
      .then(async () => {
        this.drainQueued = false;
        await this.drain();
      })
      .catch((error: unknown) => this.options.log(`email: fetching new mail failed: ${errorText(error)}`));
  }

  private async drain(): Promise<void> {
    const mailbox = this.mailbox;
    if (!mailbox?.open) return;
    const flagNow: Array<{ uid: number; messageId: string }> = [];
    for (const uid of await mailbox.unseenUids()) {
      if (this.looked.has(uid)) continue;
      this.looked.add(uid);
      const fetched = await mailbox.fetch(uid);
      if (!fetched) continue;
      const parsed = await parseInbound(fetched.source, {
        home: this.options.home,
        ownAddress: this.settings.address,
        fallbackId: `<uid-${uid}-${fetched.size}@${this.settings.imap.host}>`,
        ...(this.options.maxInboundMediaBytes !== undefined
          ? { maxInboundMediaBytes: this.options.maxInboundMediaBytes }
          : {}),
      }).catch((error: unknown) => {
        this.options.log(`email: mail ${uid} could not be read (${errorText(error)}); leaving it unseen`);
        return null;
      });
      if (parsed === null) continue;
      if (!parsed) {
        this.options.log(`email: mail ${uid} has no sender address; marking it seen`);
        flagNow.push({ uid, messageId: "" });
        continue;
      }
      if (parsed.skipReason || this.seen.isSettled(parsed.messageId) || this.threads.wasAnswered(parsed.messageId)) {
        if (parsed.skipReason) this.options.log(`email: not answering ${parsed.messageId} (${parsed.skipReason})`);
        flagNow.push({ uid, messageId: parsed.messageId });
        continue;
      }
      const chatId = this.chatOf(parsed.threadRoot, parsed.from);
      if (this.seen.isPending(parsed.messageId)) {
        this.seen.add({ messageId: parsed.messageId, chatId, uid, command: false });
        continue;
      }
      if (this.handedOver.has(parsed.messageId)) continue;
      const text = fetched.truncated
        ? `${parsed.text}\n[The mail was ${fetched.size} bytes, over the limit; only its beginning was read]`
        : parsed.text;
      const allowed = this.senderAllowed(parsed.from);
      this.threads.update(chatId, {
        to: parsed.from,
        subject: this.threads.get(chatId)?.subject ?? parsed.subject,
        lastMessageId: parsed.messageId,
        references: parsed.references,
      });
      this.rememberReferences(parsed.messageId, parsed.references);
      if (allowed)
        this.seen.add({ messageId: parsed.messageId, chatId, uid, command: text.trimStart().startsWith("/") });
      else flagNow.push({ uid, messageId: parsed.messageId });
      remember(this.handedOver, parsed.messageId);
      this.events?.inbound(this.toInbound(parsed, chatId, text));
    }
    await this.flagSeen(flagNow);
    mailbox.listen();
  }

  private toInbound(parsed: ParsedInbound, chatId: string, text: string): InboundMessage {
    const inbound: InboundMessage = {
      platform: this.platform,
      chatId,
      chatType: "dm",
      userId: parsed.from,
      text,
      messageId: parsed.messageId,
    };
    // No userName: a display name is whatever the sender typed, and allowlists match user names too.
    if (parsed.attachments.length > 0) inbound.attachments = parsed.attachments;
    const answered = parsed.references.at(-2);
    if (answered) inbound.replyTo = answered;
    if (parsed.sentAt !== undefined && Number.isFinite(parsed.sentAt)) inbound.sentAt = parsed.sentAt;
    return inbound;
  }

  /**
   * The conversation a mail belongs to: its thread, when the thread is with this sender. Anyone
   * else writing into the thread (a Cc'd colleague, someone who learnt a Message-ID) gets a
   * conversation of their own, so they can neither read that session nor redirect its replies.
   */
  private chatOf(threadRoot: string, sender: string): string {
    const chatId = this.threads.chatFor(threadRoot);
    const thread = this.threads.get(chatId);
    return thread && thread.to !== sender ? `${chatId}#${sender}` : chatId;
  }

  /** Whether the static allowlists let the sender in (pairing approvals are not visible here). */
  private senderAllowed(sender: string): boolean {
    const allowed = this.settings.allowedSenders;
    return allowed === "all" || allowed.has(sender);
  }

  private rememberReferences(messageId: string, references: string[]): void {
    this.inboundReferences.set(messageId, references);
    if (this.inboundReferences.size > MAX_REMEMBERED) {
      const oldest = this.inboundReferences.keys().next().value;
      if (oldest !== undefined) this.inboundReferences.delete(oldest);
    }
  }
}

/** Adds to a set that forgets its oldest entries beyond MAX_REMEMBERED. */
function remember(set: Set<string>, value: string): void {
  set.add(value);
  if (set.size <= MAX_REMEMBERED) return;
  const oldest = set.values().next().value;
  if (oldest !== undefined) set.delete(oldest);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
