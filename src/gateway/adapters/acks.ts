/**
 * Reactions that tell a user where their message stands (`discord.reactions`, MATRIX_REACTIONS):
 * 👀 once the agent starts on it, ✅ (and the 👀 taken off) once the reply is out. The core does not say which
 * message a turn is for, so the adapter infers it from what the core already does:
 *
 * - a message it handed the core is pending in its chat;
 * - the first `typing` for a chat is the start of a turn: its pending messages get 👀;
 * - a send that replies to a pending message is the answer (the core replies to the message it
 *   answers); so is the final edit of a streamed preview (one no longer ending in the cursor),
 *   which answers the oldest message being worked on in that chat.
 *
 * Reactions are best effort: a failure is logged and never fails the send it rides on.
 */

export interface ReactionCalls {
  add(channelId: string, messageId: string, emoji: string): Promise<void>;
  remove(channelId: string, messageId: string, emoji: string): Promise<void>;
}

export const WORKING = "👀";
export const DONE = "✅";
const MAX_PENDING_PER_CHANNEL = 50;

interface Pending {
  /** Where the user's message is (a thread's parent, when the reply goes to a new thread). */
  channelId: string;
  messageId: string;
  working: boolean;
}

export class Acknowledgements {
  private readonly pending = new Map<string, Pending[]>();
  private readonly previews = new Set<string>();

  constructor(
    private readonly calls: ReactionCalls,
    private readonly log: (line: string) => void,
    private readonly platform = "discord",
  ) {}

  /** A message handed to the core; `replyChannelId` is where its answer will go. */
  received(replyChannelId: string, messageChannelId: string, messageId: string): void {
    const list = this.pending.get(replyChannelId) ?? [];
    list.push({ channelId: messageChannelId, messageId, working: false });
    if (list.length > MAX_PENDING_PER_CHANNEL) list.shift();
    this.pending.set(replyChannelId, list);
  }

  async typing(channelId: string): Promise<void> {
    for (const item of this.pending.get(channelId) ?? []) {
      if (item.working) continue;
      item.working = true;
      await this.react(() => this.calls.add(item.channelId, item.messageId, WORKING));
    }
  }

  /** After a send succeeded. */
  async sent(
    channelId: string,
    replyTo: string | null | undefined,
    sentId: string | null,
    preview: boolean,
  ): Promise<void> {
    if (sentId && !replyTo && preview) this.previews.add(sentId);
    if (replyTo) await this.answered(channelId, (item) => item.messageId === replyTo);
  }

  /** After an edit succeeded. */
  async edited(channelId: string, messageId: string, preview: boolean): Promise<void> {
    if (!this.previews.has(messageId) || preview) return;
    this.previews.delete(messageId);
    await this.answered(channelId, (item) => item.working);
  }

  private async answered(channelId: string, which: (item: Pending) => boolean): Promise<void> {
    const list = this.pending.get(channelId) ?? [];
    const index = list.findIndex(which);
    if (index < 0) return;
    const [item] = list.splice(index, 1);
    if (list.length === 0) this.pending.delete(channelId);
    if (!item) return;
    await this.react(() => this.calls.add(item.channelId, item.messageId, DONE));
    if (item.working) await this.react(() => this.calls.remove(item.channelId, item.messageId, WORKING));
  }

  private async react(call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.log(`${this.platform}: a reaction failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
