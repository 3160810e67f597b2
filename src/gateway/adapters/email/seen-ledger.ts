/**
 * Which mail may be marked \Seen, and when. Mail stays unseen until the gateway has answered it,
 * so a crash before the answer leaves it in the inbox to be fetched again:
 *
 * - a reply to a mail (the ledger's send with `replyTo`) settles that mail and every earlier mail
 *   of the same conversation (the gateway handles a conversation in order, so they were dealt
 *   with already: folded into the turn, interrupted, or commands);
 * - any send into a conversation settles the commands (`/approve`, `/status`, ...) that arrived
 *   in it before the send began: their answer is that send, or no answer at all;
 * - mail the gateway does not answer (a sender outside the allowlists, an auto-reply) is settled
 *   as soon as it is handed over or skipped.
 */

export interface PendingMail {
  messageId: string;
  chatId: string;
  uid: number;
  command: boolean;
  order: number;
}

const MAX_REMEMBERED = 5000;

export class SeenLedger {
  private readonly pending = new Map<string, PendingMail>();
  /** Settled mail whose \Seen flag may not be set yet (the connection was down). */
  private readonly settled = new Set<string>();
  private counter = 0;

  /** A marker taken when a send begins: mail arriving later is not settled by it. */
  get horizon(): number {
    return this.counter;
  }

  isSettled(messageId: string): boolean {
    return this.settled.has(messageId);
  }

  isPending(messageId: string): boolean {
    return this.pending.has(messageId);
  }

  add(mail: Omit<PendingMail, "order">): void {
    const existing = this.pending.get(mail.messageId);
    if (existing) {
      // Fetched again on a new connection: only the UID may have changed.
      existing.uid = mail.uid;
      return;
    }
    this.counter += 1;
    this.pending.set(mail.messageId, { ...mail, order: this.counter });
  }

  /** Mail settled by a send into `chatId` that began at `horizon`; they leave the pending set. */
  settleBySend(chatId: string, replyTo: string | null | undefined, horizon: number): PendingMail[] {
    const answered = replyTo ? this.pending.get(replyTo) : undefined;
    const released = [...this.pending.values()].filter(
      (mail) =>
        mail.chatId === chatId &&
        ((answered !== undefined && mail.order <= answered.order) || (mail.command && mail.order <= horizon)),
    );
    for (const mail of released) this.settle(mail.messageId);
    return released;
  }

  /** Settles one mail now (one that gets no answer). */
  settle(messageId: string): void {
    this.pending.delete(messageId);
    this.settled.add(messageId);
    if (this.settled.size > MAX_REMEMBERED) {
      const oldest = this.settled.values().next().value;
      if (oldest !== undefined) this.settled.delete(oldest);
    }
  }

  /** The \Seen flag is on: nothing more to do for it. */
  flagged(messageId: string): void {
    this.settled.delete(messageId);
  }
}
