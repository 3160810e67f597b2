/**
 * The Telegram platform through grammY: long polling for messages and button presses, MarkdownV2
 * sends that fall back to plain text when Telegram cannot parse them, streamed replies by drafts
 * (private chats) or edits, rich messages for replies MarkdownV2 renders badly, files both ways,
 * and approvals and questions as inline keyboards.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { basename, extname } from "node:path";
import { Bot, InputFile } from "grammy";
import type { CallbackQuery, Chat, InlineKeyboardMarkup, Update } from "grammy/types";
import { splitMessage } from "../../split-message.js";
import type {
  AdapterEvents,
  ApprovalPrompt,
  ChatAddress,
  OutboundText,
  PlatformAdapter,
  QuestionPrompt,
  SentMessage,
} from "../../types.js";
import { approvalKeyboard, OpenPrompts, questionKeyboard, readPress } from "./buttons.js";
import { MessageDrafts, type TextBody } from "./drafts.js";
import { describeError, isGrammyError, isNotModified, isParseError, toSendError } from "./errors.js";
import { escapeCode, escapeText, markdownV2ToPlain, renderForTelegram, toMarkdownV2 } from "./format.js";
import { OffsetStore, UpdatePoller } from "./polling.js";
import { RichMessages, type RichSettings } from "./rich.js";
import { chatTypeOf, type FileSource, inboundFromMessage, thread, topicOf } from "./updates.js";
import { WebhookListener } from "./webhook.js";

export const TELEGRAM_API_ROOT = "https://api.telegram.org";
export const TELEGRAM_MAX_MESSAGE_LENGTH = 4096;
const MAX_CAPTION_LENGTH = 1024;

export interface TelegramAdapterOptions {
  token: string;
  apiRoot?: string;
  home: string;
  /** Group chats the bot answers in; empty: every chat the allowlists admit. DMs are not affected. */
  allowedChats?: readonly string[];
  /** Seconds Telegram holds a getUpdates call open (default 30). */
  pollTimeoutSeconds?: number;
  /** Take updates on a webhook instead of polling. */
  webhook?: { url: string; host: string; port: number; secret: string };
  log?: (line: string) => void;
  /** `gateway.max_inbound_media_bytes`: a ceiling over the Bot API's 20 MB download limit (0 or unset: none). */
  maxInboundMediaBytes?: number;
  /** `telegram.extra.rich_messages` / `rich_drafts` (both off by default). */
  rich?: RichSettings;
}

export class TelegramAdapter implements PlatformAdapter {
  readonly platform = "telegram";
  readonly maxMessageLength = TELEGRAM_MAX_MESSAGE_LENGTH;
  readonly canEdit = true;
  readonly exclusiveListener: string | undefined;
  private readonly bot: Bot;
  private readonly prompts = new OpenPrompts();
  private readonly offsets: OffsetStore;
  private readonly files: FileSource;
  private poller: UpdatePoller | undefined;
  private webhook: WebhookListener | undefined;
  private events: AdapterEvents | undefined;
  private readonly rich: RichMessages;
  private readonly drafts: MessageDrafts;

