/**
 * The Bot API methods the fake answers, over an in-memory world of chats, messages and files.
 * Each method checks its input the way Telegram does and fails with Telegram's own descriptions.
 */
import type { UploadedFile } from "./body.js";
import type { DraftFrame } from "./drafts.js";
import { EntityParseError, type MessageEntity, parseMarkdownV2 } from "./markdown-v2.js";

export interface FakeUser {
  id: number;
  is_bot?: boolean;
  first_name: string;
  username?: string;
}

export interface FakeChat {
  id: number;
  type: "private" | "group" | "supergroup";
  title?: string;
  is_forum?: boolean;
}

/** A message the bot sent, as it reads now. */
export interface BotMessage {
  chatId: number;
  messageId: number;
  threadId?: number;
  /** Plain text as shown (entities parsed out). */
  text: string;
  /** The text exactly as sent. */
  raw: string;
  parseMode?: string;
  /** The markdown of a rich message (sendRichMessage, or an edit with rich_message). */
  rich?: string;
  entities: MessageEntity[];
  replyMarkup?: unknown;
  replyTo?: number;
  document?: UploadedFile;
  photo?: UploadedFile;
  voice?: UploadedFile;
  audio?: UploadedFile;
  caption?: string;
  deleted: boolean;
  /** Texts of earlier versions, oldest first. */
  history: string[];
  date: number;
}

export interface StoredFile {
  fileId: string;
  uniqueId: string;
  path: string;
  bytes?: Buffer;
  size: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

export const MAX_TEXT = 4096;

export class TelegramWorld {
  readonly bot: FakeUser = { id: 7000001, is_bot: true, first_name: "Hermes", username: "hermes_test_bot" };
  readonly chats = new Map<number, FakeChat>();
  readonly messages: BotMessage[] = [];
  readonly files = new Map<string, StoredFile>();
  readonly callbackIds = new Set<string>();
  /** Every draft shown (sendMessageDraft, sendRichMessageDraft), in order. */
  readonly drafts: DraftFrame[] = [];
  private readonly nextMessageId = new Map<number, number>();
  private fileCounter = 0;

  messageId(chatId: number): number {
    const id = this.nextMessageId.get(chatId) ?? 1;
    this.nextMessageId.set(chatId, id + 1);
    return id;
  }

  addFile(size: number, bytes?: Buffer, extension = "dat"): StoredFile {
    const n = ++this.fileCounter;
    const file = { fileId: `file-${n}`, uniqueId: `u${n}`, path: `documents/file_${n}.${extension}`, size, bytes };
    this.files.set(file.fileId, file);
    return file;
  }

  chatOf(params: Record<string, unknown>): FakeChat {
    const chat = this.chats.get(Number(params.chat_id));
    if (!chat) throw new ApiError(400, "Bad Request: chat not found");
    return chat;
  }

  messageOf(params: Record<string, unknown>, missing: string): BotMessage {
    const chat = this.chatOf(params);
    const found = this.messages.find((m) => m.chatId === chat.id && m.messageId === Number(params.message_id));
    if (!found || found.deleted) throw new ApiError(400, `Bad Request: ${missing}`);
    return found;
  }

  /** The text as Telegram would show it, or the error it answers with. */
  render(raw: unknown, parseMode: unknown): { text: string; entities: MessageEntity[] } {
    if (typeof raw !== "string" || raw.length === 0) throw new ApiError(400, "Bad Request: message text is empty");
    let parsed: { text: string; entities: MessageEntity[] } = { text: raw, entities: [] };
    if (parseMode === "MarkdownV2") {
      try {
        parsed = parseMarkdownV2(raw);
      } catch (error) {
        if (error instanceof EntityParseError) throw new ApiError(400, error.message);
        throw error;
      }
    } else if (parseMode !== undefined) {
      throw new ApiError(400, `Bad Request: unsupported parse_mode ${String(parseMode)}`);
    }
    if (parsed.text.trim().length === 0) throw new ApiError(400, "Bad Request: message text is empty");
    if (parsed.text.length > MAX_TEXT) throw new ApiError(400, "Bad Request: message is too long");
    return parsed;
  }

