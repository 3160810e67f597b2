/**
 * Authorization decisions given to adapters that asked ahead (AdapterEvents.admits), kept until
 * the same message's turn asks, so the two cannot disagree (a role lookup that failed once and
 * then succeeded). Bounded: more than can be in flight at once; the oldest go first.
 */
import type { AuthDecision } from "./authorization.js";
import type { InboundMessage } from "./types.js";

const KEPT = 256;

const keyOf = (message: InboundMessage) => `${message.platform}\u0000${message.messageId}`;

export class DecidedAhead {
  private readonly decisions = new Map<string, AuthDecision>();

  remember(message: InboundMessage, decision: AuthDecision): void {
    this.decisions.set(keyOf(message), decision);
    if (this.decisions.size > KEPT) {
      const oldest = this.decisions.keys().next().value;
      if (oldest !== undefined) this.decisions.delete(oldest);
    }
  }

  /** The decision given ahead for this message, if any; used once. */
  take(message: InboundMessage): AuthDecision | undefined {
    const key = keyOf(message);
    const decision = this.decisions.get(key);
    this.decisions.delete(key);
    return decision;
  }
}