  constructor(private readonly options: TelegramAdapterOptions) {
    const apiRoot = options.apiRoot ?? TELEGRAM_API_ROOT;
    this.bot = new Bot(options.token, { client: { apiRoot } });
    const texts = { api: this.bot.api, token: options.token, log: (line: string) => this.log(line) };
    this.rich = new RichMessages({ ...texts, settings: options.rich ?? { messages: false, drafts: false } });
    const withPlainFallback = this.withPlainFallback.bind(this);
    this.drafts = new MessageDrafts({ ...texts, rich: this.rich, withPlainFallback });
    // The numeric part of a token is the bot's public id.
    const botId = options.token.split(":")[0] ?? "bot";
    this.offsets = new OffsetStore(options.home, botId);
    // Telegram hands a bot's updates to one long-poll reader; a webhook can be served by every replica.
    if (!options.webhook) this.exclusiveListener = `telegram:${botId}`;
    this.files = {
      api: this.bot.api,
      apiRoot,
      token: options.token,
      home: options.home,
      ...(options.maxInboundMediaBytes !== undefined ? { maxInboundMediaBytes: options.maxInboundMediaBytes } : {}),
    };
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  async connect(events: AdapterEvents): Promise<void> {
    await this.disconnect();
    const me = await this.bot.api.getMe().catch((error: unknown) => {
      throw new Error(`telegram: could not sign in (${describeError(error, this.options.token)})`);
    });
    this.events = events;
    if (this.options.webhook) return this.listen(this.options.webhook, `@${me.username} (${me.id})`);
    // Updates are read by polling: a webhook left over from elsewhere would take them instead.
    await this.bot.api.deleteWebhook();
    const poller = new UpdatePoller({
      api: this.bot.api,
      offsets: this.offsets,
      timeoutSeconds: this.options.pollTimeoutSeconds ?? 30,
      token: this.options.token,
      handle: (update) => this.handle(update),
      onFatal: (error) => {
        if (this.poller === poller) this.events?.listenerLost(error);
      },
      log: (line) => this.log(line),
    });
    this.poller = poller;
    poller.start();
    this.log(`telegram: polling as @${me.username} (${me.id})`);
  }

  private async listen(options: NonNullable<TelegramAdapterOptions["webhook"]>, who: string): Promise<void> {
    const listener = new WebhookListener({
      ...options,
      handle: (update) => this.handle(update),
      onFatal: (error) => {
        if (this.webhook === listener) this.events?.listenerLost(error);
      },
    });
    await listener.start();
    this.webhook = listener;
    try {
      await this.bot.api.setWebhook(options.url, {
        secret_token: options.secret,
        allowed_updates: ["message", "callback_query"],
        // One update at a time keeps a chat's messages in order.
        max_connections: 1,
      });
    } catch (error) {
      await this.disconnect();
      throw new Error(`telegram: setWebhook failed (${describeError(error, this.options.token)})`);
    }
    this.log(`telegram: ${who} takes updates at ${options.url} (listening on ${options.host}:${options.port})`);
  }

  async disconnect(): Promise<void> {
    const { poller, webhook } = this;
    this.poller = undefined;
    this.webhook = undefined;
    this.events = undefined;
    await poller?.stop();
    // The webhook stays set: Telegram keeps what arrives meanwhile and delivers it on return.
    await webhook?.stop();
  }

  /**
   * Polling: alive while the loop runs and Telegram answered a poll recently (else getMe must
   * answer). Webhook: the listener is up and Telegram still has our address.
   */
  async checkAlive(): Promise<void> {
    if (this.options.webhook) {
      if (!this.webhook?.listening) throw new Error("telegram: the webhook listener is not running");
      const info = await this.bot.api.getWebhookInfo();
      if (info.url !== this.options.webhook.url) throw new Error(`telegram: the webhook is now "${info.url}"`);
      return;
    }
    const poller = this.poller;
    if (!poller?.running) throw new Error("telegram: the polling loop is not running");
    const quietFor = Date.now() - poller.lastPollAt;
    if (quietFor < ((this.options.pollTimeoutSeconds ?? 30) + 60) * 1000) return;
    await this.bot.api.getMe();
  }

  private async handle(update: Update): Promise<void> {
    const chat = update.callback_query?.message?.chat ?? update.message?.chat;
    if (!chat || !this.answersIn(chat)) return;
    if (update.callback_query) return this.handlePress(update.callback_query);
    if (!update.message) return;
    const events = this.events;
    const inbound = await inboundFromMessage(update.message, this.files, (message) =>
      events?.admits ? events.admits(message) : Promise.resolve(true),
    );
    if (inbound) events?.inbound(inbound);
  }

  private answersIn(chat: Chat): boolean {
    const allowed = this.options.allowedChats ?? [];
    return chat.type === "private" || allowed.length === 0 || allowed.includes(String(chat.id));
  }

  /** A growing reply as an animated draft, where the chat and the server allow it (see drafts.ts). */
  readonly draft = (address: ChatAddress, id: number, text: string) => this.drafts.show(address, id, text);
  readonly sendsWhole = (markdown: string) => this.rich.takesWhole(markdown);

  async send(message: OutboundText): Promise<SentMessage> {
    if (!message.preview && this.rich.takesWhole(message.text)) {
      const sent = await this.rich.send(message);
      if (sent) return sent;
    }
    const [first, rest] = this.classicParts(message.text, message.preview);
    const sent = await this.sendText({ ...message, text: first });
    for (const part of rest) await this.sendText({ ...message, text: part, replyTo: null });
    return sent;
  }

  private async sendText(message: OutboundText): Promise<SentMessage> {
    const replyTo = message.replyTo && /^\d+$/.test(message.replyTo) ? Number(message.replyTo) : undefined;
    const sent = await this.withPlainFallback("sendMessage", message.text, (body) =>
      this.bot.api.sendMessage(message.chatId, body.text, {
        ...body,
        ...thread(message),
        ...(replyTo ? { reply_parameters: { message_id: replyTo, allow_sending_without_reply: true } } : {}),
      }),
    );
    return { messageId: String(sent.message_id) };
  }

  async edit(address: ChatAddress, messageId: string, text: string, preview?: boolean): Promise<void> {
    if (!preview && this.rich.takesWhole(text) && (await this.rich.edit(address, messageId, text))) return;
    const [first, rest] = this.classicParts(text, preview);
    await this.editText(address, messageId, first);
    for (const part of rest) await this.sendText({ ...address, text: part });
  }

  /** A whole reply the rich path did not take can be longer than one message: then its MarkdownV2 parts. */
  private classicParts(text: string, preview?: boolean): [string, string[]] {
    const rendered = renderForTelegram(text);
    if (preview || rendered.length <= this.maxMessageLength) return [text, []];
    const [first = "", ...rest] = splitMessage(rendered, this.maxMessageLength);
    return [first, rest];
  }

  private async editText(address: ChatAddress, messageId: string, text: string): Promise<void> {
    try {
      await this.withPlainFallback("editMessageText", text, (body) =>
        this.bot.api.editMessageText(address.chatId, Number(messageId), body.text, body),
      );
    } catch (error) {
      // Repeating an edit (after a retry or a restart) is not a failure.
      if (isNotModified(error)) return;
      throw error;
    }
  }

  async delete(address: ChatAddress, messageId: string): Promise<void> {
    try {
      await this.bot.api.deleteMessage(address.chatId, Number(messageId));
    } catch (error) {
      if (isGrammyError(error, 400) && /message to delete not found/i.test(error.description)) return;
      throw toSendError(error, "deleteMessage");
    }
  }

  async typing(address: ChatAddress): Promise<void> {
    try {
      await this.bot.api.sendChatAction(address.chatId, "typing", thread(address));
    } catch (error) {
      throw toSendError(error, "sendChatAction");
    }
  }

  async sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    try {
      const sent = await this.bot.api.sendPhoto(address.chatId, new InputFile(path, basename(path)), {
        ...thread(address),
        ...captionOf(caption),
      });
      return { messageId: String(sent.message_id) };
    } catch (error) {
      throw toSendError(error, "sendPhoto");
    }
  }

