/**
 * The contract between the gateway core and a platform adapter. An adapter is thin: it turns
 * platform events into `InboundMessage`s and performs the sends the core asks for. Every policy
 * (who may talk, which session a message belongs to, when to retry a send) lives in the core.
 */

export type ChatType = "dm" | "group" | "channel" | "thread";

export interface Attachment {
  kind: "image" | "file" | "audio" | "video";
  /** A local path the adapter already downloaded to, or a URL the platform serves. */
  url: string;
  name?: string;
  mimeType?: string;
  bytes?: number;
}

export interface InboundMessage {
  platform: string;
  chatId: string;
  chatType: ChatType;
  /** A topic or thread inside the chat, when the platform has them. */
  threadId?: string;
  userId: string;
  userName?: string;
  /** The group's or channel's title, when the platform gives one. */
  chatName?: string;
  text: string;
  attachments?: Attachment[];
  /** The platform's own id of this message (or update): the de-duplication key. */
  messageId: string;
  /** The message this one replies to, when it is a reply. */
  replyTo?: string;
  /** Epoch ms the platform says the message was sent. */
  sentAt?: number;
  /**
   * Where the answer goes when not back to this chat (a webhook's `deliver`): a platform's home
   * channel, or one of its chats.
   */
  deliverTo?: { platform: string; chatId?: string; threadId?: string };
  /** Deliver the text as it is, without running the agent (a webhook's `deliver_only`). */
  deliverOnly?: boolean;
  /**
   * Messages posted before this one in the same place that the agent has not seen (a Discord
   * channel's recent chat), oldest first; the agent reads them as quoted context.
   */
  earlier?: EarlierMessage[];
  /**
   * What the platform said about the sender when the message arrived: another bot, the role ids
   * it holds in the server. Set by adapters only, for their own vouching (`vouchFor`); stored
   * with the message, so it still holds for a message recovered after a restart.
   */
  senderFacts?: { bot: boolean; roles: string[] };
}

/** One message of the chat that led up to an inbound message. */
export interface EarlierMessage {
  userId: string;
  userName?: string;
  text: string;
  sentAt?: number;
}

/** Where a message goes. */
export interface ChatAddress {
  chatId: string;
  threadId?: string | null;
}

export interface OutboundText extends ChatAddress {
  text: string;
  replyTo?: string | null;
  /** Stable across retries: a platform that de-duplicates sends can use it. */
  idempotencyKey?: string;
  /** A preview of a reply still being written, which edits will replace. */
  preview?: boolean;
}

export interface SentMessage {
  /** The platform's id of the sent message (to edit or delete it later). */
  messageId: string | null;
}

/** A send failure as the adapter saw it; the core decides whether to retry. */
export class PlatformSendError extends Error {
  constructor(
    message: string,
    readonly options: {
      /** A retry can succeed (network, 5xx, rate limit). */
      retryable: boolean;
      /** The platform asked to wait this long (ms) before trying again. */
      retryAfterMs?: number;
    },
  ) {
    super(message);
    this.name = "PlatformSendError";
  }
}

export interface ApprovalPrompt extends ChatAddress {
  command: string;
  reason: string;
}

export interface QuestionPrompt extends ChatAddress {
  question: string;
  choices: string[];
}

export type AdapterHealth =
  | { state: "connecting" }
  | { state: "connected"; since: number }
  | { state: "reconnecting"; attempt: number; lastError: string }
  /** Another replica listens for this platform; this one takes over when that one goes. */
  | { state: "standby"; since: number }
  | { state: "stopped" };

