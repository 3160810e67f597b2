/**
 * The Matrix platform: events arrive by long-polling `/sync`, answers go out through the
 * Client-Server API (v3) with the bot's access token. Replies carry their markdown as the plain
 * body and an HTML rendering of it as `formatted_body`; streamed previews grow by `m.replace`
 * edits. An event id is the message id the core de-duplicates on. Encrypted rooms are not
 * supported: their messages cannot be read, and the log says so once per room.
 */
import { randomUUID } from "node:crypto";
import { KeyedQueue } from "../../../util/keyed-queue.js";
import { RecentKeys } from "../../../util/recent-keys.js";
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
import { MatrixHttpError } from "./errors.js";
import { downloadFile, uploadFile } from "./files.js";
import { markdownToHtml } from "./format.js";
import { type BotIdentity, ignoredSender, judgeMessage, type MatrixEvent, type MatrixRoomRules } from "./inbound.js";
import { type PasswordLogin, PasswordSignIn } from "./login.js";
import { APPROVAL_OPTIONS, choiceOptions, type PromptOption, promptText, ReactionPrompts } from "./prompts.js";
import { CLIENT_V3, MatrixRest } from "./rest.js";
import { RoomDirectory } from "./rooms.js";
import { type JoinedRoomSync, MatrixSync, type SyncResponse } from "./sync.js";
import { SyncPositionStore } from "./sync-position.js";