  /** Ogg/Opus goes as a voice note and MP3 as audio (what text_to_speech writes); anything else as a document. */
  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    const method = audioMethod(path) ?? "sendDocument";
    try {
      const file = new InputFile(path, basename(path));
      const options = { ...thread(address), ...captionOf(caption) };
      const sent =
        method === "sendVoice"
          ? await this.bot.api.sendVoice(address.chatId, file, options)
          : method === "sendAudio"
            ? await this.bot.api.sendAudio(address.chatId, file, options)
            : await this.bot.api.sendDocument(address.chatId, file, options);
      return { messageId: String(sent.message_id) };
    } catch (error) {
      throw toSendError(error, method);
    }
  }

  async askApproval(prompt: ApprovalPrompt): Promise<SentMessage> {
    const text = [
      `⚠ *${escapeText("I want to run a command that needs your approval")}* ${escapeText(`(${prompt.reason}):`)}`,
      `\`\`\`\n${escapeCode(prompt.command)}\n\`\`\``,
    ].join("\n");
    return this.sendPrompt(prompt, text, approvalKeyboard());
  }

  async askQuestion(prompt: QuestionPrompt): Promise<SentMessage> {
    const text = `❓ ${toMarkdownV2(prompt.question)}`;
    return this.sendPrompt(prompt, text, questionKeyboard(prompt.choices), prompt.choices);
  }

  formatMarkdown(text: string): string {
    return toMarkdownV2(text);
  }

  private async sendPrompt(
    address: ChatAddress,
    text: string,
    keyboard: InlineKeyboardMarkup,
    choices?: string[],
  ): Promise<SentMessage> {
    const sent = await this.withPlainFallback("sendMessage", text, (body) =>
      this.bot.api.sendMessage(address.chatId, body.text, { ...body, ...thread(address), reply_markup: keyboard }),
    );
    const messageId = String(sent.message_id);
    this.prompts.add(address.chatId, messageId, { text, ...(choices ? { choices } : {}) });
    return { messageId };
  }

  /** A button press: acknowledged, shown on the prompt (keyboard removed), then handed on as text. */
  private async handlePress(query: CallbackQuery): Promise<void> {
    const message = query.message;
    const answer = (text: string) =>
      this.bot.api.answerCallbackQuery(query.id, { text }).catch((error: unknown) => {
        this.log(`telegram: answering a button press failed: ${describeError(error, this.options.token)}`);
      });
    if (!message || !query.data) return void (await answer("This button no longer works."));
    const chatId = String(message.chat.id);
    const messageId = String(message.message_id);
    const { first, prompt } = this.prompts.decide(chatId, messageId);
    const keyboard = "reply_markup" in message ? message.reply_markup : undefined;
    const press = first ? readPress(query.data, prompt, keyboard) : undefined;
    if (!press) return void (await answer(first ? "This button no longer works." : "This was already answered."));
    await answer(press.outcome);
    const who = query.from.username ? `@${query.from.username}` : query.from.first_name;
    const shown = prompt?.text ?? escapeText("text" in message && message.text ? message.text : "");
    await this.withPlainFallback(
      "editMessageText",
      `${shown}\n\n${escapeText(`→ ${press.outcome} by ${who}`)}`,
      (body) =>
        this.bot.api.editMessageText(chatId, message.message_id, body.text, {
          ...body,
          reply_markup: { inline_keyboard: [] },
        }),
    ).catch((error: unknown) => {
      this.log(`telegram: could not mark the prompt answered: ${describeError(error, this.options.token)}`);
    });
    const threadId = "is_topic_message" in message ? topicOf(message) : undefined;
    this.events?.inbound({
      platform: this.platform,
      chatId,
      chatType: chatTypeOf(message.chat),
      ...(threadId ? { threadId } : {}),
      userId: String(query.from.id),
      ...(query.from.username ? { userName: query.from.username } : {}),
      text: press.text,
      messageId: `cb:${query.id}`,
    });
  }

  /**
   * Sends as MarkdownV2; when Telegram cannot parse it, sends the same words as plain text, so a
   * formatting slip never loses a message.
   */
  private async withPlainFallback<T>(action: string, text: string, call: (body: TextBody) => Promise<T>): Promise<T> {
    const rendered = renderForTelegram(text);
    try {
      return await call({ text: rendered, parse_mode: "MarkdownV2" });
    } catch (error) {
      if (!isParseError(error)) throw isNotModified(error) ? error : toSendError(error, action);
      this.log(
        `telegram: ${action} could not be parsed as MarkdownV2 (${describeError(error, "")}); sent as plain text`,
      );
    }
    try {
      return await call({ text: markdownV2ToPlain(rendered) });
    } catch (error) {
      throw isNotModified(error) ? error : toSendError(error, action);
    }
  }
}

/** How Telegram takes an audio file: a voice note must be Ogg/Opus (an Ogg Vorbis file goes as a document). */
function audioMethod(path: string): "sendVoice" | "sendAudio" | undefined {
  const extension = extname(path).toLowerCase();
  if (extension === ".mp3" || extension === ".m4a") return "sendAudio";
  if (![".ogg", ".oga", ".opus"].includes(extension)) return undefined;
  try {
    const head = Buffer.alloc(64);
    const fd = openSync(path, "r");
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    return head.subarray(0, 4).toString("latin1") === "OggS" && head.includes("OpusHead") ? "sendVoice" : undefined;
  } catch {
    return undefined;
  }
}

function captionOf(caption: string | undefined): { caption?: string } {
  return caption ? { caption: caption.slice(0, MAX_CAPTION_LENGTH) } : {};
}
