/**
 * Which Matrix room messages reach the agent, and as what. Direct messages always do. In other
 * rooms a message does when it mentions the bot (its user id or display name in the text, or
 * `m.mentions.user_ids`), when the room answers freely (`matrix.free_response_rooms`, or
 * `matrix.require_mention: false`), or when it continues a thread the bot already takes part in;
 * `matrix.allowed_rooms`, when set, keeps the bot out of every other room. The bot's own events,
 * notices (what other bots send, unless MATRIX_PROCESS_NOTICES), edits, appservice users (a local
 * part starting with `_`), senders matching MATRIX_IGNORE_USER_PATTERNS and anything that is not
 * a message never do.
 *
 * Threads: a room conversation lives in the thread (`m.thread`) of the event that started it, so
 * the thread id is the thread's root event, or the event's own id for a new mention (unless
 * MATRIX_AUTO_THREAD=false or MATRIX_SESSION_SCOPE=room keeps answers in the room itself). In DMs
 * a message already in a thread has its thread id; others start one only with
 * MATRIX_DM_AUTO_THREAD (every message) or MATRIX_DM_MENTION_THREADS (one mentioning the bot).
 */
import type { Attachment, InboundMessage } from "../../types.js";

/** A room event as `/sync` delivers it (the fields read here). */
export interface MatrixEvent {
  event_id?: string;
  type?: string;
  sender?: string;
  state_key?: string;
  origin_server_ts?: number;
  content?: Record<string, unknown>;
}

export interface MatrixRoomRules {
  requireMention: boolean;
  freeResponseRooms: ReadonlySet<string>;
  /** Empty: every room the bot is in. */
  allowedRooms: ReadonlySet<string>;
  /** Answer a room mention in a thread under it (MATRIX_AUTO_THREAD, default true). */
  replyInThreads: boolean;
  /** Senders never listened to (MATRIX_IGNORE_USER_PATTERNS: bridge ghosts such as `^@telegram_`). */
  ignoreUsers?: readonly RegExp[];
  /** Read `m.notice` messages too (MATRIX_PROCESS_NOTICES; off: notices are what bots send). */
  processNotices?: boolean;
  /** In DMs, answer every message in a thread under it (MATRIX_DM_AUTO_THREAD, default false). */
  dmThreads?: boolean;
  /** In DMs, answer a message that mentions the bot in a thread under it (MATRIX_DM_MENTION_THREADS). */
  dmMentionThreads?: boolean;
}

export interface BotIdentity {
  userId: string;
  displayName: string;
}

/** A file a message carries, named by its `mxc://` address. */
export interface MatrixFile {
  mxc: string;
  name: string;
  kind: Attachment["kind"];
  mimeType?: string;
  size?: number;
}

export type MessageVerdict =
  | { accepted: false; why: string }
  | { accepted: true; message: InboundMessage; file?: MatrixFile; threadKey?: string };

const FILE_KINDS: Record<string, Attachment["kind"]> = {
  "m.file": "file",
  "m.image": "image",
  "m.audio": "audio",
  "m.video": "video",
};

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The bot's user id, or its display name as a word of its own (a trailing `:` or `,` goes with it). */
function mentionPatterns(bot: BotIdentity): RegExp[] {
  const patterns = [new RegExp(`${escapeRegExp(bot.userId)}(?![\\w.:-])[:,]?`, "gi")];
  const name = bot.displayName.trim();
  if (name) patterns.push(new RegExp(`(?<![\\w@])@?${escapeRegExp(name)}(?![\\w-])[:,]?`, "gi"));
  return patterns;
}

export function mentionsBot(body: string, content: Record<string, unknown>, bot: BotIdentity): boolean {
  const ids = record(content["m.mentions"]).user_ids;
  if (Array.isArray(ids) && ids.includes(bot.userId)) return true;
  return mentionPatterns(bot).some((pattern) => new RegExp(pattern.source, "i").test(body));
}

/** The text as the user wrote it: the bot's mention and a reply's quoted fallback taken out. */
export function plainText(body: string, bot: BotIdentity, isReply = false): string {
  let text = body;
  if (isReply && text.startsWith("> ")) {
    const lines = text.split("\n");
    const firstOwn = lines.findIndex((line) => !line.startsWith(">"));
    text = firstOwn < 0 ? "" : lines.slice(firstOwn).join("\n");
  }
  for (const pattern of mentionPatterns(bot)) text = text.replaceAll(pattern, "");
  return text.replaceAll(/[ \t]{2,}/g, " ").trim();
}