/** What an adapter hands the core. */
export interface AdapterEvents {
  /**
   * Hands a message to the gateway. Resolves true once it is stored (a repeat counts: it was
   * stored before), false when storing failed; never rejects. An adapter that can acknowledge
   * late (a webhook's response, a socket-mode ack) waits for true, so a gateway killed before
   * storing the message leaves the platform to deliver it again.
   */
  inbound(message: InboundMessage): Promise<boolean>;
  /**
   * Whether the core would let this sender talk to the agent. An adapter asks before work done
   * only for the agent's sake (reading the earlier chat, downloading files, opening a thread),
   * so a stranger cannot make the bot do it; the message itself still goes to `inbound`, which
   * decides (a stranger's DM may get a pairing code). Never rejects; false when unsure.
   */
  admits?(message: InboundMessage): Promise<boolean>;
  /** The listener died (socket closed, poll loop failed); the core reconnects with backoff. */
  listenerLost(error: Error): void;
}

export interface PlatformAdapter {
  readonly platform: string;
  /** The longest text one message may carry on this platform (characters). */
  readonly maxMessageLength: number;
  /** Whether `edit` works, so replies can stream by progressive edits. */
  readonly canEdit: boolean;
  /** The adapter proves who sent each message itself (webhook signatures): no allowlist applies. */
  readonly authenticatesSenders?: boolean;
  /**
   * Commands may also start with `!` (`!new`): for clients that keep `/` for their own commands
   * (Element, on Matrix). Only the gateway's own commands are read so; other `!` text is a message.
   */
  readonly bangCommands?: boolean;
  /**
   * Set when only one process at a time may listen (a Telegram bot token allows one long-poll
   * reader): the name replicas sharing a store elect one listener under.
   */
  readonly exclusiveListener?: string | undefined;
  /**
   * Asked only when no allowlist or pairing admits a sender: why the platform vouches for them
   * (a role they hold, a bot the operator lets in), or undefined. Must not throw.
   */
  vouchFor?(message: InboundMessage): Promise<string | undefined>;
  connect(events: AdapterEvents): Promise<void>;
  /**
   * Resolves when the listener is demonstrably alive (a cheap API call, a recent poll); rejects
   * otherwise. The supervisor calls it periodically, so a listener that died silently is noticed.
   */
  checkAlive?(): Promise<void>;
  disconnect(): Promise<void>;
  send(message: OutboundText): Promise<SentMessage>;
  /** `preview`: the text is a still-growing preview, not the final reply. */
  edit?(address: ChatAddress, messageId: string, text: string, preview?: boolean): Promise<void>;
  /**
   * Shows a still-growing reply as an ephemeral draft (one `draftId` per reply) instead of a
   * message to edit; the final reply is then sent as a new message. Resolves false when this chat
   * cannot have drafts (the caller edits instead); rejects with a PlatformSendError when a draft
   * failed (one with `retryAfterMs` asks to wait, anything else to edit for the rest of the reply).
   */
  draft?(address: ChatAddress, draftId: number, text: string): Promise<boolean>;
  /**
   * Whether the platform takes this reply (standard markdown) whole, in a richer form of its own
   * (Telegram's rich messages), rather than formatted and split: `send`/`edit` then get the
   * markdown itself.
   */
  sendsWhole?(markdown: string): boolean;
  delete?(address: ChatAddress, messageId: string): Promise<void>;
  typing?(address: ChatAddress): Promise<void>;
  sendFile?(address: ChatAddress, path: string, caption?: string): Promise<SentMessage>;
  /** An image shown inline where the platform can (a file otherwise). */
  sendImage?(address: ChatAddress, path: string, caption?: string): Promise<SentMessage>;
  /**
   * Platforms with buttons show them (allow once, for the session, always, deny); the core falls
   * back to /approve and /deny text. A press comes back as an inbound message whose text is
   * `/approve`, `/approve session`, `/approve always` or `/deny`, from the user who pressed it.
   */
  askApproval?(prompt: ApprovalPrompt): Promise<SentMessage>;
  /**
   * A question with choices as buttons; a press comes back as an inbound message whose text is
   * the choice. The core falls back to a numbered list in text.
   */
  askQuestion?(prompt: QuestionPrompt): Promise<SentMessage>;
  /** Markdown as this platform renders it (the core writes standard markdown). */
  formatMarkdown?(text: string): string;
}
