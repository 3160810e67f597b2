/**
 * The Discord platform: discord.js's gateway client for what users send and press, and a REST
 * client of its own for what the agent sends (so sends do not depend on the gateway being up).
 * Rate limits Discord announces are waited out by the REST client when short; longer ones, and
 * every other failure, go back to the core as `PlatformSendError`s (see errors.ts).
 */
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import {
  type APIMessage,
  type ButtonInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type Message,
  Partials,
  REST,
  Routes,
  Status,
} from "discord.js";
import { buildSessionKey, type SessionKeyOptions } from "../../session-key.js";
import type {
  AdapterEvents,
  ApprovalPrompt,
  ChatAddress,
  InboundMessage,
  OutboundText,
  PlatformAdapter,
  QuestionPrompt,
  SentMessage,
} from "../../types.js";
import { PlatformSendError } from "../../types.js";
import { Acknowledgements } from "../acks.js";
import { mediaCap } from "../capped-read.js";
import { type AccessSettings, DiscordAccess, NO_EXTRA_ACCESS, roleIdsOf } from "./access.js";
import { ChatBackfill } from "./backfill.js";
import { answeredContent, approvalMessage, parsePress, QuestionChoices, questionMessage } from "./buttons.js";
import { downloadFiles } from "./downloads.js";
import { isUnknownResource, toSendError } from "./errors.js";
import { toDiscordMarkdown } from "./format.js";
import {
  addressesBot,
  type ChatPlace,
  channelFacts,
  chatNameOf,
  type DiscordRules,
  judge,
  placeOf,
  targetChannel,
  threadName,
} from "./inbound.js";
import { DiscordReads } from "./reads.js";
import { nonceOf, restOptions } from "./rest-options.js";

export { restOptions } from "./rest-options.js";

/** Guild and DM messages with their content; nothing else (no members, presences or voice). */
export const DISCORD_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.DirectMessages,
  GatewayIntentBits.MessageContent,
];

/** What Discord accepts from a bot in a server without boosts. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const MAX_MESSAGE_LENGTH = 2000;
/** A shard that stays out of the ready state this long (resuming, reconnecting) counts as dead. */
const NOT_READY_GRACE_MS = 120_000;
const NO_PINGS = { parse: ["users"], replied_user: true };
/** The core's defaults (`group_sessions_per_user` on, `thread_sessions_per_user` off). */
const DEFAULT_SESSION_KEYS: SessionKeyOptions = { groupSessionsPerUser: true, threadSessionsPerUser: false };