function fileOf(msgtype: string, content: Record<string, unknown>): MatrixFile | undefined {
  const kind = FILE_KINDS[msgtype];
  const url = content.url;
  if (!kind || typeof url !== "string" || !url.startsWith("mxc://")) return undefined;
  const info = record(content.info);
  const name =
    typeof content.filename === "string" && content.filename
      ? content.filename
      : typeof content.body === "string"
        ? content.body
        : "";
  return {
    mxc: url,
    name,
    kind,
    ...(typeof info.mimetype === "string" ? { mimeType: info.mimetype } : {}),
    ...(typeof info.size === "number" ? { size: info.size } : {}),
  };
}

/** The text of a file message: its caption, when the body is not just the file name. */
function captionOf(content: Record<string, unknown>): string {
  const body = typeof content.body === "string" ? content.body : "";
  return typeof content.filename === "string" && content.filename && content.filename !== body ? body : "";
}

/** Why a sender is never listened to (an appservice user, MATRIX_IGNORE_USER_PATTERNS), or undefined. */
export function ignoredSender(sender: string | undefined, rules: MatrixRoomRules): string | undefined {
  if (!sender) return undefined;
  if (sender.startsWith("@_")) return "an appservice user";
  if (rules.ignoreUsers?.some((pattern) => pattern.test(sender))) return "sender matches MATRIX_IGNORE_USER_PATTERNS";
  return undefined;
}

export function judgeMessage(
  roomId: string,
  event: MatrixEvent,
  context: {
    bot: BotIdentity;
    rules: MatrixRoomRules;
    isDm: boolean;
    roomName?: string | undefined;
    activeThreads: { has(key: string): boolean };
  },
): MessageVerdict {
  if (event.type !== "m.room.message") return { accepted: false, why: `event ${event.type}` };
  const { event_id: id, sender } = event;
  if (typeof id !== "string" || !id || typeof sender !== "string" || !sender) {
    return { accepted: false, why: "no event id or sender" };
  }
  if (sender === context.bot.userId) return { accepted: false, why: "the bot's own message" };
  const ignored = ignoredSender(sender, context.rules);
  if (ignored) return { accepted: false, why: ignored };
  const content = record(event.content);
  const relation = record(content["m.relates_to"]);
  if (relation.rel_type === "m.replace") return { accepted: false, why: "an edit" };
  const msgtype = typeof content.msgtype === "string" ? content.msgtype : "";
  const file = fileOf(msgtype, content);
  const notice = msgtype === "m.notice" && context.rules.processNotices === true;
  if (msgtype !== "m.text" && msgtype !== "m.emote" && !notice && !file) {
    return { accepted: false, why: `msgtype ${msgtype}` };
  }
  const body = typeof content.body === "string" ? content.body : "";
  const rootId =
    relation.rel_type === "m.thread" && typeof relation.event_id === "string" && relation.event_id
      ? relation.event_id
      : undefined;
  const isReply = typeof record(relation["m.in_reply_to"]).event_id === "string";
  const base = {
    platform: "matrix",
    chatId: roomId,
    userId: sender,
    text: plainText(file ? captionOf(content) : body, context.bot, isReply),
    messageId: id,
    ...(typeof event.origin_server_ts === "number" ? { sentAt: event.origin_server_ts } : {}),
  };
  const withFile = file ? { file } : {};
  if (context.isDm) {
    const { rules } = context;
    const startsThread =
      rules.dmThreads === true || (rules.dmMentionThreads === true && mentionsBot(body, content, context.bot));
    const threadId = rootId ?? (startsThread ? id : undefined);
    return {
      accepted: true,
      message: { ...base, chatType: "dm", ...(threadId ? { threadId } : {}) },
      ...withFile,
    };
  }
  const { rules } = context;
  if (rules.allowedRooms.size > 0 && !rules.allowedRooms.has(roomId)) {
    return { accepted: false, why: "room not in matrix.allowed_rooms" };
  }
  const threadKey = `${roomId}:${rootId ?? id}`;
  const mentioned = mentionsBot(body, content, context.bot);
  const free = !rules.requireMention || rules.freeResponseRooms.has(roomId);
  const continuing = rootId !== undefined && context.activeThreads.has(threadKey);
  if (!mentioned && !free && !continuing) return { accepted: false, why: "does not mention the bot" };
  const threadId = rootId ?? (rules.replyInThreads ? id : undefined);
  const roomName = context.roomName?.trim();
  return {
    accepted: true,
    message: {
      ...base,
      chatType: "group",
      ...(threadId ? { threadId } : {}),
      ...(roomName ? { chatName: roomName } : {}),
    },
    ...withFile,
    threadKey,
  };
}
