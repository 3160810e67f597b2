/**
 * The built-in `test` platform: an in-process message bus. Tests (and anyone trying the gateway
 * without a bot token) inject inbound messages and read what the gateway sent, edited and
 * deleted. Sends can be made to fail, and the listener can be made to die, to exercise the
 * core's retries and reconnects.
 */

import type {
  AdapterEvents,
  ApprovalPrompt,
  ChatAddress,
  InboundMessage,
  OutboundText,
  PlatformAdapter,
  QuestionPrompt,
  SentMessage,
} from "../types.js";
import { PlatformSendError } from "../types.js";

export interface SentRecord extends OutboundText {
  messageId: string;
  /** The text after every edit so far. */
  current: string;
  edits: string[];
  deleted: boolean;
}

type Waiter = { test: (sent: SentRecord[]) => boolean; resolve: () => void };

export class TestAdapter implements PlatformAdapter {
  readonly platform: string;
  readonly maxMessageLength: number;
  readonly canEdit: boolean;
  readonly sent: SentRecord[] = [];
  typingCount = 0;
  /** What `checkAlive` reports: set to an Error to make the listener look silently dead. */
  silentFailure: Error | undefined;
  connects = 0;
  private events: AdapterEvents | undefined;
  private failures: Array<PlatformSendError | Error> = [];
  private nextId = 1;
  private waiters: Waiter[] = [];

  /** Files and images sent, in order. */
  readonly files: Array<{ address: ChatAddress; path: string; image: boolean }> = [];
  /** Button prompts shown (only when made with `buttons: true`). */
  readonly prompts: Array<ApprovalPrompt | QuestionPrompt> = [];

  constructor(
    options: {
      platform?: string;
      maxMessageLength?: number;
      canEdit?: boolean;
      buttons?: boolean;
      files?: boolean;
    } = {},
  ) {
    this.platform = options.platform ?? "test";
    this.maxMessageLength = options.maxMessageLength ?? 4096;
    this.canEdit = options.canEdit ?? true;
    if (options.buttons) {
      this.askApproval = (prompt) => this.showButtons(prompt);
      this.askQuestion = (prompt) => this.showButtons(prompt);
    }
    if (options.files !== false) {
      this.sendFile = (address, path) => this.recordFile(address, path, false);
      this.sendImage = (address, path) => this.recordFile(address, path, true);
    }
  }

  askApproval?: (prompt: ApprovalPrompt) => Promise<SentMessage>;
  askQuestion?: (prompt: QuestionPrompt) => Promise<SentMessage>;
  sendFile?: (address: ChatAddress, path: string) => Promise<SentMessage>;
  sendImage?: (address: ChatAddress, path: string) => Promise<SentMessage>;

  private async showButtons(prompt: ApprovalPrompt | QuestionPrompt): Promise<SentMessage> {
    this.prompts.push(prompt);
    this.notify();
    return { messageId: `p${this.prompts.length}` };
  }

  private async recordFile(address: ChatAddress, path: string, image: boolean): Promise<SentMessage> {
    this.files.push({ address, path, image });
    this.notify();
    return { messageId: `f${this.files.length}` };
  }

  get connected(): boolean {
    return this.events !== undefined;
  }

  async connect(events: AdapterEvents): Promise<void> {
    this.connects += 1;
    this.events = events;
    this.silentFailure = undefined;
  }

  async disconnect(): Promise<void> {
    this.events = undefined;
  }

  async checkAlive(): Promise<void> {
    if (this.silentFailure) throw this.silentFailure;
  }

  /** Delivers a message to the gateway as if a user had sent it. */
  inject(message: Partial<InboundMessage> & { text: string; messageId: string }): void {
    if (!this.events) throw new Error(`the ${this.platform} test adapter is not connected`);
    this.events.inbound({
      platform: this.platform,
      chatId: "chat-1",
      chatType: "dm",
      userId: "user-1",
      ...message,
    });
  }

  /** Simulates the platform connection dying under the adapter. */
  loseListener(reason = "connection reset"): void {
    const events = this.events;
    this.events = undefined;
    events?.listenerLost(new Error(reason));
  }

  /** The next sends throw these, in order. */
  failNextSends(...errors: Array<PlatformSendError | Error>): void {
    this.failures.push(...errors);
  }

  async send(message: OutboundText): Promise<SentMessage> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    const messageId = `m${this.nextId++}`;
    this.sent.push({ ...message, messageId, current: message.text, edits: [], deleted: false });
    this.notify();
    return { messageId };
  }

  async edit(_address: ChatAddress, messageId: string, text: string, preview = false): Promise<void> {
    const record = this.sent.find((s) => s.messageId === messageId);
    if (!record) throw new PlatformSendError(`no message ${messageId} to edit`, { retryable: false });
    record.edits.push(text);
    record.current = text;
    record.preview = preview;
    this.notify();
  }

  async delete(_address: ChatAddress, messageId: string): Promise<void> {
    const record = this.sent.find((s) => s.messageId === messageId);
    if (record) record.deleted = true;
    this.notify();
  }

  async typing(): Promise<void> {
    this.typingCount += 1;
  }

  /** Texts sent to a chat as they read now (after edits; previews still growing left out), oldest first. */
  texts(chatId?: string): string[] {
    return this.sent.filter((s) => !s.deleted && !s.preview && (!chatId || s.chatId === chatId)).map((s) => s.current);
  }

  /** Resolves once what was sent satisfies `test`. */
  waitFor(test: (sent: SentRecord[]) => boolean): Promise<void> {
    if (test(this.sent)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  /** Resolves once some message to the chat (after edits) matches `pattern`. */
  waitForText(pattern: RegExp, chatId?: string): Promise<string> {
    const find = () => this.texts(chatId).find((text) => pattern.test(text));
    return this.waitFor(() => find() !== undefined).then(() => find() as string);
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => w.test(this.sent));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }
}
