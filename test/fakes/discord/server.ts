/**
 * A local fake of Discord for tests: REST under `<url>/api/v10`, the gateway WebSocket at
 * `<url>/gateway` (its address comes from `GET /gateway/bot`), and a CDN path for attachments.
 * Point discord.js at it with `rest: { api: fake.apiRoot }`. Tests play users with `userSays`
 * and `press`, read what the bot did in `calls` and `messages`, and inject faults.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { FakeGateway } from "./gateway.js";
import { type RecordedCall, type RestFault, RestRouter } from "./rest.js";
import { installRoutes } from "./routes.js";
import {
  channelPayload,
  type FakeAttachment,
  type FakeChannel,
  type FakeMessage,
  type FakeUser,
  memberPayload,
  messagePayload,
  snowflake,
  userPayload,
} from "./state.js";

export type { RecordedCall, RestFault } from "./rest.js";
export type { FakeChannel, FakeMessage, FakeUser } from "./state.js";

export interface FakeDiscordOptions {
  token?: string;
  heartbeatIntervalMs?: number;
}

export interface UserMessage {
  /** "dm" for the user's DM with the bot, or a guild channel / thread id. */
  channel: "dm" | string;
  user: FakeUser;
  content: string;
  /** Mention the bot: `<@bot>` is put in front of the content and the bot listed in `mentions`. */
  mention?: boolean;
  attachments?: FakeAttachment[];
  /** A reply to this message; like Discord's default, it mentions that message's author unless `replyPing` is false. */
  replyTo?: string;
  replyPing?: boolean;
  /** Role ids the message mentions (`<@&id>` is added to the content). */
  mentionRoles?: string[];
  /** Other users the message mentions (`<@id>` is added to the content). */
  mentionUsers?: FakeUser[];
}

/** A message already in a channel (posted before the bot connected, or not sent over the gateway). */
export interface PastMessage {
  user: FakeUser;
  content: string;
  attachments?: FakeAttachment[];
}

/** What the bot may do in a channel: `no-view` (403 Missing Access), `no-history` (reads give nothing). */
export type ChannelAccess = "no-view" | "no-history";

export class FakeDiscord {
  readonly token: string;
  readonly bot: FakeUser = { id: snowflake(), username: "hermes-bot", bot: true };
  readonly guildId = snowflake();
  readonly textChannel: FakeChannel;
  /** A second text channel, for rules that tell channels apart. */
  readonly otherChannel: FakeChannel;
  readonly thread: FakeChannel;
  readonly channels = new Map<string, FakeChannel>();
  readonly messages = new Map<string, FakeMessage>();
  readonly calls: RecordedCall[] = [];
  readonly gateway: FakeGateway;
  /** Bytes the CDN serves, by attachment path. */
  readonly cdn = new Map<string, { data: Buffer; type: string }>();
  /** The message each dispatched button press was on, by interaction id. */
  readonly pressedMessages = new Map<string, string>();
  /** Two roles of the guild (in GUILD_CREATE), for role allowlists. */
  readonly roles = { helpers: snowflake(), guests: snowflake() };
  /** Members of the guild besides the bot, by user id, with their role ids (GET /guilds/{id}/members/{user}). */
  readonly members = new Map<string, { user: FakeUser; roles: string[] }>();
  /** Channels whose permissions keep the bot from reading them. */
  readonly channelAccess = new Map<string, ChannelAccess>();
  private readonly router: RestRouter;
  private readonly server: Server;
  private readonly waiters = new Set<() => void>();
  private port = 0;

