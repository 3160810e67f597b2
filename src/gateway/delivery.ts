/**
 * Sends replies through the durable ledger: each message is recorded before it is sent, sent at
 * least once under a stable idempotency key, retried with backoff when the platform fails in a
 * way that can pass (3 attempts within 24 h, a retry-after honoured), and never reported sent
 * unless the platform accepted it. Messages to one chat go out one at a time, in order.
 *
 * After a crash the store turns every send that was in flight back into a pending one marked as
 * a possible duplicate; it goes out again with a note saying so, so nothing is lost and a
 * repeat is never silent. Replicas sharing one ledger each claim a delivery before sending it
 * (one of them wins), and take over only sends that have been in flight for `staleSendingMs`:
 * those of a replica that died, never those another replica is making. A message another
 * replica's sweep claimed right after it was recorded is waited for by its recorder, so a turn
 * never goes on to the chat's next message before its answer is out.
 */
import { randomUUID } from "node:crypto";
import type { DeliveryRecord, GatewayStore } from "../state/gateway-store.js";
import { backoffDelayMs, sleepWithSignal } from "../util/backoff.js";
import { type PlatformAdapter, PlatformSendError, type SentMessage } from "./types.js";

export interface DeliveryBody {
  text: string;
  /** Replace this already-sent message (a streamed preview) instead of sending a new one. */
  editMessageId?: string;
  /** Once sent, also written into this gateway session's transcript (`cron.mirror_delivery`). */
  mirror?: DeliveryMirror;
}

export interface DeliveryMirror {
  sessionKey: string;
  /** What the transcript gets: the delivered text with a line saying where it came from. */
  text: string;
}

export interface OutgoingMessage {
  platform: string;
  chatId: string;
  threadId?: string | null;
  replyTo?: string | null;
  sessionKey?: string | null;
  text: string;
  editMessageId?: string | undefined;
  /**
   * Names this message for good: delivering it again with the same key (a turn run again after
   * its replica died) sends nothing new. Default: a new key each time.
   */
  idempotencyKey?: string;
  /**
   * The key may name a send left in flight by a turn whose session lease ran out (its replica
   * died): take it over now, flagged as a possible repeat, rather than after `staleSendingMs`,
   * so the chat's answers keep their order.
   */
  reclaimInFlight?: boolean;
  /**
   * After a failed first attempt, leave the retries to the sweep instead of waiting for those due
   * within `maxInlineWaitMs`, so the caller hears the outcome of that attempt at once.
   */
  retryLater?: boolean;
}

export interface DeliveryOptions {
  store: GatewayStore;
  adapter(platform: string): PlatformAdapter | undefined;
  /** Attempts before a delivery is given up (default 3). */
  maxAttempts?: number;
  /** First retry delay (default 2 s; doubles each time). */
  retryBaseMs?: number;
  /** A delivery older than this is not attempted again (default 24 h). */
  maxAgeMs?: number;
  /** A retry due sooner than this waits in line; a later one is left to the sweep (default 60 s). */
  maxInlineWaitMs?: number;
  /** How often due retries are looked for (default 5 s). */
  sweepIntervalMs?: number;
  /**
   * Replicas share the ledger: a send in flight this long belongs to a replica that died (default:
   * no replicas, so everything in flight at start-up was this process's and is taken over).
   */
  staleSendingMs?: number;
  now?: () => number;
  log?: (message: string) => void;
  /** Called once a delivery that asks to be mirrored into a session has been sent. */
  mirror?: (mirror: DeliveryMirror) => void;
}

/** How often a recorder waiting for another replica's send of its message looks at the ledger. */
const OTHER_SENDER_POLL_MS = 250;

/** What `sendWithRetries` waits for rather than reporting the message as pending. */
interface InlineWaits {
  /** Retries of its own failed attempts due within `maxInlineWaitMs`. */
  retries: boolean;
  /** A send another replica claimed (its retries too), or took over once that is stale. */
  otherSender: boolean;
}

export const POSSIBLE_DUPLICATE_NOTE = "(sent again after a restart; you may already have this message)";

export type DeliveryOutcome =
  | { state: "sent"; record: DeliveryRecord; sent: SentMessage }
  | { state: "pending"; record: DeliveryRecord; error: string }
  | { state: "failed"; record: DeliveryRecord; error: string };

