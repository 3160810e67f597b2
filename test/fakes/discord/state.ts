/**
 * What the fake Discord knows: one bot user, one guild with a text channel and a thread, DM
 * channels opened on demand, every message posted (with edits, deletions and reactions) and
 * every interaction callback. Payload builders produce the objects Discord's API returns.
 */

const DISCORD_EPOCH = 1_420_070_400_000n;
let counter = 0n;
let last = 0n;

/**
 * A snowflake as Discord makes them: milliseconds since 2015 in the high bits, a counter below.
 * Each is larger than the one before (as Discord's are), even when the counter wraps within a
 * millisecond, so ids order messages the way `before=` paging expects.
 */
export function snowflake(): string {
  counter = (counter + 1n) & 0xfffn;
  const made = ((BigInt(Date.now()) - DISCORD_EPOCH) << 22n) | counter;
  last = made > last ? made : last + 1n;
  return String(last);
}

export interface FakeUser {
  id: string;
  username: string;
  bot?: boolean;
}

export interface FakeChannel {
  id: string;
  /** 0 guild text, 1 DM, 11 public thread. */
  type: 0 | 1 | 11;
  name?: string;
  guildId?: string;
  parentId?: string;
  recipient?: FakeUser;
}

export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  contentType?: string;
  url: string;
}

export interface FakeMessage {
  id: string;
  channelId: string;
  author: FakeUser;
  content: string;
  /** Content after each edit, oldest first. */
  edits: string[];
  // biome-ignore lint/suspicious/noExplicitAny: components are echoed as the client sent them
  components: any[];
  attachments: FakeAttachment[];
  replyTo?: string;
  /** Users the message mentions (an inline `<@id>`, or the author of the message it replies to). */
  mentions?: FakeUser[];
  /** Roles the message mentions (`<@&id>`). */
  mentionRoles?: string[];
  deleted: boolean;
  /** Emoji the bot has reacted with, as they stand now. */
  reactions: Set<string>;
  nonce?: string;
  timestamp: string;
}

export function userPayload(user: FakeUser) {
  return {
    id: user.id,
    username: user.username,
    discriminator: "0",
    global_name: user.username,
    avatar: null,
    bot: user.bot ?? false,
  };
}

/** A guild member object as message events and GET /guilds/{id}/members/{user} carry it (without `user` here). */
export function memberPayload(roles: string[] = []) {
  return { roles, joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 };
}

export function channelPayload(channel: FakeChannel) {
  if (channel.type === 1) {
    return {
      id: channel.id,
      type: 1,
      last_message_id: null,
      recipients: channel.recipient ? [userPayload(channel.recipient)] : [],
    };
  }
  const base = {
    id: channel.id,
    type: channel.type,
    guild_id: channel.guildId,
    name: channel.name,
    position: 0,
    permission_overwrites: [],
    nsfw: false,
    parent_id: channel.parentId ?? null,
    last_message_id: null,
    rate_limit_per_user: 0,
  };
  if (channel.type !== 11) return { ...base, topic: null };
  return {
    ...base,
    owner_id: "0",
    message_count: 0,
    member_count: 1,
    thread_metadata: {
      archived: false,
      auto_archive_duration: 1440,
      archive_timestamp: new Date().toISOString(),
      locked: false,
    },
  };
}

export function messagePayload(
  message: FakeMessage,
  channel: FakeChannel | undefined,
  mentions: FakeUser[] = message.mentions ?? [],
) {
  return {
    id: message.id,
    channel_id: message.channelId,
    ...(channel?.guildId ? { guild_id: channel.guildId } : {}),
    author: userPayload(message.author),
    content: message.content,
    timestamp: message.timestamp,
    edited_timestamp: message.edits.length > 0 ? new Date().toISOString() : null,
    tts: false,
    mention_everyone: false,
    mentions: mentions.map(userPayload),
    mention_roles: message.mentionRoles ?? [],
    attachments: message.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      size: a.size,
      url: a.url,
      proxy_url: a.url,
      ...(a.contentType ? { content_type: a.contentType } : {}),
    })),
    embeds: [],
    pinned: false,
    type: message.replyTo ? 19 : 0,
    flags: 0,
    components: message.components,
    ...(message.nonce ? { nonce: message.nonce } : {}),
    ...(message.replyTo
      ? { message_reference: { type: 0, message_id: message.replyTo, channel_id: message.channelId } }
      : {}),
  };
}