export interface MatrixAdapterOptions {
  /** The homeserver's address, e.g. https://matrix.example.org (no trailing slash). */
  homeserver: string;
  /** The bot's access token; without one, `login` signs in with a password. */
  token?: string;
  login?: PasswordLogin;
  home: string;
  rules: MatrixRoomRules;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes` (0 or unset: none beyond the adapter's own limit). */
  maxInboundMediaBytes?: number;
  /** MATRIX_MAX_MEDIA_BYTES: the adapter's own limit instead of 50 MiB. */
  maxMediaBytes?: number;
  requestTimeoutMs?: number;
  /** How long one `/sync` long poll may wait for events (default 30 s). */
  pollTimeoutMs?: number;
  /** A reply's `@room` notifies the whole room (MATRIX_ALLOW_ROOM_MENTIONS; off by default). */
  allowRoomMentions?: boolean;
  /** 👀 on a message the agent works on, ✅ once answered (MATRIX_REACTIONS, default true). */
  reactions?: boolean;
}

/** Matrix sets no hard limit; clients render messages past about 4,000 characters poorly. */
export const MATRIX_MESSAGE_LIMIT = 4_000;
const REMEMBERED = 5_000;

const enc = encodeURIComponent;

export class MatrixAdapter implements PlatformAdapter {
  readonly platform = "matrix";
  readonly maxMessageLength = MATRIX_MESSAGE_LIMIT;
  readonly canEdit = true;
  readonly bangCommands = true;
  private readonly rest: MatrixRest;
  private readonly sync: MatrixSync;
  private readonly positions: SyncPositionStore;
  private readonly acks: Acknowledgements | undefined;
  private readonly prompts = new ReactionPrompts();
  /** The reaction events the bot sent, by `event emoji`, so they can be taken back. */
  private readonly reactionEvents = new Map<string, string>();
  private readonly passwordSignIn: PasswordSignIn | undefined;
  private readonly rooms = new RoomDirectory();
  private events: AdapterEvents | undefined;
  private bot: BotIdentity = { userId: "", displayName: "" };
  private readonly seen = new RecentKeys(REMEMBERED);
  private readonly activeThreads = new RecentKeys(REMEMBERED);
  /** Messages of one room are handled in order, even when one of them waits for a download. */
  private readonly roomQueues = new KeyedQueue((error) =>
    this.options.log(`matrix: handling a message failed: ${String(error)}`),
  );

  constructor(private readonly options: MatrixAdapterOptions) {
    const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    if (!options.token && !options.login) throw new Error("matrix: an access token or a password login is needed");
    this.rest = new MatrixRest({
      homeserver: options.homeserver,
      token: options.token ?? "",
      timeoutMs: requestTimeoutMs,
    });
    this.passwordSignIn =
      options.token || !options.login
        ? undefined
        : new PasswordSignIn(this.rest, options.login, options.home, options.homeserver, options.log);
    this.acks =
      options.reactions === false
        ? undefined
        : new Acknowledgements(
            {
              add: (room, event, emoji) => this.react(room, event, emoji),
              remove: (room, event, emoji) => this.unreact(room, event, emoji),
            },
            options.log,
            "matrix",
          );
    this.positions = new SyncPositionStore(options.home, () => `${options.homeserver} ${this.bot.userId}`, options.log);
    this.sync = new MatrixSync({
      rest: this.rest,
      pollTimeoutMs: options.pollTimeoutMs ?? 30_000,
      requestTimeoutMs,
      log: options.log,
      onBatch: (batch, initial) => this.receive(batch, initial),
      onLost: (error) => this.events?.listenerLost(error),
      resumeFrom: () => this.positions.load(),
    });
  }

  async connect(events: AdapterEvents): Promise<void> {
    if (this.passwordSignIn) await this.passwordSignIn.signIn();
    const userId = await this.whoAmI();
    this.bot = { userId, displayName: await this.displayName(userId) };
    this.events = events;
    await this.sync.start();
  }

  async disconnect(): Promise<void> {
    await this.sync.stop();
    await this.positions.settled();
    this.events = undefined;
  }

  async checkAlive(): Promise<void> {
    if (this.sync.state !== "running") throw new Error("the Matrix sync loop is not running");
    await this.whoAmI();
  }

  async send(message: OutboundText): Promise<SentMessage> {
    const content = this.textContent(message.text, message);
    // A preview's half-written text may hold half a user id: it pings no one; the final edit does.
    if (message.preview) content["m.mentions"] = {};
    const sent = await this.sendContent(message.chatId, content, message.idempotencyKey);
    await this.acks?.sent(ackKey(message), message.replyTo, sent.messageId, message.preview === true);
    return sent;
  }

  async edit(address: ChatAddress, messageId: string, text: string, preview?: boolean): Promise<void> {
    const replacement = this.textContent(text, {});
    const fallback = this.textContent(`* ${text}`, {});
    await this.sendContent(address.chatId, {
      ...fallback,
      // Only the final text notifies, once: previews (and the message they started as) pinged no one.
      "m.mentions": preview ? {} : replacement["m.mentions"],
      "m.new_content": replacement,
      "m.relates_to": { rel_type: "m.replace", event_id: eventId(messageId) },
    });
    await this.acks?.edited(ackKey(address), messageId, preview === true);
  }

  async delete(address: ChatAddress, messageId: string): Promise<void> {
    await this.rest.put(
      `${CLIENT_V3}/rooms/${roomPath(address.chatId)}/redact/${enc(eventId(messageId))}/${txn()}`,
      {},
    );
  }

  async typing(address: ChatAddress): Promise<void> {
    if (!this.bot.userId) return;
    try {
      await this.rest.put(`${CLIENT_V3}/rooms/${roomPath(address.chatId)}/typing/${enc(this.bot.userId)}`, {
        typing: true,
        timeout: 30_000,
      });
    } finally {
      await this.acks?.typing(ackKey(address));
    }
  }

  private async react(roomId: string, event: string, emoji: string): Promise<void> {
    const reaction = await this.sendReaction(roomId, event, emoji);
    if (reaction) this.reactionEvents.set(`${event} ${emoji}`, reaction);
  }

  /** The bot's reaction `key` on `event`; resolves with the reaction's own event id. */
  private async sendReaction(roomId: string, event: string, key: string): Promise<string | undefined> {
    const sent = await this.rest.put<{ event_id?: string }>(
      `${CLIENT_V3}/rooms/${roomPath(roomId)}/send/m.reaction/${txn()}`,
      { "m.relates_to": { rel_type: "m.annotation", event_id: event, key } },
    );
    return sent.event_id;
  }

  private async unreact(roomId: string, event: string, emoji: string): Promise<void> {
    const reaction = this.reactionEvents.get(`${event} ${emoji}`);
    if (!reaction) return;
    this.reactionEvents.delete(`${event} ${emoji}`);
    await this.rest.put(`${CLIENT_V3}/rooms/${roomPath(roomId)}/redact/${enc(reaction)}/${txn()}`, {});
  }

  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    let uploaded: Awaited<ReturnType<typeof uploadFile>>;
    try {
      uploaded = await uploadFile(this.rest, path);
    } catch (error) {
      if (error instanceof PlatformSendError) throw error;
      // A file that cannot be read will not become readable by trying again.
      throw new PlatformSendError(`uploading ${path} to Matrix failed: ${(error as Error).message}`, {
        retryable: false,
      });
    }
    const msgtype = uploaded.mimeType.startsWith("image/") ? "m.image" : "m.file";
    return this.sendContent(address.chatId, {
      msgtype,
      body: caption || uploaded.name,
      filename: uploaded.name,
      url: uploaded.contentUri,
      info: { mimetype: uploaded.mimeType, size: uploaded.size },
      ...this.threadOf(address),
    });
  }

  async askApproval(prompt: ApprovalPrompt): Promise<SentMessage> {
    const heading = `⚠ I want to run a command that needs your approval (${prompt.reason}):`;
    return this.ask(
      prompt,
      promptText(heading, `\`\`\`\n${prompt.command}\n\`\`\``, APPROVAL_OPTIONS),
      APPROVAL_OPTIONS,
    );
  }

  async askQuestion(prompt: QuestionPrompt): Promise<SentMessage> {
    const options = choiceOptions(prompt.choices);
    const listed = prompt.choices.map((choice, index) => `${options[index]?.key ?? `${index + 1}.`} ${choice}`);
    const how =
      options.length > 0 ? "React with your answer's number, or reply in text." : "Reply with a number or text.";
    return this.ask(prompt, [`❓ ${prompt.question}`, listed.join("\n"), how].join("\n\n"), options);
  }

  /** Posts a prompt and its options as the bot's own reactions; a failed reaction leaves typed answers. */
  private async ask(address: ChatAddress, text: string, options: readonly PromptOption[]): Promise<SentMessage> {
    const sent = await this.sendContent(address.chatId, this.textContent(text, address));
    if (!sent.messageId) return sent;
    this.prompts.remember(sent.messageId, { chatId: address.chatId, threadId: address.threadId }, options);
    for (const option of options) {
      try {
        await this.sendReaction(address.chatId, sent.messageId, option.key);
      } catch (error) {
        this.options.log(
          `matrix: could not offer ${option.key}: ${error instanceof Error ? error.message : String(error)}`,
        );
        break;
      }
    }
    return sent;
  }

  /** Matrix shows an uploaded image inline when it is sent as m.image, which sendFile picks by type. */
  sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    return this.sendFile(address, path, caption);
  }

  private textContent(
    text: string,
    address: Partial<ChatAddress> & { replyTo?: string | null },
  ): Record<string, unknown> & { "m.mentions": ReturnType<typeof mentionsIn> } {
    return {
      msgtype: "m.text",
      body: text,
      format: "org.matrix.custom.html",
      formatted_body: markdownToHtml(text),
      "m.mentions": mentionsIn(text, this.options.allowRoomMentions === true),
      ...this.threadOf(address),
    };
  }

  /** A message in a thread names its root, with a reply fallback for clients without threads. */
  private threadOf(address: Partial<ChatAddress> & { replyTo?: string | null }): Record<string, unknown> {
    if (!address.threadId) return {};
    return {
      "m.relates_to": {
        rel_type: "m.thread",
        event_id: address.threadId,
        is_falling_back: true,
        "m.in_reply_to": { event_id: address.replyTo || address.threadId },
      },
    };
  }

  private async sendContent(roomId: string, content: Record<string, unknown>, key?: string): Promise<SentMessage> {
    const sent = await this.rest.put<{ event_id?: string }>(
      `${CLIENT_V3}/rooms/${roomPath(roomId)}/send/m.room.message/${key ? enc(key) : txn()}`,
      content,
    );
    return { messageId: sent.event_id ?? null };
  }

  private async whoAmI(): Promise<string> {
    let me: { user_id?: string };
    try {
      me = await this.rest.get<{ user_id?: string }>(`${CLIENT_V3}/account/whoami`);
    } catch (error) {
      if (error instanceof MatrixHttpError && error.status === 401 && this.options.token) {
        throw new Error(
          `the Matrix homeserver at ${this.options.homeserver} rejected MATRIX_ACCESS_TOKEN (HTTP 401 ${error.errcode ?? ""}): ` +
            "log in as the bot again (Element: Settings > Help & About > Access Token) and save the new token as MATRIX_ACCESS_TOKEN",
        );
      }
      throw error;
    }
    if (!me?.user_id)
      throw new Error("the homeserver's whoami named no user; is MATRIX_HOMESERVER a Matrix homeserver?");
    return me.user_id;
  }

  /** The bot's display name, which people write to mention it (none when it has none). */
  private async displayName(userId: string): Promise<string> {
    try {
      const profile = await this.rest.get<{ displayname?: string }>(`${CLIENT_V3}/profile/${enc(userId)}/displayname`);
      return typeof profile.displayname === "string" ? profile.displayname : "";
    } catch {
      return "";
    }
  }

  private async receive(batch: SyncResponse, initial: boolean): Promise<void> {
    for (const [roomId, invite] of Object.entries(batch.rooms?.invite ?? {})) {
      await this.answerInvite(roomId, invite.invite_state?.events ?? []);
    }
    const stored: Promise<boolean>[] = [];
    for (const [roomId, room] of Object.entries(batch.rooms?.join ?? {})) {
      const isNew = !this.rooms.knows(roomId);
      this.rooms.update(roomId, room);
      if (!initial) stored.push(...this.receiveTimeline(roomId, room, isNew));
    }
    if (!initial && batch.next_batch) {
      this.positions.saveAfter(
        Promise.all(stored).then((all) => all.every(Boolean)),
        batch.next_batch,
      );
    } else if (initial && batch.next_batch && this.positions.load() === undefined) {
      // What the first sync returns is history, never answered: a restart before the first long
      // poll ends must still read on from here.
      this.positions.saveAfter(Promise.resolve(true), batch.next_batch);
    }
  }

  /** Hands the room's new messages on; one promise per message, true once the core stored it. */
  private receiveTimeline(roomId: string, room: JoinedRoomSync, isNew: boolean): Promise<boolean>[] {
    let events = room.timeline?.events ?? [];
    if (isNew) {
      // A room just joined arrives with its history up to the join: only what follows is new.
      const joined = events.findLastIndex(
        (e) => e.type === "m.room.member" && e.state_key === this.bot.userId && e.content?.membership === "join",
      );
      events = events.slice(joined + 1);
    }
    const stored: Promise<boolean>[] = [];
    for (const event of events) {
      if (event.type === "m.room.encrypted") {
        if (this.rooms.firstEncryptedNotice(roomId)) {
          this.options.log(
            `matrix: room ${roomId} is end-to-end encrypted; encrypted rooms are not supported, so its messages are not read`,
          );
        }
        continue;
      }
      const answer = ignoredSender(event.sender, this.options.rules)
        ? undefined
        : this.prompts.answerFor(roomId, event, this.bot.userId, this.rooms.isDm(roomId));
      const handed = answer ? this.handOn(roomId, answer) : this.receiveMessage(roomId, event);
      if (handed) stored.push(handed);
    }
    return stored;
  }

  /** A reaction that answers a prompt, in the room's order with its messages. */
  private handOn(roomId: string, message: InboundMessage): Promise<boolean> | undefined {
    if (!this.seen.add(message.messageId)) return undefined;
    let stored = false;
    const handled = this.roomQueues.push(roomId, async () => {
      stored = (await this.events?.inbound(message)) ?? false;
    });
    return handled.then(() => stored);
  }

  /** Queues an accepted message for the core; undefined when there is nothing to hand on. */
  private receiveMessage(roomId: string, event: MatrixEvent): Promise<boolean> | undefined {
    const verdict = judgeMessage(roomId, event, {
      bot: this.bot,
      rules: this.options.rules,
      isDm: this.rooms.isDm(roomId),
      roomName: this.rooms.name(roomId),
      activeThreads: this.activeThreads,
    });
    if (!verdict.accepted) return undefined;
    const { message, file } = verdict;
    if (!this.seen.add(message.messageId)) return undefined;
    if (verdict.threadKey) this.activeThreads.add(verdict.threadKey);
    let stored = false;
    const handled = this.roomQueues.push(roomId, async () => {
      const inbound: InboundMessage = { ...message };
      // A stranger's files are not fetched: the core would not let them in anyway.
      if (file && (await this.admits(inbound))) {
        try {
          inbound.attachments = [
            await downloadFile(this.rest, file, inbound.messageId, {
              home: this.options.home,
              timeoutMs: this.options.requestTimeoutMs ?? 30_000,
              ...(this.options.maxInboundMediaBytes !== undefined
                ? { maxInboundMediaBytes: this.options.maxInboundMediaBytes }
                : {}),
              ...(this.options.maxMediaBytes !== undefined ? { maxMediaBytes: this.options.maxMediaBytes } : {}),
            }),
          ];
        } catch (error) {
          const why = error instanceof Error ? error.message : String(error);
          this.options.log(`matrix: could not download ${file.mxc}: ${why}`);
          inbound.text = [inbound.text, `[A file could not be downloaded: ${file.name}: ${why}]`]
            .filter(Boolean)
            .join("\n");
        }
      } else if (file) {
        inbound.text = [inbound.text, "[a file, not downloaded]"].filter(Boolean).join("\n");
      }
      stored = (await this.events?.inbound(inbound)) ?? false;
      if (stored) this.acks?.received(ackKey(inbound), roomId, inbound.messageId);
    });
    return handled.then(() => stored);
  }

  private admits(inbound: InboundMessage): Promise<boolean> {
    return this.events?.admits ? this.events.admits(inbound) : Promise.resolve(true);
  }

  /** Joins a DM, or a room the bot may answer in; other invites are left as they are. */
  private async answerInvite(roomId: string, state: MatrixEvent[]): Promise<void> {
    const own = state.find((e) => e.type === "m.room.member" && e.state_key === this.bot.userId);
    const direct = own?.content?.is_direct === true;
    const { allowedRooms } = this.options.rules;
    if (!direct && allowedRooms.size > 0 && !allowedRooms.has(roomId)) {
      this.options.log(`matrix: not joining ${roomId}: the room is not in matrix.allowed_rooms`);
      return;
    }
    if (direct) this.rooms.markDirect(roomId);
    try {
      await this.rest.post(`${CLIENT_V3}/rooms/${roomPath(roomId)}/join`, {});
    } catch (error) {
      this.options.log(`matrix: joining ${roomId} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** A room id as the core hands it back; anything else never reaches a URL path. */
function roomPath(id: string): string {
  if (!/^![^\s/]+$/.test(id)) {
    throw new PlatformSendError(`"${id.slice(0, 60)}" is not a Matrix room id`, { retryable: false });
  }
  return enc(id);
}

function eventId(id: string): string {
  if (!/^\$[^\s/]+$/.test(id)) {
    throw new PlatformSendError(`"${id.slice(0, 60)}" is not a Matrix event id`, { retryable: false });
  }
  return id;
}

function txn(): string {
  return `hermes-${randomUUID()}`;
}

/** A Matrix user id as written in text: `@local:server`, the server with an optional port. */
const USER_ID = /(?<![\w@])@[a-z0-9._=/+-]+:[A-Za-z0-9.-]+(?::\d+)?(?![\w-])/g;

/**
 * Whom a message notifies (intentional mentions): the user ids it names, and the whole room only
 * when `@room` is allowed. Present even when empty, so an `@room` or a display name in the text
 * alone pings no one.
 */
export function mentionsIn(text: string, allowRoom: boolean): { user_ids?: string[]; room?: true } {
  const ids = [...new Set(text.match(USER_ID) ?? [])].map((id) => id.replace(/[.]+$/, ""));
  return {
    ...(ids.length > 0 ? { user_ids: ids } : {}),
    ...(allowRoom && /(?<![\w@])@room\b/.test(text) ? { room: true as const } : {}),
  };
}

/** Where a reply to a message goes, for matching reactions to replies: its room and thread. */
function ackKey(address: Partial<ChatAddress>): string {
  return `${address.chatId ?? ""} ${address.threadId ?? ""}`;
}
