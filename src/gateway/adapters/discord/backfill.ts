/**
 * The chat that led up to a message in a server channel or thread (`discord.history_backfill`):
 * read with GET /channels/{id}/messages?before=<message>, newest first, up to 100 a page, back to
 * the bot's own last message there or `discord.history_backfill_limit` messages. Left out:
 * messages the receiving session was already given, and system messages. Attachments are named,
 * never downloaded; secrets are masked; the newest BACKFILL_MAX_CHARS characters are kept.
 * Reading is best effort: a refusal (403 without View Channel; without Read Message History
 * Discord answers with no messages), a rate limit or a slow answer leaves the message without
 * context after at most BACKFILL_TIMEOUT_MS, with one log line.
 */
import { type APIMessage, MessageType } from "discord.js";
import { redactSecrets } from "../../../util/redact.js";
import type { EarlierMessage, InboundMessage } from "../../types.js";
import { toSendError } from "./errors.js";
import type { DiscordRules } from "./inbound.js";

export const BACKFILL_MAX_CHARS = 8000;
export const BACKFILL_TIMEOUT_MS = 3000;
/** Discord's largest page. */
const PAGE_SIZE = 100;
/** One message's share, so a single long one cannot crowd out the rest. */
const MAX_MESSAGE_CHARS = 2000;
const REMEMBERED_SESSIONS = 500;
const REMEMBERED_PER_SESSION = 200;
const CHAT_TYPES = new Set<number>([MessageType.Default, MessageType.Reply]);

/** One page of a channel's history before a message, newest first. */
export type HistoryPage = (
  channelId: string,
  before: string,
  limit: number,
  signal: AbortSignal,
) => Promise<APIMessage[]>;

export interface BackfillRequest {
  channelId: string;
  /** The message the history leads up to (not included). */
  before: string;
  botId: string;
  /** How many messages back to read at most. */
  limit: number;
  /** Whether the receiving session already has this message. */
  seen: (messageId: string) => boolean;
}

/** The earlier chat, oldest first; rejects when Discord refuses or does not answer in time. */
export async function readEarlierChat(
  page: HistoryPage,
  request: BackfillRequest,
  timeoutMs = BACKFILL_TIMEOUT_MS,
): Promise<EarlierMessage[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`Discord did not answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([collect(page, request, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function collect(page: HistoryPage, request: BackfillRequest, signal: AbortSignal): Promise<EarlierMessage[]> {
  const newestFirst: EarlierMessage[] = [];
  let before = request.before;
  let read = 0;
  while (read < request.limit) {
    const want = Math.min(PAGE_SIZE, request.limit - read);
    const messages = await page(request.channelId, before, want, signal);
    for (const message of messages) {
      if (message.author.id === request.botId) return newestWithinCap(newestFirst);
      const earlier = request.seen(message.id) ? undefined : earlierOf(message);
      if (earlier) newestFirst.push(earlier);
    }
    read += messages.length;
    const oldest = messages.at(-1);
    if (messages.length < want || !oldest) break;
    before = oldest.id;
  }
  return newestWithinCap(newestFirst);
}

function newestWithinCap(newestFirst: EarlierMessage[]): EarlierMessage[] {
  const kept: EarlierMessage[] = [];
  let total = 0;
  for (const message of newestFirst) {
    total += message.text.length + (message.userName?.length ?? 0) + 4;
    if (total > BACKFILL_MAX_CHARS) break;
    kept.push(message);
  }
  return kept.reverse();
}

function earlierOf(message: APIMessage): EarlierMessage | undefined {
  if (!CHAT_TYPES.has(message.type)) return undefined;
  const files = message.attachments.map((file) => `[attachment: ${file.filename}]`);
  const text = [withNamedMentions(message), ...files].filter((part) => part.trim()).join("\n");
  if (!text) return undefined;
  const sentAt = Date.parse(message.timestamp);
  return {
    userId: message.author.id,
    userName: displayName(message.author),
    text: redactSecrets(text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text),
    ...(Number.isFinite(sentAt) ? { sentAt } : {}),
  };
}

/** The name people see, with the account name when it differs, so both can be told apart. */
function displayName(author: APIMessage["author"]): string {
  const shown = author.global_name?.trim();
  return shown && shown !== author.username ? `${shown} (@${author.username})` : author.username;
}

/** `<@id>` as `@name` for the users the message mentions; other ids stay as they are. */
function withNamedMentions(message: APIMessage): string {
  const names = new Map(message.mentions.map((user) => [user.id, user.global_name || user.username]));
  return message.content.replace(/<@!?(\d+)>/g, (whole, id: string) => {
    const name = names.get(id);
    return name ? `@${name}` : whole;
  });
}

/** Backfills for the adapter: what each session was handed is remembered, so it is not repeated. */
export class ChatBackfill {
  private readonly delivered = new DeliveredMessages();

  constructor(
    private readonly page: HistoryPage,
    private readonly rules: Pick<DiscordRules, "historyBackfill" | "historyBackfillLimit">,
    private readonly log: (line: string) => void,
    private readonly timeoutMs = BACKFILL_TIMEOUT_MS,
  ) {}

  /**
   * The chat before a server message (posted in `channelId`) that its session has not seen; none
   * in DMs, for slash commands, or when reading fails. The message then counts as delivered.
   */
  async before(
    message: InboundMessage,
    channelId: string,
    sessionKey: string,
    botId: string,
  ): Promise<EarlierMessage[]> {
    const { historyBackfill, historyBackfillLimit } = this.rules;
    const wanted = message.chatType !== "dm" && historyBackfill && historyBackfillLimit > 0;
    const request: BackfillRequest = {
      channelId,
      before: message.messageId,
      botId,
      limit: historyBackfillLimit,
      seen: (id) => this.delivered.has(sessionKey, id),
    };
    try {
      return wanted && !message.text.startsWith("/") ? await readEarlierChat(this.page, request, this.timeoutMs) : [];
    } catch (error) {
      const why = toSendError(error, "reading the channel's history").message;
      this.log(`discord: message ${message.messageId} goes to the agent without the chat before it: ${why}`);
      return [];
    } finally {
      this.delivered.add(sessionKey, message.messageId);
    }
  }
}

/** The inbound messages already handed to each session, so a backfill does not repeat them (bounded). */
export class DeliveredMessages {
  private readonly bySession = new Map<string, Set<string>>();

  add(sessionKey: string, messageId: string): void {
    const ids = this.bySession.get(sessionKey) ?? new Set<string>();
    this.bySession.delete(sessionKey);
    this.bySession.set(sessionKey, ids);
    ids.add(messageId);
    if (ids.size > REMEMBERED_PER_SESSION) ids.delete(ids.values().next().value as string);
    if (this.bySession.size > REMEMBERED_SESSIONS) this.bySession.delete(this.bySession.keys().next().value as string);
  }

  has(sessionKey: string, messageId: string): boolean {
    return this.bySession.get(sessionKey)?.has(messageId) ?? false;
  }
}
