/**
 * Message drafts (Bot API 9.3: `sendMessageDraft`) and rich messages (Bot API 10.1:
 * `sendRichMessage`, `sendRichMessageDraft`, `editMessageText` with `rich_message`) in the fake.
 * A draft leaves no message behind: each call is kept as a frame of what the chat saw. A rich
 * message is one of the bot's messages whose `rich` holds the markdown it was given.
 */
import { ApiError, type BotMessage, type TelegramWorld } from "./methods.js";

export const RICH_MAX_LENGTH = 32_768;

/** What one draft call showed. */
export interface DraftFrame {
  chatId: number;
  draftId: number;
  threadId?: number;
  /** The text as shown (entities parsed out), or the markdown of a rich draft. */
  text: string;
  rich: boolean;
  /** `performance.now()` when it arrived. */
  atHr: number;
}

/** Answers one of the draft and rich methods; undefined when `method` is none of them. */
export function invokeDraftOrRich(world: TelegramWorld, method: string, params: Record<string, unknown>): unknown {
  switch (method) {
    case "sendMessageDraft":
      return draft(world, params, false);
    case "sendRichMessageDraft":
      return draft(world, params, true);
    case "sendRichMessage":
      return sendRich(world, params);
    case "editMessageText":
      return params.rich_message === undefined ? undefined : editRich(world, params);
    default:
      return undefined;
  }
}

function draft(world: TelegramWorld, params: Record<string, unknown>, rich: boolean): true {
  const chat = world.chatOf(params);
  if (chat.type !== "private") throw new ApiError(400, "Bad Request: drafts can be sent only to private chats");
  const draftId = params.draft_id;
  if (typeof draftId !== "number" || !Number.isInteger(draftId) || draftId === 0) {
    throw new ApiError(400, "Bad Request: draft_id must be a non-zero integer");
  }
  let text = "";
  if (rich) text = markdownOf(params.rich_message);
  else if (typeof params.text === "string" && params.text !== "")
    text = world.render(params.text, params.parse_mode).text;
  world.drafts.push({
    chatId: chat.id,
    draftId,
    ...(params.message_thread_id ? { threadId: Number(params.message_thread_id) } : {}),
    text,
    rich,
    atHr: performance.now(),
  });
  return true;
}

function sendRich(world: TelegramWorld, params: Record<string, unknown>) {
  const chat = world.chatOf(params);
  const markdown = markdownOf(params.rich_message);
  const replyTo = (params.reply_parameters as { message_id?: number } | undefined)?.message_id;
  const message: BotMessage = {
    chatId: chat.id,
    messageId: world.messageId(chat.id),
    ...(params.message_thread_id ? { threadId: Number(params.message_thread_id) } : {}),
    text: markdown,
    raw: markdown,
    rich: markdown,
    entities: [],
    ...(replyTo ? { replyTo } : {}),
    deleted: false,
    history: [],
    date: Math.floor(Date.now() / 1000),
  };
  world.messages.push(message);
  return world.wire(message);
}

function editRich(world: TelegramWorld, params: Record<string, unknown>) {
  const message = world.messageOf(params, "message to edit not found");
  const markdown = markdownOf(params.rich_message);
  if (message.rich === markdown) throw new ApiError(400, "Bad Request: message is not modified");
  message.history.push(message.text);
  message.text = markdown;
  message.raw = markdown;
  message.rich = markdown;
  message.entities = [];
  delete message.parseMode;
  return world.wire(message);
}

/** An InputRichMessage given as markdown, checked as Telegram checks it. */
function markdownOf(value: unknown): string {
  const input = (value ?? {}) as { markdown?: unknown; html?: unknown; blocks?: unknown };
  const given = [input.markdown, input.html, input.blocks].filter((field) => field !== undefined);
  if (given.length !== 1) throw new ApiError(400, "Bad Request: exactly one of markdown, html or blocks must be set");
  if (typeof input.markdown !== "string") throw new ApiError(400, "Bad Request: only markdown is supported here");
  if (input.markdown.trim() === "") throw new ApiError(400, "Bad Request: message text is empty");
  if (input.markdown.length > RICH_MAX_LENGTH) throw new ApiError(400, "Bad Request: rich message is too long");
  return input.markdown;
}
