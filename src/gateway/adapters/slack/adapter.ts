/**
 * The Slack platform: events arrive over Socket Mode (no public URL needed), answers go out
 * through the Web API. Envelopes are acknowledged as soon as they arrive, before the agent runs,
 * so Slack does not redeliver them; one it redelivers anyway (`retry_attempt`) carries the same
 * message `ts`, which is the message id the core de-duplicates on.
 */

import { basename } from "node:path";
import { WebClient } from "@slack/web-api";
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
import {
  answeredBlocks,
  approvalMessage,
  type Block,
  type PressedAction,
  pressedAnswer,
  questionMessage,
} from "./blocks.js";
import { toSendError } from "./errors.js";
import { downloadFiles } from "./files.js";
import { chatTypeOf, judgeEvent, type SlackChannelRules, type SlackMessageEvent } from "./inbound.js";
import { markdownToMrkdwn } from "./mrkdwn.js";
import { SlackSocket, type SocketEnvelope, sdkLogger } from "./socket.js";

export interface SlackAdapterOptions {
  botToken: string;
  appToken: string;
  /** The Web API root, ending in `/` (default Slack's own). */
  apiUrl?: string;
  home: string;
  rules: SlackChannelRules;
  log: (line: string) => void;
  /** `gateway.max_inbound_media_bytes`: a ceiling over Slack's own download limit (0 or unset: none). */
  maxInboundMediaBytes?: number;
  pingTimeoutMs?: number;
  maxReconnectAttempts?: number;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/**
 * Slack cuts a message's `text` at 40,000 characters but advises keeping it under 4,000 to stay
 * readable; parts stay a little below that so a reopened code fence still fits.
 */
export const SLACK_MESSAGE_LIMIT = 3_900;
/** Block Kit as the SDK types it (its block types live in a package of their own). */
type SlackBlocks = NonNullable<Extract<Parameters<WebClient["chat"]["postMessage"]>[0], { blocks: unknown }>["blocks"]>;
/** A reconnect that has been going on this long no longer counts as alive. */
const RECONNECT_GRACE_MS = 120_000;

interface BlockActionsPayload {
  type?: string;
  trigger_id?: string;
  user?: { id?: string; username?: string };
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string; thread_ts?: string; blocks?: unknown };
  actions?: Array<PressedAction & { action_ts?: string }>;
}

export class SlackAdapter implements PlatformAdapter {
  readonly platform = "slack";
  readonly maxMessageLength = SLACK_MESSAGE_LIMIT;
  readonly canEdit = true;
  private readonly web: WebClient;
  private readonly socket: SlackSocket;
  private events: AdapterEvents | undefined;
  private botUserId = "";
  private readonly seen = new RecentKeys(5_000);
  private readonly activeThreads = new RecentKeys(5_000);
  private readonly answeredPrompts = new RecentKeys(1_000);
  private readonly userNames = new Map<string, string | null>();
  private readonly channelNames = new Map<string, string | null>();
  /** Events of one channel are handled in order, even when one of them waits for a download. */
  private readonly channelQueues = new KeyedQueue((error) =>
    this.options.log(`slack: handling an event failed: ${String(error)}`),
  );

  constructor(private readonly options: SlackAdapterOptions) {
    this.web = new WebClient(options.botToken, {
      ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
      // The core's delivery ledger owns retries: every failure, a 429 included, comes straight back.
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: options.requestTimeoutMs ?? 30_000,
      logger: sdkLogger(options.log),
    });
    this.socket = new SlackSocket({
      appToken: options.appToken,
      ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
      pingTimeoutMs: options.pingTimeoutMs ?? 5_000,
      maxReconnectAttempts: options.maxReconnectAttempts ?? 5,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
      log: options.log,
      onEnvelope: (envelope) => this.receive(envelope),
      onLost: (error) => this.events?.listenerLost(error),
    });
  }

  async connect(events: AdapterEvents): Promise<void> {
    let identity: { user_id?: string };
    try {
      identity = await this.web.auth.test();
    } catch (error) {
      throw toSendError("auth.test", error);
    }
    // Without its own member id the app could not tell mentions of itself from others.
    if (!identity.user_id) throw new Error("Slack's auth.test named no bot user; is SLACK_BOT_TOKEN a bot token?");
    this.botUserId = identity.user_id;
    this.events = events;
    await this.socket.start();
  }

