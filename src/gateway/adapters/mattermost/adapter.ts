/**
 * The Mattermost platform: events arrive over the server's WebSocket, answers go out through
 * REST v4. Mattermost renders standard markdown, so replies pass through as the core wrote them.
 * A post id is the message id the core de-duplicates on.
 */
import { KeyedQueue } from "../../../util/keyed-queue.js";
import { RecentKeys } from "../../../util/recent-keys.js";
import type {
  AdapterEvents,
  ChatAddress,
  InboundMessage,
  OutboundText,
  PlatformAdapter,
  SentMessage,
} from "../../types.js";
import { PlatformSendError } from "../../types.js";
import { MattermostHttpError } from "./errors.js";
import { downloadFiles, uploadFile } from "./files.js";
import { type BotIdentity, judgePosted, MATTERMOST_ID, type MattermostChannelRules } from "./inbound.js";
import { type MattermostChannel, type MattermostPost, MattermostRest, type MattermostUser } from "./rest.js";
import { type MattermostEvent, MattermostSocket } from "./socket.js";

export interface MattermostAdapterOptions {
  /** The server's address, e.g. https://mm.example.com (no trailing slash). */
  serverUrl: string;
  token: string;
  home: string;
  rules: MattermostChannelRules;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes` (0 or unset: none beyond the adapter's own limit). */
  maxInboundMediaBytes?: number;
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  pingIntervalMs?: number;
}

/**
 * Mattermost takes posts of up to 16,383 characters by default; parts stay at 4,000, the size the
 * original chose as still comfortable to read in a chat.
 */
export const MATTERMOST_MESSAGE_LIMIT = 4_000;
const REMEMBERED = 5_000;

/** The WebSocket address of a server: http(s) becomes ws(s). */
export function websocketUrl(serverUrl: string): string {
  return `${serverUrl.replace(/^http/i, "ws")}/api/v4/websocket`;
}

export class MattermostAdapter implements PlatformAdapter {
  readonly platform = "mattermost";
  readonly maxMessageLength = MATTERMOST_MESSAGE_LIMIT;
  readonly canEdit = true;
  private readonly rest: MattermostRest;
  private readonly socket: MattermostSocket;
  private events: AdapterEvents | undefined;
  private bot: BotIdentity = { userId: "", username: "" };
  private readonly seen = new RecentKeys(REMEMBERED);
  private readonly activeThreads = new RecentKeys(REMEMBERED);
  /** Posts of one channel are handled in order, even when one of them waits for a download. */
  private readonly channelQueues = new KeyedQueue((error) =>
    this.options.log(`mattermost: handling a post failed: ${String(error)}`),
  );
  private readonly channelNames = new Map<string, string | null>();

  constructor(private readonly options: MattermostAdapterOptions) {
    this.rest = new MattermostRest({
      serverUrl: options.serverUrl,
      token: options.token,
      timeoutMs: options.requestTimeoutMs ?? 30_000,
    });
    this.socket = new MattermostSocket({
      url: websocketUrl(options.serverUrl),
      token: options.token,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      pingIntervalMs: options.pingIntervalMs ?? 30_000,
      log: options.log,
      onEvent: (event) => this.receive(event),
      onLost: (error) => this.events?.listenerLost(error),
    });
  }

  async connect(events: AdapterEvents): Promise<void> {
    const me = await this.whoAmI();
    this.bot = { userId: me.id, username: me.username ?? "" };
    this.events = events;
    await this.socket.start();
  }

  async disconnect(): Promise<void> {
    await this.socket.stop();
    this.events = undefined;
  }

  async checkAlive(): Promise<void> {
    if (this.socket.state !== "connected") throw new Error(`the Mattermost WebSocket is ${this.socket.state}`);
    await this.whoAmI();
  }

  async send(message: OutboundText): Promise<SentMessage> {
    const post = await this.rest.post<MattermostPost>("/posts", {
      channel_id: message.chatId,
      message: message.text,
      ...this.threadOf(message),
    });
    return { messageId: post.id ?? null };
  }

  async edit(_address: ChatAddress, messageId: string, text: string): Promise<void> {
    await this.rest.put(`/posts/${postId(messageId)}/patch`, { message: text });
  }

  async delete(_address: ChatAddress, messageId: string): Promise<void> {
    await this.rest.delete(`/posts/${postId(messageId)}`);
  }

  async typing(address: ChatAddress): Promise<void> {
    if (!this.bot.userId) return;
    await this.rest.post(`/users/${this.bot.userId}/typing`, {
      channel_id: address.chatId,
      ...(address.threadId ? { parent_id: address.threadId } : {}),
    });
  }

  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    let fileId: string;
    try {
      fileId = await uploadFile(this.rest, address.chatId, path);
    } catch (error) {
      if (error instanceof PlatformSendError) throw error;
      // A file that cannot be read will not become readable by trying again.
      throw new PlatformSendError(`uploading ${path} to Mattermost failed: ${(error as Error).message}`, {
        retryable: false,
      });
    }
    const post = await this.rest.post<MattermostPost>("/posts", {
      channel_id: address.chatId,
      message: caption ?? "",
      file_ids: [fileId],
      ...this.threadOf(address),
    });
    return { messageId: post.id ?? null };
  }

  /** Mattermost previews images inline from a plain upload. */
  sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    return this.sendFile(address, path, caption);
  }

  private threadOf(address: ChatAddress): { root_id?: string } {
    return address.threadId ? { root_id: address.threadId } : {};
  }

  private async whoAmI(): Promise<MattermostUser> {
    let me: MattermostUser;
    try {
      me = await this.rest.get<MattermostUser>("/users/me");
    } catch (error) {
      if (error instanceof MattermostHttpError && error.status === 401) {
        throw new Error(
          `Mattermost at ${this.options.serverUrl} rejected MATTERMOST_TOKEN (HTTP 401): create a new bot token ` +
            "(Integrations > Bot Accounts) or personal access token and save it as MATTERMOST_TOKEN",
        );
      }
      throw error;
    }
    if (!me?.id) throw new Error("Mattermost's GET /users/me named no user; is MATTERMOST_URL a Mattermost server?");
    return me;
  }

  private receive(event: MattermostEvent): void {
    const verdict = judgePosted(event, { bot: this.bot, rules: this.options.rules, activeThreads: this.activeThreads });
    if (!verdict.accepted) return;
    const { message, fileIds } = verdict;
    if (!this.seen.add(message.messageId)) return;
    if (verdict.threadKey) this.activeThreads.add(verdict.threadKey);
    this.inOrder(message.chatId, async () => {
      const inbound: InboundMessage = { ...message };
      if (inbound.chatType !== "dm" && !inbound.chatName) {
        const name = await this.channelName(inbound.chatId);
        if (name) inbound.chatName = name;
      }
      // A stranger's files are not fetched: the core would not let them in anyway.
      if (fileIds.length > 0 && (await this.admits(inbound))) await this.attachFiles(inbound, fileIds);
      else if (fileIds.length > 0) inbound.text = [inbound.text, "[files, not downloaded]"].filter(Boolean).join("\n");
      await this.events?.inbound(inbound);
    });
  }

  private admits(inbound: InboundMessage): Promise<boolean> {
    return this.events?.admits ? this.events.admits(inbound) : Promise.resolve(true);
  }

  private async attachFiles(inbound: InboundMessage, fileIds: string[]): Promise<void> {
    const { attachments, failures } = await downloadFiles(this.rest, fileIds, inbound.messageId, {
      home: this.options.home,
      log: this.options.log,
      timeoutMs: this.options.requestTimeoutMs ?? 30_000,
      ...(this.options.maxInboundMediaBytes !== undefined
        ? { maxInboundMediaBytes: this.options.maxInboundMediaBytes }
        : {}),
    });
    if (attachments.length > 0) inbound.attachments = attachments;
    if (failures.length > 0) {
      inbound.text = [inbound.text, ...failures.map((why) => `[A file could not be downloaded: ${why}]`)]
        .filter(Boolean)
        .join("\n");
    }
  }

  /** A channel's display name, looked up once (a refusal is remembered as no name). */
  private async channelName(channelId: string): Promise<string | undefined> {
    if (this.channelNames.has(channelId)) return this.channelNames.get(channelId) ?? undefined;
    try {
      const channel = await this.rest.get<MattermostChannel>(`/channels/${channelId}`);
      const name = channel.display_name || channel.name || null;
      if (this.channelNames.size >= REMEMBERED) this.channelNames.clear();
      this.channelNames.set(channelId, name);
      return name ?? undefined;
    } catch (error) {
      if (error instanceof PlatformSendError && !error.options.retryable) this.channelNames.set(channelId, null);
      return undefined;
    }
  }

  private inOrder(channel: string, task: () => Promise<void>): void {
    this.channelQueues.push(channel, task);
  }
}

/** A post id the core hands back; anything else never reaches a URL path. */
function postId(id: string): string {
  if (!MATTERMOST_ID.test(id)) {
    throw new PlatformSendError(`"${id.slice(0, 40)}" is not a Mattermost post id`, { retryable: false });
  }
  return id;
}