export interface DiscordAdapterOptions {
  token: string;
  /** `rest.api`: the API root without the version, e.g. https://discord.com/api. */
  apiRoot?: string;
  home: string;
  rules: DiscordRules;
  /** Other bots, role allowlists and DM role checks (see access.ts); default: none of them. */
  access?: AccessSettings;
  /** How the core keys sessions, so a backfill leaves out what the receiving session already has. */
  sessionKeys?: SessionKeyOptions;
  /** How long reading the chat before a message may take (default 3 s). */
  backfillTimeoutMs?: number;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes`: a ceiling over `discord.max_attachment_bytes` (0 or unset: none). */
  maxInboundMediaBytes?: number;
  /** Rate-limit waits up to this long are done inside the REST client; longer ones go to the core. */
  maxInlineRateLimitMs?: number;
  /** How long connecting may take before it counts as failed. */
  readyTimeoutMs?: number;
  requestTimeoutMs?: number;
}

export class DiscordAdapter implements PlatformAdapter {
  readonly platform = "discord";
  readonly maxMessageLength = MAX_MESSAGE_LENGTH;
  readonly canEdit = true;
  private readonly rest: REST;
  private readonly acks: Acknowledgements;
  private readonly choices = new QuestionChoices();
  private readonly reads: DiscordReads;
  private readonly access: DiscordAccess;
  private readonly backfill: ChatBackfill;
  private client: Client | undefined;
  private events: AdapterEvents | undefined;
  private inboundChain: Promise<void> = Promise.resolve();
  private notReadySince: number | undefined;

  constructor(private readonly options: DiscordAdapterOptions) {
    this.rest = new REST(restOptions(options)).setToken(options.token);
    this.reads = new DiscordReads(restOptions(options), options.token);
    this.access = new DiscordAccess(options.access ?? NO_EXTRA_ACCESS, this.reads.memberRoles, options.log);
    this.backfill = new ChatBackfill(this.reads.historyPage, options.rules, options.log, options.backfillTimeoutMs);
    this.acks = new Acknowledgements(
      {
        add: async (channel, message, emoji) => {
          await this.rest.put(Routes.channelMessageOwnReaction(channel, message, encodeURIComponent(emoji)));
        },
        remove: async (channel, message, emoji) => {
          await this.rest.delete(Routes.channelMessageOwnReaction(channel, message, encodeURIComponent(emoji)));
        },
      },
      options.log,
    );
  }

  async connect(events: AdapterEvents): Promise<void> {
    const client = new Client({
      intents: DISCORD_INTENTS,
      // DM channels are not announced over the gateway; their first message creates them.
      partials: [Partials.Channel],
      rest: restOptions(this.options),
    });
    client.on(Events.MessageCreate, (message) => this.queueInbound(() => this.onMessage(message)));
    client.on(Events.InteractionCreate, (interaction) => this.queueInbound(() => this.onInteraction(interaction)));
    client.on(Events.ShardDisconnect, (event) => {
      if (this.client !== client) return;
      events.listenerLost(
        new Error(`Discord closed the gateway (code ${event.code}) and discord.js will not reconnect`),
      );
    });
    client.on(Events.Invalidated, () => {
      if (this.client === client) events.listenerLost(new Error("Discord invalidated the gateway session"));
    });
    client.on(Events.ShardError, (error) => this.options.log(`discord: gateway error: ${error.message}`));
    client.on(Events.Error, (error) => this.options.log(`discord: ${error.message}`));
    this.client = client;
    this.events = events;
    try {
      await this.loginAndWait(client);
      this.notReadySince = undefined;
      this.options.log(`discord: connected as ${client.user?.tag ?? "the bot"}`);
    } catch (error) {
      this.client = undefined;
      await client.destroy().catch(() => undefined);
      throw error;
    }
  }

  private async loginAndWait(client: Client): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const ready = new Promise<void>((resolve, reject) => {
      client.once(Events.ClientReady, () => resolve());
      const ms = this.options.readyTimeoutMs ?? 60_000;
      timer = setTimeout(() => reject(new Error(`Discord did not become ready within ${ms / 1000} s`)), ms);
    });
    try {
      await client.login(this.options.token).catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        throw /token/i.test(message) || (error as { status?: number }).status === 401
          ? new Error("Discord rejected the bot token; check DISCORD_BOT_TOKEN (or platforms.discord.token)")
          : new Error(`could not connect to Discord: ${message}`);
      });
      await ready;
    } finally {
      clearTimeout(timer);
    }
  }

  async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.events = undefined;
    if (!client) return;
    client.removeAllListeners();
    await client.destroy();
  }

  async checkAlive(): Promise<void> {
    const client = this.client;
    if (!client) throw new Error("not connected to Discord");
    if (client.ws.status !== Status.Ready) {
      this.notReadySince ??= Date.now();
      const waited = Date.now() - this.notReadySince;
      if (waited > NOT_READY_GRACE_MS) {
        throw new Error(`the Discord gateway has not been ready for ${Math.round(waited / 1000)} s`);
      }
      return;
    }
    this.notReadySince = undefined;
    await this.rest.get(Routes.user());
  }

  vouchFor(message: InboundMessage): Promise<string | undefined> {
    return this.access.vouchFor(message);
  }

  formatMarkdown(text: string): string {
    return toDiscordMarkdown(text);
  }

  async send(message: OutboundText): Promise<SentMessage> {
    const channel = targetChannel(message);
    // A thread started from a message has that message's id; it needs no reference to it.
    const replyTo = message.replyTo && message.replyTo !== channel ? message.replyTo : undefined;
    const body = {
      content: message.text,
      allowed_mentions: NO_PINGS,
      ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
      ...nonceOf(message.idempotencyKey),
    };
    const sent = await this.call("sending a message", () => this.rest.post(Routes.channelMessages(channel), { body }));
    await this.acks.sent(channel, message.replyTo, sent.id, message.preview === true);
    return { messageId: sent.id };
  }

  async edit(address: ChatAddress, messageId: string, text: string, preview = false): Promise<void> {
    const channel = targetChannel(address);
    await this.call("editing a message", () =>
      this.rest.patch(Routes.channelMessage(channel, messageId), {
        body: { content: text, allowed_mentions: NO_PINGS },
      }),
    );
    await this.acks.edited(channel, messageId, preview);
  }

  async delete(address: ChatAddress, messageId: string): Promise<void> {
    try {
      await this.rest.delete(Routes.channelMessage(targetChannel(address), messageId));
    } catch (error) {
      if (!isUnknownResource(error)) throw toSendError(error, "deleting a message");
    }
  }

  async typing(address: ChatAddress): Promise<void> {
    const channel = targetChannel(address);
    try {
      await this.rest.post(Routes.channelTyping(channel));
    } catch (error) {
      throw toSendError(error, "showing typing");
    } finally {
      await this.acks.typing(channel);
    }
  }

  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    const size = (await stat(path)).size;
    if (size > MAX_UPLOAD_BYTES) {
      throw new PlatformSendError(`${basename(path)} is ${size} bytes; Discord takes at most ${MAX_UPLOAD_BYTES}`, {
        retryable: false,
      });
    }
    const name = basename(path);
    const data = await readFile(path);
    const body = {
      content: caption ? caption.slice(0, MAX_MESSAGE_LENGTH) : "",
      allowed_mentions: NO_PINGS,
      attachments: [{ id: 0, filename: name }],
    };
    const sent = await this.call(`sending ${name}`, () =>
      this.rest.post(Routes.channelMessages(targetChannel(address)), { body, files: [{ name, data }] }),
    );
    return { messageId: sent.id };
  }

  /** Discord shows an attached image inline by itself. */
  sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    return this.sendFile(address, path, caption);
  }

  async askApproval(prompt: ApprovalPrompt): Promise<SentMessage> {
    const body = { ...approvalMessage(prompt), allowed_mentions: NO_PINGS };
    const sent = await this.call("asking for approval", () =>
      this.rest.post(Routes.channelMessages(targetChannel(prompt)), { body }),
    );
    return { messageId: sent.id };
  }

  async askQuestion(prompt: QuestionPrompt): Promise<SentMessage> {
    const body = { ...questionMessage(prompt), allowed_mentions: NO_PINGS };
    const sent = await this.call("asking a question", () =>
      this.rest.post(Routes.channelMessages(targetChannel(prompt)), { body }),
    );
    this.choices.remember(sent.id, prompt.choices);
    return { messageId: sent.id };
  }

  private async call(action: string, request: () => Promise<unknown>): Promise<APIMessage> {
    try {
      return (await request()) as APIMessage;
    } catch (error) {
      throw toSendError(error, action);
    }
  }

  /** Inbound events are handled one at a time, so a download cannot reorder a chat's messages. */
  private queueInbound(handle: () => Promise<void>): void {
    this.inboundChain = this.inboundChain.then(handle).catch((error: unknown) => {
      this.options.log(`discord: an inbound event failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private async onMessage(message: Message): Promise<void> {
    const events = this.events;
    const botId = this.client?.user?.id;
    if (!events || !botId) return;
    if (message.webhookId || message.system || message.author.id === botId) return;
    const fromBot = message.author.bot;
    const mentionsBot = message.mentions.users.has(botId);
    const addressed = addressesBot({ content: message.content, fromBot, mentionsBot }, botId, this.options.rules);
    if (fromBot && !this.access.letsBotIn(addressed)) return;
    let place = placeOf(channelFacts(message.channelId, message.guildId, message.channel));
    const mentionsOthers = message.mentions.users.some((user) => user.id !== botId) || message.mentions.roles.size > 0;
    const verdict = judge(place, message.content, addressed, botId, this.options.rules, mentionsOthers);
    if (!verdict.answer) return;
    const chatName = chatNameOf(message.channel);
    const sender = {
      platform: this.platform,
      ...(chatName ? { chatName } : {}),
      userId: message.author.id,
      userName: message.author.username,
      messageId: message.id,
      ...(message.reference?.messageId ? { replyTo: message.reference.messageId } : {}),
      sentAt: message.createdTimestamp,
      senderFacts: { bot: fromBot, roles: roleIdsOf(message.member) },
    };
    // A thread, the files, the 👀 and the earlier chat are for the agent's work: none for a stranger.
    const admitted = (await events.admits?.({ ...sender, ...place, text: verdict.text })) ?? true;
    if (verdict.startThread && admitted) place = await this.openThread(message, verdict.text, place);
    const { attachments, notes } = admitted
      ? await downloadFiles([...message.attachments.values()], {
          home: this.options.home,
          messageId: message.id,
          cap: mediaCap(this.options.rules.maxAttachmentBytes, this.options.maxInboundMediaBytes),
          anyType: this.options.rules.allowAnyAttachment,
        })
      : { attachments: [], notes: message.attachments.size > 0 ? ["[attachment not downloaded]"] : [] };
    const text = [verdict.text, ...notes].filter((line) => line.trim()).join("\n");
    if (!text && attachments.length === 0) return;
    if (this.options.rules.reactions && admitted) {
      this.acks.received(targetChannel(place), message.channelId, message.id);
    }
    const inbound: InboundMessage = {
      ...sender,
      ...place,
      text,
      ...(attachments.length > 0 ? { attachments } : {}),
    };
    const sessionKey = buildSessionKey(inbound, this.options.sessionKeys ?? DEFAULT_SESSION_KEYS);
    const earlier = admitted ? await this.backfill.before(inbound, message.channelId, sessionKey, botId) : [];
    events.inbound(earlier.length > 0 ? { ...inbound, earlier } : inbound);
  }