  constructor(options: FakeDiscordOptions = {}) {
    this.token = options.token ?? "fake-bot-token";
    this.textChannel = { id: snowflake(), type: 0, name: "general", guildId: this.guildId };
    this.thread = {
      id: snowflake(),
      type: 11,
      name: "a thread",
      guildId: this.guildId,
      parentId: this.textChannel.id,
    };
    this.otherChannel = { id: snowflake(), type: 0, name: "random", guildId: this.guildId };
    for (const channel of [this.textChannel, this.otherChannel, this.thread]) this.channels.set(channel.id, channel);
    this.router = new RestRouter(this.token, (call) => {
      this.calls.push(call);
      this.changed();
    });
    installRoutes(this, this.router);
    this.gateway = new FakeGateway({
      token: this.token,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 5000,
      readyPayload: () => ({
        user: { ...userPayload(this.bot), verified: true, mfa_enabled: false, flags: 0 },
        guilds: [{ id: this.guildId, unavailable: true }],
        application: { id: this.bot.id, flags: 0 },
        private_channels: [],
      }),
      afterReady: () => [{ t: "GUILD_CREATE", d: this.guildPayload() }],
      resumeUrl: () => `ws://127.0.0.1:${this.port}/resume`,
    });
    this.server = createServer((req, res) => {
      const path = req.url ?? "/";
      const prefix = path.startsWith("/api/v10/") ? "/api/v10" : "";
      void this.router.handle(req, res, prefix).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ message: String(error), code: 0 }));
      });
    });
    this.server.on("upgrade", (req, socket, head) => this.gateway.upgrade(req, socket, head));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** What `rest.api` (and DISCORD_API_ROOT) is set to: the client appends `/v10/...`. */
  get apiRoot(): string {
    return `${this.url}/api`;
  }

  get gatewayUrl(): string {
    return `ws://127.0.0.1:${this.port}/gateway`;
  }

  async close(): Promise<void> {
    this.gateway.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  failNext(fault: RestFault): void {
    this.router.failNext(fault);
  }

  /** The DM channel between the bot and `user`, opened on first use. */
  dmChannel(user: FakeUser): FakeChannel {
    for (const channel of this.channels.values()) {
      if (channel.type === 1 && channel.recipient?.id === user.id) return channel;
    }
    const channel: FakeChannel = { id: snowflake(), type: 1, recipient: user };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A file the CDN serves, to attach to a user's message. */
  attachment(filename: string, data: Buffer, contentType: string): FakeAttachment {
    const id = snowflake();
    const path = `/attachments/${id}/${encodeURIComponent(filename)}`;
    this.cdn.set(path, { data, type: contentType });
    return { id, filename, size: data.length, contentType, url: `${this.url}${path}` };
  }

  /** A user posts a message; it is dispatched as MESSAGE_CREATE. Returns its id. */
  userSays(message: UserMessage): string {
    const channel = message.channel === "dm" ? this.dmChannel(message.user) : this.channels.get(message.channel);
    if (!channel) throw new Error(`no channel ${message.channel}`);
    const roleMentions = (message.mentionRoles ?? []).map((id) => `<@&${id}> `).join("");
    const userMentions = (message.mentionUsers ?? []).map((user) => `<@${user.id}> `).join("");
    const content = `${message.mention ? `<@${this.bot.id}> ` : ""}${roleMentions}${userMentions}${message.content}`;
    const mentions = [...(message.mention ? [this.bot] : []), ...(message.mentionUsers ?? [])];
    const replied = message.replyTo ? this.messages.get(message.replyTo) : undefined;
    if (replied && message.replyPing !== false && !mentions.some((user) => user.id === replied.author.id)) {
      mentions.push(replied.author);
    }
    const stored = this.store({
      channelId: channel.id,
      author: message.user,
      content,
      attachments: message.attachments ?? [],
      mentions,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      ...(message.mentionRoles ? { mentionRoles: message.mentionRoles } : {}),
    });
    this.gateway.dispatch("MESSAGE_CREATE", {
      ...messagePayload(stored, channel),
      // Discord names the channel's type in gateway message events (discord.js needs it for DMs).
      channel_type: channel.type,
      ...(channel.guildId ? { member: memberPayload(this.members.get(message.user.id)?.roles) } : {}),
    });
    return stored.id;
  }

  /** Messages already in a channel, oldest first, stored without a gateway event. Returns their ids. */
  pastMessages(channelId: string, messages: PastMessage[]): string[] {
    if (!this.channels.has(channelId)) throw new Error(`no channel ${channelId}`);
    return messages.map(
      (m) =>
        this.store({ channelId, author: m.user, content: m.content, attachments: m.attachments ?? [], mentions: [] })
          .id,
    );
  }

  /** A user presses a button on one of the bot's messages: INTERACTION_CREATE. Returns the interaction id. */
  press(messageId: string, customId: string, user: FakeUser): string {
    const message = this.messages.get(messageId);
    if (!message) throw new Error(`no message ${messageId}`);
    const channel = this.channels.get(message.channelId);
    const id = snowflake();
    this.pressedMessages.set(id, messageId);
    this.gateway.dispatch("INTERACTION_CREATE", {
      id,
      application_id: this.bot.id,
      type: 3,
      token: `interaction-token-${id}`,
      version: 1,
      data: { custom_id: customId, component_type: 2 },
      channel_id: message.channelId,
      channel: channel ? channelPayload(channel) : undefined,
      ...(channel?.guildId
        ? { guild_id: channel.guildId, member: { ...memberPayload(), user: userPayload(user), permissions: "0" } }
        : { user: userPayload(user) }),
      message: messagePayload(message, channel),
      app_permissions: "0",
      locale: "en-US",
      entitlements: [],
      authorizing_integration_owners: {},
      context: channel?.guildId ? 0 : 1,
      attachment_size_limit: 10 * 1024 * 1024,
    });
    return id;
  }

  /** Messages the bot posted (not deleted) in a channel, oldest first. */
  botMessages(channelId?: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.author.id === this.bot.id && !m.deleted && (!channelId || m.channelId === channelId),
    );
  }

  /** Resolves once `test` holds, re-checked after every REST call; rejects after `timeoutMs`. */
  async waitFor<T>(test: () => T | undefined | false, timeoutMs = 20_000, what = "a condition"): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = test();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 250));
        function done() {
          clearTimeout(timer);
          resolve();
        }
        this.waiters.add(done);
      });
    }
  }

  /** Resolves with the first recorded REST call matching. */
  waitForCall(test: (call: RecordedCall) => boolean, timeoutMs?: number): Promise<RecordedCall> {
    return this.waitFor(() => this.calls.find(test), timeoutMs, "a REST call");
  }

  /** A message the bot posted as it reads now (after edits), matching `pattern`. */
  waitForBotText(pattern: RegExp, channelId?: string, timeoutMs?: number): Promise<FakeMessage> {
    return this.waitFor(
      () => this.botMessages(channelId).find((m) => pattern.test(m.content) && !m.content.endsWith(" ▉")),
      timeoutMs,
      `a bot message matching ${pattern}`,
    );
  }

  /** Stores a message; used by the REST routes and by `userSays`. */
  store(
    fields: Omit<FakeMessage, "id" | "edits" | "components" | "deleted" | "reactions" | "timestamp"> &
      Partial<FakeMessage>,
  ): FakeMessage {
    const message: FakeMessage = {
      id: snowflake(),
      edits: [],
      components: [],
      deleted: false,
      reactions: new Set(),
      timestamp: new Date().toISOString(),
      ...fields,
    };
    this.messages.set(message.id, message);
    this.changed();
    return message;
  }

  changed(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  private guildPayload() {
    const text = [...this.channels.values()].filter((c) => c.guildId === this.guildId && c.type === 0);
    const threads = [...this.channels.values()].filter((c) => c.guildId === this.guildId && c.type === 11);
    return {
      id: this.guildId,
      name: "Fake Guild",
      icon: null,
      owner_id: "1",
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      features: [],
      mfa_level: 0,
      system_channel_flags: 0,
      premium_tier: 0,
      preferred_locale: "en-US",
      nsfw_level: 0,
      unavailable: false,
      member_count: 2,
      large: false,
      joined_at: new Date().toISOString(),
      roles: [
        rolePayload(this.guildId, "@everyone", 0),
        rolePayload(this.roles.helpers, "helpers", 1),
        rolePayload(this.roles.guests, "guests", 2),
      ],
      emojis: [],
      stickers: [],
      members: [{ ...memberPayload(), user: userPayload(this.bot) }],
      channels: text.map(channelPayload),
      threads: threads.map(channelPayload),
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
    };
  }
}

function rolePayload(id: string, name: string, position: number) {
  return {
    id,
    name,
    permissions: "68608",
    position,
    color: 0,
    hoist: false,
    managed: false,
    mentionable: false,
    flags: 0,
  };
}

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  return new FakeDiscord(options).start();
}
