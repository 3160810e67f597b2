/**
 * Long polling of `getUpdates`. Each update is handled in order, then its id is saved, so a
 * restarted gateway asks only for what came after it. A dropped connection or a 5xx is retried a
 * few times here; a wrong token, a conflicting poller or a network that stays down ends the loop
 * and is reported, so the core reconnects with backoff.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Api } from "grammy";
import type { Update } from "grammy/types";
import { atomicWriteFile } from "../../../util/atomic-write.js";
import { sleepWithSignal } from "../../../util/backoff.js";
import { describeError, isGrammyError } from "./errors.js";

/**
 * Telegram keeps an unconfirmed update for 24 hours, and after a week without updates it numbers
 * the next one at random: an offset older than a day can only hide updates, never repeat one.
 */
const OFFSET_TTL_MS = 24 * 3_600_000;

/** The last handled update id, per bot, in `$HERMES_HOME/gateway/telegram-offset.json`. */
export class OffsetStore {
  readonly path: string;

  constructor(
    home: string,
    private readonly botId: string,
  ) {
    this.path = join(home, "gateway", "telegram-offset.json");
  }

  load(): number | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      const saved = JSON.parse(readFileSync(this.path, "utf8")) as {
        bot?: unknown;
        lastUpdateId?: unknown;
        savedAt?: unknown;
      };
      // Another bot's offset means nothing to this one.
      if (saved.bot !== this.botId || typeof saved.lastUpdateId !== "number") return undefined;
      if (typeof saved.savedAt !== "number" || Date.now() - saved.savedAt > OFFSET_TTL_MS) return undefined;
      return saved.lastUpdateId;
    } catch {
      return undefined;
    }
  }

  save(lastUpdateId: number): void {
    atomicWriteFile(this.path, `${JSON.stringify({ bot: this.botId, lastUpdateId, savedAt: Date.now() })}\n`, {
      mode: 0o600,
    });
  }
}

export interface PollerOptions {
  api: Api;
  offsets: OffsetStore;
  timeoutSeconds: number;
  token: string;
  handle(update: Update): Promise<void>;
  /** The loop ended for good. */
  onFatal(error: Error): void;
  log(line: string): void;
}

/** Consecutive failed polls retried before the loop gives up (about 4 s of retrying). */
const MAX_FAILURES = 4;

export class UpdatePoller {
  lastPollAt = 0;
  private readonly stopper = new AbortController();
  private loop: Promise<void> | undefined;
  private lastHandled: number | undefined;
  private alive = false;

  constructor(private readonly options: PollerOptions) {
    this.lastHandled = options.offsets.load();
  }

  get running(): boolean {
    return this.alive;
  }

  start(): void {
    this.alive = true;
    this.loop = this.run().finally(() => {
      this.alive = false;
    });
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { api, timeoutSeconds } = this.options;
    const stop = this.stopper.signal;
    let failures = 0;
    while (!stop.aborted) {
      let updates: Update[];
      try {
        const signal = AbortSignal.any([stop, AbortSignal.timeout((timeoutSeconds + 15) * 1000)]);
        updates = await api.getUpdates(
          {
            ...(this.lastHandled !== undefined ? { offset: this.lastHandled + 1 } : {}),
            timeout: timeoutSeconds,
            allowed_updates: ["message", "callback_query"],
          },
          // grammY's Node typings name the abort-controller package's signal; Node's own works the same.
          signal as unknown as Parameters<Api["getUpdates"]>[1],
        );
      } catch (error) {
        if (stop.aborted) return;
        const wait = this.retryDelay(error, ++failures);
        if (wait === undefined) {
          this.options.onFatal(new Error(`telegram polling stopped: ${describeError(error, this.options.token)}`));
          return;
        }
        this.options.log(`telegram: getUpdates failed (${describeError(error, this.options.token)}); polling again`);
        await sleepWithSignal(wait, stop).catch(() => undefined);
        continue;
      }
      failures = 0;
      this.lastPollAt = Date.now();
      for (const update of updates) {
        if (stop.aborted) return;
        await this.options.handle(update).catch((error: unknown) => {
          this.options.log(
            `telegram: update ${update.update_id} could not be handled: ${describeError(error, this.options.token)}`,
          );
        });
        this.lastHandled = update.update_id;
        try {
          this.options.offsets.save(update.update_id);
        } catch (error) {
          // Without the file a restart asks again; the gateway's inbound ledger drops the repeats.
          this.options.log(`telegram: could not save the update offset: ${describeError(error, this.options.token)}`);
        }
      }
    }
  }

  /** How long to wait before polling again, or undefined when polling cannot succeed. */
  private retryDelay(error: unknown, failures: number): number | undefined {
    if (isGrammyError(error, 429)) return Number(error.parameters.retry_after ?? 1) * 1000;
    // A wrong token (401), a bot that was removed (404), a second poller or a webhook (409).
    if (isGrammyError(error) && error.error_code < 500) return undefined;
    if (failures > MAX_FAILURES) return undefined;
    return 250 * 2 ** (failures - 1);
  }
}