  /** A Bot API Message object for one of the bot's messages. */
  wire(message: BotMessage): Record<string, unknown> {
    const chat = this.chats.get(message.chatId);
    return {
      message_id: message.messageId,
      date: message.date,
      chat,
      from: this.bot,
      ...(message.threadId ? { message_thread_id: message.threadId, is_topic_message: true } : {}),
      ...(message.photo || message.document || message.voice || message.audio
        ? { caption: message.caption }
        : message.rich !== undefined
          ? { rich_message: { blocks: [{ type: "paragraph", text: message.rich }] } }
          : { text: message.text, ...(message.entities.length ? { entities: message.entities } : {}) }),
      ...(message.document
        ? { document: { file_id: "doc", file_unique_id: "doc", file_name: message.document.filename } }
        : {}),
      ...(message.photo ? { photo: [{ file_id: "photo", file_unique_id: "photo", width: 1, height: 1 }] } : {}),
      ...(message.voice ? { voice: { file_id: "voice", file_unique_id: "voice", duration: 1 } } : {}),
      ...(message.audio ? { audio: { file_id: "audio", file_unique_id: "audio", duration: 1 } } : {}),
      ...(message.replyMarkup ? { reply_markup: message.replyMarkup } : {}),
    };
  }

  send(
    params: Record<string, unknown>,
    files: Record<string, UploadedFile>,
    kind: "text" | "photo" | "document" | "voice" | "audio",
  ) {
    const chat = this.chatOf(params);
    const base = {
      chatId: chat.id,
      messageId: 0,
      deleted: false,
      history: [],
      date: Math.floor(Date.now() / 1000),
      ...(params.message_thread_id ? { threadId: Number(params.message_thread_id) } : {}),
      ...(params.reply_markup ? { replyMarkup: params.reply_markup } : {}),
    };
    const replyTo = (params.reply_parameters as { message_id?: number } | undefined)?.message_id;
    let message: BotMessage;
    if (kind === "text") {
      const rendered = this.render(params.text, params.parse_mode);
      message = {
        ...base,
        raw: params.text as string,
        text: rendered.text,
        entities: rendered.entities,
        ...(typeof params.parse_mode === "string" ? { parseMode: params.parse_mode } : {}),
        ...(replyTo ? { replyTo } : {}),
      };
    } else {
      const upload = attached(params[kind], files);
      const caption = typeof params.caption === "string" ? params.caption : undefined;
      message = { ...base, raw: caption ?? "", text: caption ?? "", entities: [], [kind]: upload };
      if (caption !== undefined) message.caption = caption;
    }
    message.messageId = this.messageId(chat.id);
    this.messages.push(message);
    return this.wire(message);
  }

  editText(params: Record<string, unknown>) {
    const message = this.messageOf(params, "message to edit not found");
    const rendered = this.render(params.text, params.parse_mode);
    const markup = params.reply_markup;
    if (rendered.text === message.text && JSON.stringify(markup) === JSON.stringify(message.replyMarkup)) {
      throw new ApiError(
        400,
        "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
      );
    }
    message.history.push(message.text);
    message.text = rendered.text;
    message.raw = params.text as string;
    message.entities = rendered.entities;
    const empty = !markup || (markup as { inline_keyboard?: unknown[] }).inline_keyboard?.length === 0;
    if (empty) delete message.replyMarkup;
    else message.replyMarkup = markup;
    return this.wire(message);
  }

  editMarkup(params: Record<string, unknown>) {
    const message = this.messageOf(params, "message to edit not found");
    const markup = params.reply_markup as { inline_keyboard?: unknown[] } | undefined;
    if (!markup || markup.inline_keyboard?.length === 0) delete message.replyMarkup;
    else message.replyMarkup = markup;
    return this.wire(message);
  }

  delete(params: Record<string, unknown>) {
    this.messageOf(params, "message to delete not found").deleted = true;
    return true;
  }

  getFile(params: Record<string, unknown>) {
    const file = this.files.get(String(params.file_id));
    if (!file) throw new ApiError(400, "Bad Request: invalid file_id");
    if (file.size > 20 * 1024 * 1024) throw new ApiError(400, "Bad Request: file is too big");
    return { file_id: file.fileId, file_unique_id: file.uniqueId, file_size: file.size, file_path: file.path };
  }
}

/** A file field: an upload named by `attach://<part>`, or the bytes given directly. */
function attached(value: unknown, files: Record<string, UploadedFile>): UploadedFile {
  if (typeof value === "string" && value.startsWith("attach://")) {
    const file = files[value.slice("attach://".length)];
    if (file) return file;
  }
  throw new ApiError(400, "Bad Request: there is no file in the request");
}
