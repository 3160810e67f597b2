/**
 * Which Discord messages the agent answers, and where. A DM is chat type `dm` with the DM
 * channel as chat. A guild text channel is chat type `channel`. A thread is chat type `thread`
 * with its parent channel as chat and the thread's own channel id as thread, so a thread is a
 * conversation of its own while channel allowlists name the parent; replies go to the thread.
 *
 * In guilds the bot answers only where `allowed_channels` lets it (empty: everywhere), and only
 * when mentioned unless the channel is a free-response one (`require_mention`), or, in threads,
 * unless `thread_require_mention` is off. Where no mention is needed, a message that mentions
 * someone else and not the bot is left to them (DISCORD_IGNORE_NO_MENTION, on by default). The
 * DISCORD_* variables of these settings win over config.yaml. The mention itself is removed from the text. Other
 * bots' messages get this far only as DISCORD_ALLOW_BOTS says (see access.ts), and with
 * `bots_require_inline_mention` only an inline mention counts as a bot mentioning this one.
 */
import type { Channel } from "discord.js";
import type { HermesConfig } from "../../../state/config-schema.js";
import type { ChatType } from "../../types.js";
import { envFlag, envList, idSet } from "../env-values.js";

export interface DiscordRules {
  requireMention: boolean;
  freeResponseChannels: Set<string>;
  allowedChannels: Set<string>;
  autoThread: boolean;
  threadRequireMention: boolean;
  reactions: boolean;
  allowAnyAttachment: boolean;
  maxAttachmentBytes: number;
  historyBackfill: boolean;
  historyBackfillLimit: number;
  botsRequireInlineMention: boolean;
  /** A message that mentions others and not the bot is not answered, even where no mention is needed. */
  ignoreNoMention: boolean;
}

export function rulesFrom(config: HermesConfig, env: Record<string, string | undefined> = {}): DiscordRules {
  const section = config.discord;
  const flag = (name: string) => envFlag("discord", name, env[name]);
  return {
    requireMention: flag("DISCORD_REQUIRE_MENTION") ?? section.require_mention,
    freeResponseChannels: idSet(envList(env.DISCORD_FREE_RESPONSE_CHANNELS) ?? section.free_response_channels),
    allowedChannels: idSet(envList(env.DISCORD_ALLOWED_CHANNELS) ?? section.allowed_channels),
    autoThread: flag("DISCORD_AUTO_THREAD") ?? section.auto_thread,
    threadRequireMention: flag("DISCORD_THREAD_REQUIRE_MENTION") ?? section.thread_require_mention,
    ignoreNoMention: flag("DISCORD_IGNORE_NO_MENTION") ?? true,
    reactions: section.reactions,
    allowAnyAttachment: section.allow_any_attachment,
    maxAttachmentBytes: section.max_attachment_bytes,
    historyBackfill: section.history_backfill,
    historyBackfillLimit: section.history_backfill_limit,
    botsRequireInlineMention: section.bots_require_inline_mention,
  };
}

/** Where a message was posted, as the core addresses chats. */
export interface ChatPlace {
  chatId: string;
  chatType: ChatType;
  threadId?: string;
}

/** The parts of a discord.js channel this module reads. */
export interface ChannelFacts {
  id: string;
  guildId: string | null;
  isThread: boolean;
  parentId: string | null;
}

export function channelFacts(channelId: string, guildId: string | null, channel: Channel | null): ChannelFacts {
  const thread = channel?.isThread() ? channel : undefined;
  return { id: channelId, guildId, isThread: Boolean(thread), parentId: thread?.parentId ?? null };
}

/** The guild channel's name (a thread's parent's); none in direct messages. */
export function chatNameOf(channel: Channel | null): string | undefined {
  if (!channel || channel.isDMBased()) return undefined;
  const named = channel.isThread() ? channel.parent : channel;
  return named && "name" in named && typeof named.name === "string" ? named.name : undefined;
}

export function placeOf(channel: ChannelFacts): ChatPlace {
  if (!channel.guildId) return { chatId: channel.id, chatType: "dm" };
  if (channel.isThread && channel.parentId) {
    return { chatId: channel.parentId, chatType: "thread", threadId: channel.id };
  }
  return { chatId: channel.id, chatType: "channel" };
}

/** The channel a reply to this chat goes to: the thread when there is one. */
export function targetChannel(address: { chatId: string; threadId?: string | null }): string {
  return address.threadId || address.chatId;
}

export type Verdict =
  | { answer: false; why: string }
  | {
      answer: true;
      text: string;
      /** A mention in a plain channel with `auto_thread` on: the reply goes to a new thread. */
      startThread: boolean;
    };

export function judge(
  place: ChatPlace,
  content: string,
  mentioned: boolean,
  botId: string,
  rules: DiscordRules,
  /** The message mentions other users or roles (a reply that pings its author counts). */
  mentionsOthers = false,
): Verdict {
  const text = stripMention(content, botId);
  if (place.chatType === "dm") return { answer: true, text, startThread: false };
  const channelIds = [place.chatId, place.threadId].filter((id): id is string => Boolean(id));
  if (rules.allowedChannels.size > 0 && !channelIds.some((id) => rules.allowedChannels.has(id))) {
    return { answer: false, why: "channel not in discord.allowed_channels" };
  }
  if (!mentioned && mentionsOthers && rules.ignoreNoMention) {
    return { answer: false, why: "addressed to someone else (DISCORD_IGNORE_NO_MENTION)" };
  }
  const free = channelIds.some((id) => rules.freeResponseChannels.has(id));
  const needsMention =
    place.chatType === "thread" ? rules.threadRequireMention && !free : rules.requireMention && !free;
  if (needsMention && !mentioned) return { answer: false, why: "not mentioned" };
  return { answer: true, text, startThread: place.chatType === "channel" && mentioned && rules.autoThread };
}

/**
 * Whether a message addresses the bot: Discord lists the bot among its mentions (an inline
 * `<@id>`, or the ping of a reply to one of the bot's messages). With
 * `bots_require_inline_mention`, another bot's message counts only with the inline form, so
 * two bots replying to each other do not keep waking each other.
 */
export function addressesBot(
  message: { content: string; fromBot: boolean; mentionsBot: boolean },
  botId: string,
  rules: Pick<DiscordRules, "botsRequireInlineMention">,
): boolean {
  if (message.fromBot && rules.botsRequireInlineMention) return new RegExp(`<@!?${botId}>`).test(message.content);
  return message.mentionsBot;
}

export function stripMention(content: string, botId: string): string {
  return content
    .replaceAll(new RegExp(`<@!?${botId}>`, "g"), " ")
    .replaceAll(/[ \t]{2,}/g, " ")
    .trim();
}

/** A thread name from the message that starts it (Discord allows 1–100 characters). */
export function threadName(text: string): string {
  const line = text.split("\n")[0]?.trim() ?? "";
  if (!line) return "Conversation";
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