export class DeliveryQueue {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly stopping = new AbortController();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: DeliveryOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Reconciles what a crash left behind and starts sending due retries. */
  async start(): Promise<void> {
    await this.takeOverInFlight();
    await this.sweep();
    const every = this.options.sweepIntervalMs ?? 5000;
    this.sweeper = setInterval(() => void this.sweep(), every);
    this.sweeper.unref();
  }

  /** Records the message, then sends it in its chat's turn. */
  async deliver(message: OutgoingMessage): Promise<DeliveryOutcome> {
    const id = randomUUID();
    const record = await this.options.store.recordDelivery(
      {
        id,
        platform: message.platform,
        chatId: message.chatId,
        threadId: message.threadId ?? null,
        replyTo: message.replyTo ?? null,
        sessionKey: message.sessionKey ?? null,
        body: (message.editMessageId
          ? { text: message.text, editMessageId: message.editMessageId }
          : { text: message.text }) satisfies DeliveryBody,
        idempotencyKey: message.idempotencyKey ?? `hermes-${id}`,
      },
      this.now(),
    );
    if (
      message.reclaimInFlight &&
      record.state === "sending" &&
      (await this.options.store.reclaimDelivery(record.id, this.now()))
    ) {
      this.options.log?.(
        `taking over a send to ${record.platform}:${record.chatId} that a stopped turn left in flight`,
      );
    }
    const inline = !message.retryLater;
    return this.inChatOrder(record, () => this.sendWithRetries(record.id, { retries: inline, otherSender: inline }));
  }

  /** Sends that were in flight when their sender stopped go back to pending, marked as possible repeats. */
  private async takeOverInFlight(): Promise<void> {
    const stale = this.options.staleSendingMs;
    const now = this.now();
    const reconciled = await this.options.store.reconcileDeliveries(now, stale === undefined ? undefined : now - stale);
    if (reconciled > 0) {
      const whose = stale === undefined ? "before a restart" : "by a replica that stopped";
      this.options.log?.(`${reconciled} message(s) may not have been sent ${whose}; sending again`);
    }
  }

  /** Sends every due delivery (retries and reconciled ones); resolves when they have been tried. */
  async sweep(): Promise<void> {
    if (this.options.staleSendingMs !== undefined) await this.takeOverInFlight();
    const due = await this.options.store.dueDeliveries(this.now(), 100);
    await Promise.all(
      due.map((record) =>
        this.inChatOrder(record, () => this.sendWithRetries(record.id, { retries: true, otherSender: false })),
      ),
    );
  }

