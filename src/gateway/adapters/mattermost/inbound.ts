/**
 * Which Mattermost posts reach the agent, and as what. Direct messages always do. In channels
 * (public, private, group messages) a post does when it mentions the bot, when the channel
 * answers freely (`mattermost.free_response_channels`, or `mattermost.require_mention: false`),
 * or when it continues a thread the bot already takes part in; `mattermost.allowed_channels`,
 * when set, keeps the bot out of every other channel. The bot's own posts, other bots' and
 * webhooks' posts, and system posts (joins, header changes) never do.
 *
 * Threads: a channel conversation lives in the thread of the post that started it, so the thread
 * id is the post's `root_id`, or its own id when it is a top-level post (unless replies are kept
 * flat). In DMs the main conversation has no thread id; a reply inside a DM thread has its root.
 */
import type { ChatType, InboundMessage } from "../../types.js";
import type { MattermostPost } from "./rest.js";
import type { MattermostEvent } from "./socket.js";

export interface MattermostChannelRules {
  requireMention: boolean;
  freeResponseChannels: ReadonlySet<string>;
  /** Empty: every channel the bot is in. */
  allowedChannels: ReadonlySet<string>;
  /** Answer a top-level channel post in a thread under it (MATTERMOST_REPLY_MODE=thread). */
  replyInThreads: boolean;
}

export interface BotIdentity {
  userId: string;
  username: string;
}

export type PostedVerdict =
  | { accepted: false; why: string }
  | { accepted: true; message: InboundMessage; fileIds: string[]; threadKey?: string };

/** Mattermost ids: 26 lowercase letters and digits. */
export const MATTERMOST_ID = /^[a-z0-9]{26}$/;
const MAX_FILES = 10;

export function chatTypeOf(channelType: unknown): ChatType {
  if (channelType === "D") return "dm";
  if (channelType === "O") return "channel";
  // Group messages (G) and private channels (P).
  return "group";
}

const truthy = (value: unknown) => value === true || value === "true";

function parsePost(raw: unknown): MattermostPost | undefined {
  if (typeof raw !== "string") return undefined;
  try {
    const post = JSON.parse(raw) as MattermostPost;
    return post && typeof post === "object" ? post : undefined;
  } catch {
    return undefined;
  }
}

/** The user ids the server says a post mentions (`data.mentions`, a JSON array as a string). */
function mentionedIds(raw: unknown): string[] {
  if (typeof raw !== "string") return [];
  try {
    const ids = JSON.parse(raw) as unknown;
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `@username` as a word of its own (a trailing full stop still counts). */
function mentionPattern(username: string): RegExp {
  return new RegExp(`(^|[^\\w.@-])@${escapeRegExp(username)}(?![\\w-])`, "gi");
}

/** The text as the user wrote it, with the bot's mention taken out. */
export function plainText(text: string, username: string): string {
  const stripped = username ? text.replaceAll(mentionPattern(username), "$1") : text;
  return stripped.replaceAll(/[ \t]{2,}/g, " ").trim();
}

export function judgePosted(
  event: MattermostEvent,
  context: { bot: BotIdentity; rules: MattermostChannelRules; activeThreads: { has(key: string): boolean } },
): PostedVerdict {
  if (event.event !== "posted") return { accepted: false, why: `event ${event.event}` };
  const data = event.data ?? {};
  const post = parsePost(data.post);
  if (!post) return { accepted: false, why: "no readable post" };
  if (post.type) return { accepted: false, why: `system post ${post.type}` };
  const { id, channel_id: channel, user_id: user } = post;
  if (!MATTERMOST_ID.test(id ?? "") || !MATTERMOST_ID.test(channel ?? "") || !MATTERMOST_ID.test(user ?? "")) {
    return { accepted: false, why: "missing post, channel or user id" };
  }
  if (user === context.bot.userId) return { accepted: false, why: "the bot's own post" };
  if (truthy(post.props?.from_bot) || truthy(post.props?.from_webhook)) {
    return { accepted: false, why: "posted by a bot or webhook" };
  }
  const rootId = post.root_id && MATTERMOST_ID.test(post.root_id) ? post.root_id : undefined;
  const chatType = chatTypeOf(data.channel_type);
  const rawText = typeof post.message === "string" ? post.message : "";
  const senderName = typeof data.sender_name === "string" ? data.sender_name.replace(/^@/, "").trim() : "";
  const fileIds = (Array.isArray(post.file_ids) ? post.file_ids : [])
    .filter((fileId) => MATTERMOST_ID.test(fileId))
    .slice(0, MAX_FILES);
  const base = {
    platform: "mattermost",
    chatId: channel as string,
    userId: user as string,
    ...(senderName ? { userName: senderName } : {}),
    text: plainText(rawText, context.bot.username),
    messageId: id,
    ...(typeof post.create_at === "number" ? { sentAt: post.create_at } : {}),
  };
  if (chatType === "dm") {
    return { accepted: true, message: { ...base, chatType, ...(rootId ? { threadId: rootId } : {}) }, fileIds };
  }
  const { rules } = context;
  if (rules.allowedChannels.size > 0 && !rules.allowedChannels.has(base.chatId)) {
    return { accepted: false, why: "channel not in mattermost.allowed_channels" };
  }
  const threadKey = `${base.chatId}:${rootId ?? id}`;
  const mentioned =
    mentionedIds(data.mentions).includes(context.bot.userId) ||
    (context.bot.username !== "" && mentionPattern(context.bot.username).test(rawText));
  const free = !rules.requireMention || rules.freeResponseChannels.has(base.chatId);
  const continuing = rootId !== undefined && context.activeThreads.has(threadKey);
  if (!mentioned && !free && !continuing) return { accepted: false, why: "does not mention the bot" };
  const threadId = rootId ?? (rules.replyInThreads ? id : undefined);
  const channelName = typeof data.channel_display_name === "string" ? data.channel_display_name.trim() : "";
  return {
    accepted: true,
    message: {
      ...base,
      chatType,
      ...(threadId ? { threadId } : {}),
      ...(channelName ? { chatName: channelName } : {}),
    },
    fileIds,
    threadKey,
  };
}