  async disconnect(): Promise<void> {
    await this.socket.stop();
    this.events = undefined;
  }

  async checkAlive(): Promise<void> {
    const { state, since } = this.socket;
    if (state === "stopped" || state === "connecting") throw new Error(`the Socket Mode connection is ${state}`);
    if (state === "reconnecting" && Date.now() - since > RECONNECT_GRACE_MS) {
      throw new Error(
        `the Socket Mode connection has been reconnecting for ${Math.round((Date.now() - since) / 1000)} s`,
      );
    }
    try {
      await this.web.auth.test();
    } catch (error) {
      throw toSendError("auth.test", error);
    }
  }

  formatMarkdown(text: string): string {
    return markdownToMrkdwn(text);
  }

  async send(message: OutboundText): Promise<SentMessage> {
    try {
      const result = await this.web.chat.postMessage({
        channel: message.chatId,
        text: message.text,
        ...(message.threadId ? { thread_ts: message.threadId } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
      return { messageId: result.ts ?? null };
    } catch (error) {
      throw toSendError("chat.postMessage", error);
    }
  }

  async edit(address: ChatAddress, messageId: string, text: string): Promise<void> {
    try {
      await this.web.chat.update({ channel: address.chatId, ts: messageId, text });
    } catch (error) {
      throw toSendError("chat.update", error);
    }
  }

  async delete(address: ChatAddress, messageId: string): Promise<void> {
    try {
      await this.web.chat.delete({ channel: address.chatId, ts: messageId });
    } catch (error) {
      throw toSendError("chat.delete", error);
    }
  }

  /** Slack has no typing indicator for apps outside its assistant threads: nothing to do. */
  async typing(): Promise<void> {}

  async sendFile(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    try {
      const destination = address.threadId
        ? { channel_id: address.chatId, thread_ts: address.threadId }
        : { channel_id: address.chatId };
      await this.web.files.uploadV2({
        ...destination,
        file: path,
        filename: basename(path),
        ...(caption ? { initial_comment: caption } : {}),
      });
      // Slack shares the file in its own message whose ts the upload does not return.
      return { messageId: null };
    } catch (error) {
      throw toSendError("files.uploadV2", error);
    }
  }

  /** Slack previews images inline from a plain upload. */
  sendImage(address: ChatAddress, path: string, caption?: string): Promise<SentMessage> {
    return this.sendFile(address, path, caption);
  }

  askApproval(prompt: ApprovalPrompt): Promise<SentMessage> {
    return this.postBlocks(prompt, approvalMessage(prompt));
  }

  askQuestion(prompt: QuestionPrompt): Promise<SentMessage> {
    return this.postBlocks(prompt, questionMessage(prompt));
  }

  private async postBlocks(address: ChatAddress, content: { text: string; blocks: Block[] }): Promise<SentMessage> {
    try {
      const result = await this.web.chat.postMessage({
        channel: address.chatId,
        ...(address.threadId ? { thread_ts: address.threadId } : {}),
        text: content.text,
        blocks: content.blocks as SlackBlocks,
      });
      return { messageId: result.ts ?? null };
    } catch (error) {
      throw toSendError("chat.postMessage", error);
    }
  }

  private receive(envelope: SocketEnvelope): void {
    // Acknowledge first: Slack redelivers what is not acknowledged within three seconds.
    envelope.ack().catch((error: unknown) => {
      this.options.log(`slack: acknowledging envelope ${envelope.envelopeId} failed: ${String(error)}`);
    });
    if (envelope.type === "events_api") {
      const event = (envelope.body as { event?: SlackMessageEvent } | undefined)?.event;
      if (event) this.onMessageEvent(event);
    } else if (envelope.type === "interactive") {
      const payload = envelope.body as BlockActionsPayload | undefined;
      if (payload?.type === "block_actions") this.inOrder(payload.channel?.id ?? "", () => this.onPress(payload));
    }
  }

  private onMessageEvent(event: SlackMessageEvent): void {
    const verdict = judgeEvent(event, {
      botUserId: this.botUserId,
      rules: this.options.rules,
      activeThreads: this.activeThreads,
    });
    if (!verdict.accepted) return;
    const { message, files } = verdict;
    // A mention arrives twice (message and app_mention), and a late ack brings a redelivery.
    if (!this.seen.add(`${message.chatId}:${message.messageId}`)) return;
    if (verdict.threadKey) this.activeThreads.add(verdict.threadKey);
    this.inOrder(message.chatId, async () => {
      const userName = await this.userName(message.userId);
      const chatName = message.chatType === "dm" ? undefined : await this.channelName(message.chatId);
      const inbound: InboundMessage = {
        ...message,
        ...(userName ? { userName } : {}),
        ...(chatName ? { chatName } : {}),
      };
      const admitted = files.length > 0 && (await (this.events?.admits?.(inbound) ?? Promise.resolve(true)));
      // A stranger's files are not fetched: the core would not let them in anyway.
      if (files.length > 0 && !admitted) {
        inbound.text = [inbound.text, "[files, not downloaded]"].filter(Boolean).join("\n");
      }
      if (admitted) {
        const { attachments, failures } = await downloadFiles(
          files,
          {
            home: this.options.home,
            botToken: this.options.botToken,
            ...(this.options.apiUrl ? { apiUrl: this.options.apiUrl } : {}),
            timeoutMs: this.options.requestTimeoutMs ?? 30_000,
            log: this.options.log,
            ...(this.options.maxInboundMediaBytes !== undefined
              ? { maxInboundMediaBytes: this.options.maxInboundMediaBytes }
              : {}),
          },
          message.messageId,
        );
        if (attachments.length > 0) inbound.attachments = attachments;
        if (failures.length > 0) {
          inbound.text = [inbound.text, ...failures.map((why) => `[A file could not be downloaded: ${why}]`)]
            .filter(Boolean)
            .join("\n");
        }
      }
      this.events?.inbound(inbound);
    });
  }

  private async onPress(payload: BlockActionsPayload): Promise<void> {
    const action = payload.actions?.[0];
    const userId = payload.user?.id;
    const channel = payload.channel?.id ?? payload.container?.channel_id;
    const promptTs = payload.message?.ts ?? payload.container?.message_ts;
    const pressed = action ? pressedAnswer(action) : undefined;
    if (!pressed || !userId || !channel || !promptTs) return;
    // Two quick presses (or two people) on one prompt: only the first one counts.
    if (!this.answeredPrompts.add(`${channel}:${promptTs}`)) return;
    try {
      const answered = answeredBlocks(payload.message?.blocks, pressed.label, userId);
      await this.web.chat.update({
        channel,
        ts: promptTs,
        text: answered.text,
        blocks: answered.blocks as SlackBlocks,
      });
    } catch (error) {
      this.options.log(`slack: could not mark the prompt answered: ${toSendError("chat.update", error).message}`);
    }
    const threadTs = payload.message?.thread_ts;
    const chatType = chatTypeOf(channel);
    const userName = await this.userName(userId);
    this.events?.inbound({
      platform: this.platform,
      chatId: channel,
      chatType,
      ...(threadTs && threadTs !== promptTs ? { threadId: threadTs } : {}),
      userId,
      ...(userName ? { userName } : {}),
      text: pressed.answer,
      messageId: `action:${payload.trigger_id ?? action?.action_ts ?? promptTs}`,
    });
  }

  /** The member's workspace handle (unique, unlike display names), fetched once per member. */
  private userName(userId: string): Promise<string | undefined> {
    return this.lookup(this.userNames, userId, async () => (await this.web.users.info({ user: userId })).user?.name);
  }

  /** The channel's name (for the model's "This conversation" section), fetched once per channel. */
  private channelName(channel: string): Promise<string | undefined> {
    return this.lookup(
      this.channelNames,
      channel,
      async () => (await this.web.conversations.info({ channel })).channel?.name,
    );
  }

  /**
   * A name looked up once per id (remembered as missing too). Slack's refusal (a scope the app
   * lacks, an unknown id) is remembered as missing; a network failure is tried again later.
   */
  private async lookup(
    cache: Map<string, string | null>,
    id: string,
    fetch: () => Promise<string | undefined>,
  ): Promise<string | undefined> {
    if (cache.has(id)) return cache.get(id) ?? undefined;
    const remember = (name: string | null) => {
      if (cache.size >= 5_000) cache.clear();
      cache.set(id, name);
    };
    try {
      const name = (await fetch()) ?? null;
      remember(name);
      return name ?? undefined;
    } catch (error) {
      if ((error as { code?: string }).code === "slack_webapi_platform_error") remember(null);
      return undefined;
    }
  }

  private inOrder(channel: string, task: () => Promise<void>): void {
    this.channelQueues.push(channel, task);
  }
}
