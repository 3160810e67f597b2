/**
 * Turns when several gateway replicas share one store. A session's turns run one at a time
 * across all of them: a turn waits for the session's lease, renews it while it runs, and is
 * skipped if another replica answered the message meanwhile. The messages of one chat may reach
 * different replicas (a load balancer, socket-mode connections), so the replica holding the lease
 * first answers the session's messages that were stored before this one and are still
 * unanswered: turns follow the order in which messages were stored, whichever replica got them.
 * The agent is rebuilt from the store before each turn, since another replica may have added to
 * the transcript.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Coordination } from "../state/coordination.js";
import type { InboundRecord } from "../state/gateway-store.js";
import type { GatewayRunner } from "./runner.js";
import { runTurn, type Turn } from "./turn.js";
import type { InboundMessage } from "./types.js";

export interface ReplicaTurnOptions {
  /** How long a lease lasts unless renewed (renewed every third of it while the turn runs). */
  leaseMs: number;
  /** How often a turn waiting for another replica's lease asks again. */
  retryMs: number;
  /** How long one lease request may take before it counts as refused and is asked again. */
  attemptMs?: number;
}

const sameMessage = (record: InboundRecord, message: InboundMessage) =>
  record.platform === message.platform && record.chatId === message.chatId && record.messageId === message.messageId;

export class ReplicaTurns {
  constructor(
    private readonly runner: GatewayRunner,
    private readonly coordination: Coordination,
    private readonly options: ReplicaTurnOptions,
  ) {}

  lease(sessionKey: string): Promise<boolean> {
    return this.coordination.leaseSession(sessionKey, this.runner.replicaId, this.options.leaseMs);
  }

  release(sessionKey: string): Promise<void> {
    return this.coordination.releaseSession(sessionKey, this.runner.replicaId);
  }

  /**
   * One lease request that cannot stall the turn: a store error or a request still unanswered
   * after `attemptMs` (a lost connection, a busy pool) counts as "not granted", so the turn asks
   * again instead of waiting on it, and the message is never left behind by a failed request.
   */
  private async tryLease(sessionKey: string): Promise<boolean> {
    const limit = this.options.attemptMs ?? Math.max(1_000, this.options.leaseMs / 3);
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<"stalled">((resolve) => {
      timer = setTimeout(() => resolve("stalled"), limit);
    });
    try {
      const answer = await Promise.race([this.lease(sessionKey), stalled]);
      if (answer === "stalled") {
        this.runner.log(`the lease request for ${sessionKey} took over ${limit} ms; asking again`);
        return false;
      }
      return answer;
    } catch (error) {
      this.runner.log(`the lease request for ${sessionKey} failed (${(error as Error).message}); asking again`);
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async run(turn: Turn): Promise<void> {
    const { sessionKey } = turn;
    while (!(await this.tryLease(sessionKey))) {
      // Left unanswered in the store: whoever holds the session, or a restart, answers it.
      if (this.runner.isStopping) return;
      await sleep(this.options.retryMs);
    }
    const renew = setInterval(() => void this.lease(sessionKey).catch(() => false), this.options.leaseMs / 3);
    renew.unref();
    try {
      // A command's own turn, or one it started, answers no stored message of its own.
      if (!turn.command && !turn.byCommand) {
        const record = await this.runner.store.inboundRecord({
          platform: turn.message.platform,
          chatId: turn.message.chatId,
          messageId: turn.message.messageId,
        });
        if (record && (record.state === "done" || record.state === "quarantined")) return;
        await this.answerEarlier(turn);
      }
      this.runner.runtime.evict(sessionKey);
      await runTurn(this.runner, turn);
    } finally {
      clearInterval(renew);
      await this.release(sessionKey).catch(() => undefined);
    }
  }

  /**
   * Answers the session's messages stored before `turn`'s and not answered yet: another replica
   * received them and waits for the lease, or received them and died. Commands and messages the
   * sender may not send are left to the replica that received them (they run outside turns).
   */
  private async answerEarlier(turn: Turn): Promise<void> {
    const pending = await this.runner.store.unfinishedInbound(turn.sessionKey);
    const own = pending.findIndex((record) => sameMessage(record, turn.message));
    const riding = [turn.message, ...turn.extra];
    for (const record of pending.slice(0, Math.max(own, 0))) {
      if (this.runner.isStopping) return;
      const message = record.payload as InboundMessage;
      if (riding.some((m) => sameMessage(record, m))) continue;
      if (message.deliverOnly || this.runner.commandIn(message)) continue;
      if (!(await this.runner.admit(message)).allowed) continue;
      this.runner.log(`answering ${message.platform} message ${message.messageId} first: it came earlier`);
      this.runner.runtime.evict(turn.sessionKey);
      await runTurn(this.runner, { sessionKey: turn.sessionKey, message, extra: [] });
    }
  }
}