  /** A thread for the answer under `message`; the channel itself when Discord refuses one. */
  private async openThread(message: Message, text: string, place: ChatPlace): Promise<ChatPlace> {
    try {
      const thread = (await this.rest.post(Routes.threads(message.channelId, message.id), {
        body: { name: threadName(text), auto_archive_duration: 1440 },
      })) as { id: string };
      return { chatId: place.chatId, chatType: "thread", threadId: thread.id };
    } catch (error) {
      this.options.log(`discord: could not open a thread, answering in the channel: ${toSendError(error, "").message}`);
      return place;
    }
  }

  private async onInteraction(interaction: Interaction): Promise<void> {
    if (!interaction.isButton()) return;
    const events = this.events;
    const press = parsePress(interaction.customId);
    if (!events || !press) return;
    const label = press.kind === "approval" ? press.label : this.pressedLabel(interaction, press.index);
    const text =
      press.kind === "approval" ? press.text : (this.choices.choice(interaction.message.id, press.index) ?? label);
    const who = interaction.user.username;
    try {
      await interaction.update({ content: answeredContent(interaction.message.content, label, who), components: [] });
    } catch (error) {
      this.options.log(`discord: ${toSendError(error, "acknowledging a button press").message}`);
    }
    const place = placeOf(channelFacts(interaction.channelId ?? "", interaction.guildId, interaction.channel));
    events.inbound({
      platform: this.platform,
      ...place,
      userId: interaction.user.id,
      userName: who,
      text,
      messageId: interaction.id,
      sentAt: interaction.createdTimestamp,
      senderFacts: { bot: false, roles: roleIdsOf(interaction.member) },
    });
  }

  private pressedLabel(interaction: ButtonInteraction, index: number): string {
    const component = interaction.component as { label?: string | null };
    return component.label ?? `choice ${index + 1}`;
  }
}
