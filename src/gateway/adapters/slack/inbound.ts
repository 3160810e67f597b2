/**
 * Which Slack events reach the agent, and as what. Direct messages always do. In channels a
 * message does when it mentions the app, when the channel answers freely
 * (`slack.free_response_channels`, or `slack.require_mention: false`), or when it continues a
 * thread the app already takes part in. Bot messages (the app's own included), edits, deletions
 * and other subtypes never do.
 *
 * Threads: a channel conversation lives in the thread of the message that started it, so the
 * thread id is the message's `thread_ts`, or its own `ts` when it started the thread. In DMs the
 * main conversation has no thread id; a reply inside a DM thread carries that thread's `ts`.
 */
import type { ChatType, InboundMessage } from "../../types.js";

export interface SlackChannelRules {
  requireMention: boolean;
  freeResponseChannels: ReadonlySet<string>;
  /** Empty: every channel the app is in. */
  allowedChannels: ReadonlySet<string>;
}

export interface SlackFile {
  id?: string;
  name?: string;
  mimetype?: string;
  size?: number;
  mode?: string;
  url_private_download?: string;
  url_private?: string;
}

export interface SlackMessageEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  files?: SlackFile[];
}

/** Subtypes that are still a person writing; every other subtype is an edit, a join, a bot... */
const PERSON_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast"]);
const SLACK_ID = /^[A-Z0-9]{2,30}$/i;
const TS = /^\d{1,12}\.\d{1,9}$/;

export function chatTypeOf(channel: string, channelType?: string): ChatType {
  if (channelType === "im" || (!channelType && channel.startsWith("D"))) return "dm";
  if (channelType === "channel" || (!channelType && channel.startsWith("C"))) return "channel";
  return "group";
}

/** The text as the user wrote it: the app's mention removed, Slack's escapes undone. */
export function plainText(text: string, botUserId: string): string {
  return text
    .replaceAll(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, "g"), "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&")
    .replaceAll(/[ \t]{2,}/g, " ")
    .trim();
}

export type EventVerdict =
  | { accepted: false; why: string }
  | { accepted: true; message: InboundMessage; files: SlackFile[]; threadKey?: string };

export function judgeEvent(
  event: SlackMessageEvent,
  context: { botUserId: string; rules: SlackChannelRules; activeThreads: { has(key: string): boolean } },
): EventVerdict {
  if (event.type !== "message" && event.type !== "app_mention") return { accepted: false, why: "not a message" };
  if (!PERSON_SUBTYPES.has(event.subtype)) return { accepted: false, why: `subtype ${event.subtype}` };
  if (event.bot_id) return { accepted: false, why: "sent by a bot" };
  const { channel, user, ts } = event;
  if (!channel || !SLACK_ID.test(channel) || !user || !SLACK_ID.test(user) || !ts || !TS.test(ts)) {
    return { accepted: false, why: "missing channel, user or ts" };
  }
  if (user === context.botUserId) return { accepted: false, why: "the app's own message" };
  const threadTs = event.thread_ts && TS.test(event.thread_ts) ? event.thread_ts : undefined;
  const chatType = chatTypeOf(channel, event.channel_type);
  const rawText = typeof event.text === "string" ? event.text : "";
  const files = Array.isArray(event.files) ? event.files.filter((file) => file && file.mode !== "tombstone") : [];
  const base = {
    platform: "slack",
    chatId: channel,
    userId: user,
    text: plainText(rawText, context.botUserId),
    messageId: ts,
    sentAt: Math.round(Number(ts) * 1000),
  };
  if (chatType === "dm") {
    return {
      accepted: true,
      message: { ...base, chatType, ...(threadTs ? { threadId: threadTs } : {}) },
      files,
    };
  }
  const { rules } = context;
  if (rules.allowedChannels.size > 0 && !rules.allowedChannels.has(channel)) {
    return { accepted: false, why: "channel not in slack.allowed_channels" };
  }
  const threadId = threadTs ?? ts;
  const threadKey = `${channel}:${threadId}`;
  const mentioned = event.type === "app_mention" || rawText.includes(`<@${context.botUserId}`);
  const free = !rules.requireMention || rules.freeResponseChannels.has(channel);
  const continuing = threadTs !== undefined && context.activeThreads.has(threadKey);
  if (!mentioned && !free && !continuing) return { accepted: false, why: "does not mention the app" };
  return { accepted: true, message: { ...base, chatType, threadId }, files, threadKey };
}