  /** Waits for every send in progress, then stops the sweep. */
  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.stopping.abort();
    await Promise.allSettled([...this.chains.values()]);
  }

  private inChatOrder<T>(record: DeliveryRecord, send: () => Promise<T>): Promise<T> {
    const chat = `${record.platform}\u0000${record.chatId}`;
    const previous = this.chains.get(chat) ?? Promise.resolve();
    const next = previous.then(send, send);
    const settled = next.catch(() => undefined);
    this.chains.set(chat, settled);
    void settled.then(() => {
      if (this.chains.get(chat) === settled) this.chains.delete(chat);
    });
    return next;
  }

  private async sendWithRetries(id: string, waits: InlineWaits): Promise<DeliveryOutcome> {
    const { store } = this.options;
    let waitingAnnounced = false;
    for (;;) {
      const current = await store.getDelivery(id);
      if (!current) throw new Error(`delivery ${id} is not in the ledger`);
      if (current.state === "sent")
        return { state: "sent", record: current, sent: { messageId: current.platformMessageId } };
      if (current.state === "failed") return { state: "failed", record: current, error: current.lastError ?? "failed" };
      if (current.state === "sending" || current.nextAttemptAt > this.now()) {
        // Another sweep is on it, or its time has not come. With replicas that sweep may be another
        // process's, which claimed the message between its recording and its sending here: the
        // caller waits for it, or the chat's next message could be answered before this one is out.
        const stale = this.options.staleSendingMs;
        const pending: DeliveryOutcome = { state: "pending", record: current, error: current.lastError ?? "waiting" };
        if (!waits.otherSender || stale === undefined || this.stopping.signal.aborted) return pending;
        if (current.state === "sending" && this.now() - current.updatedAt >= stale) {
          if (await store.reclaimDelivery(id, this.now())) {
            this.options.log?.(
              `taking over a send to ${current.platform}:${current.chatId} that a stopped replica left in flight`,
            );
          }
          continue;
        }
        const until = current.state === "sending" ? current.updatedAt + stale : current.nextAttemptAt;
        if (current.state !== "sending" && until - this.now() > (this.options.maxInlineWaitMs ?? 60_000))
          return pending;
        if (!waitingAnnounced) {
          waitingAnnounced = true;
          this.options.log?.(
            `another replica is sending or retrying a message to ${current.platform}:${current.chatId}; waiting for it before going on`,
          );
        }
        try {
          await sleepWithSignal(Math.max(1, Math.min(OTHER_SENDER_POLL_MS, until - this.now())), this.stopping.signal);
        } catch {
          return pending;
        }
        continue;
      }
      const outcome = await this.attempt(current);
      if (outcome.state !== "pending") return outcome;
      const wait = outcome.record.nextAttemptAt - this.now();
      if (!waits.retries || wait > (this.options.maxInlineWaitMs ?? 60_000) || this.stopping.signal.aborted)
        return outcome;
      try {
        await sleepWithSignal(Math.max(0, wait), this.stopping.signal);
      } catch {
        return outcome;
      }
    }
  }

  private async attempt(record: DeliveryRecord): Promise<DeliveryOutcome> {
    const { store } = this.options;
    const maxAttempts = this.options.maxAttempts ?? 3;
    const tooOld = this.now() - record.createdAt > (this.options.maxAgeMs ?? 24 * 3_600_000);
    const adapter = this.options.adapter(record.platform);
    if (tooOld || !adapter) {
      const error = tooOld ? "not sent within 24 hours" : `platform ${record.platform} is not running`;
      if (tooOld || record.attempts >= maxAttempts) return this.fail(record, error);
    }
    const sending = await store.claimSending(record.id, this.now());
    if (!sending) {
      // Another sweep or replica is sending it, or already has.
      const current = (await store.getDelivery(record.id)) ?? record;
      return { state: "pending", record: current, error: current.lastError ?? "sent by another sender" };
    }
    try {
      if (!adapter) throw new PlatformSendError(`platform ${record.platform} is not running`, { retryable: true });
      const sent = await this.sendBody(adapter, record);
      await store.markSent(record.id, sent.messageId, this.now());
      const mirror = (record.body as DeliveryBody).mirror;
      if (mirror) this.options.mirror?.(mirror);
      return { state: "sent", record: { ...sending, state: "sent", platformMessageId: sent.messageId }, sent };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const retryable = error instanceof PlatformSendError ? error.options.retryable : true;
      if (!retryable || sending.attempts >= maxAttempts) return this.fail(sending, message);
      const retryAfterMs = error instanceof PlatformSendError ? error.options.retryAfterMs : undefined;
      const delay = backoffDelayMs(sending.attempts, {
        baseMs: this.options.retryBaseMs ?? 2000,
        capMs: 3_600_000,
        ...(retryAfterMs !== undefined ? { retryAfterMs, maxRetryAfterMs: 6 * 3_600_000 } : {}),
      });
      const nextAttemptAt = this.now() + delay;
      await store.markRetry(record.id, message, nextAttemptAt, this.now());
      this.options.log?.(
        `sending to ${record.platform}:${record.chatId} failed (${message}); retrying in ${Math.ceil(delay / 1000)} s`,
      );
      return {
        state: "pending",
        record: { ...sending, state: "pending", nextAttemptAt, lastError: message },
        error: message,
      };
    }
  }

  private async sendBody(adapter: PlatformAdapter, record: DeliveryRecord): Promise<SentMessage> {
    const body = record.body as DeliveryBody;
    const address = { chatId: record.chatId, threadId: record.threadId };
    if (body.editMessageId && adapter.edit) {
      try {
        // An edit is idempotent: repeating it after a crash shows nothing twice.
        await adapter.edit(address, body.editMessageId, body.text);
        return { messageId: body.editMessageId };
      } catch (error) {
        // The preview is gone (deleted, too old to edit): the reply goes out as a new message.
        if (!(error instanceof PlatformSendError) || error.options.retryable) throw error;
      }
    }
    const text = record.possibleDuplicate ? `${POSSIBLE_DUPLICATE_NOTE}\n${body.text}` : body.text;
    return adapter.send({ ...address, replyTo: record.replyTo, text, idempotencyKey: record.idempotencyKey });
  }

  private async fail(record: DeliveryRecord, error: string): Promise<DeliveryOutcome> {
    await this.options.store.markFailed(record.id, error, this.now());
    this.options.log?.(`gave up sending to ${record.platform}:${record.chatId}: ${error}`);
    return { state: "failed", record: { ...record, state: "failed", lastError: error }, error };
  }
}
