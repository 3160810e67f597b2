/**
 * The Matrix event stream: a long-poll loop on `GET /sync`. The first sync asks for one event
 * per room and only marks where "now" is (what it returns is history and is never answered);
 * every later one waits up to `pollTimeoutMs` for events after the last `next_batch`, so a
 * reconnect picks up exactly where the stream stopped. After a restart the loop goes on from the
 * position saved on disk (see ./sync-position.ts) when there is one; if the homeserver refuses
 * it, from the first sync's. A failed sync stops the loop and reports the listener lost; the
 * gateway core reconnects with backoff.
 */

import { MatrixHttpError } from "./errors.js";
import type { MatrixEvent } from "./inbound.js";
import { CLIENT_V3, type MatrixRest } from "./rest.js";

export interface JoinedRoomSync {
  timeline?: { events?: MatrixEvent[]; limited?: boolean };
  state?: { events?: MatrixEvent[] };
  summary?: { "m.joined_member_count"?: number };
}

export interface SyncResponse {
  next_batch?: string;
  rooms?: {
    join?: Record<string, JoinedRoomSync>;
    invite?: Record<string, { invite_state?: { events?: MatrixEvent[] } }>;
    leave?: Record<string, unknown>;
  };
}

export interface MatrixSyncOptions {
  rest: MatrixRest;
  /** How long the homeserver may hold one sync open waiting for events. */
  pollTimeoutMs: number;
  /** How long a request may take beyond that. */
  requestTimeoutMs: number;
  log: (line: string) => void;
  /** A batch of events; `initial` marks the first sync, whose timeline is history. */
  onBatch: (batch: SyncResponse, initial: boolean) => Promise<void>;
  onLost: (error: Error) => void;
  /** A position saved by an earlier process, read after the first sync. */
  resumeFrom?: () => string | undefined;
}

export type SyncState = "stopped" | "running";

const FIRST_SYNC_FILTER = encodeURIComponent(JSON.stringify({ room: { timeline: { limit: 1 } } }));

export class MatrixSync {
  state: SyncState = "stopped";
  /** When a sync last answered (epoch ms). */
  lastAnswerAt = 0;
  private nextBatch: string | undefined;
  /** The first sync's position while the loop is on a saved one the homeserver has not yet accepted. */
  private fallbackBatch: string | undefined;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly options: MatrixSyncOptions) {}

  /** Runs the first sync (once per adapter) and starts the loop; rejects when that sync fails. */
  async start(): Promise<void> {
    if (this.state === "running") return;
    const abort = new AbortController();
    this.abort = abort;
    if (this.nextBatch === undefined) {
      const first = await this.fetch(`?timeout=0&filter=${FIRST_SYNC_FILTER}`, this.options.requestTimeoutMs, abort);
      await this.options.onBatch(first, true);
      const saved = this.options.resumeFrom?.();
      this.nextBatch = saved ?? first.next_batch;
      if (saved !== undefined) this.fallbackBatch = first.next_batch;
    }
    this.state = "running";
    this.loop = this.run(abort);
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    this.abort?.abort();
    this.abort = undefined;
    await this.loop;
    this.loop = undefined;
  }

  private async run(abort: AbortController): Promise<void> {
    const { pollTimeoutMs, requestTimeoutMs } = this.options;
    while (!abort.signal.aborted) {
      let batch: SyncResponse;
      try {
        const since = this.nextBatch ? `&since=${encodeURIComponent(this.nextBatch)}` : "";
        batch = await this.fetch(`?timeout=${pollTimeoutMs}${since}`, pollTimeoutMs + requestTimeoutMs, abort);
      } catch (error) {
        if (abort.signal.aborted) return;
        if (this.fallbackBatch !== undefined && refusesPosition(error)) {
          this.options.log(
            `matrix: the homeserver refused the saved sync position (${String(error)}); going on from now, so messages sent while the gateway was stopped are not read`,
          );
          this.nextBatch = this.fallbackBatch;
          this.fallbackBatch = undefined;
          continue;
        }
        this.state = "stopped";
        const why = error instanceof Error ? error.message : String(error);
        this.options.onLost(new Error(`the Matrix sync failed: ${why}`));
        return;
      }
      if (abort.signal.aborted) return;
      try {
        await this.options.onBatch(batch, false);
      } catch (error) {
        this.options.log(`matrix: handling a sync batch failed: ${String(error)}`);
      }
      this.fallbackBatch = undefined;
      if (batch.next_batch) this.nextBatch = batch.next_batch;
    }
  }

  private async fetch(query: string, timeoutMs: number, abort: AbortController): Promise<SyncResponse> {
    const batch = await this.options.rest.get<SyncResponse>(`${CLIENT_V3}/sync${query}`, {
      timeoutMs,
      signal: abort.signal,
    });
    if (typeof batch.next_batch !== "string" || !batch.next_batch) {
      throw new Error("the homeserver's /sync answer had no next_batch; is MATRIX_HOMESERVER a Matrix homeserver?");
    }
    this.lastAnswerAt = Date.now();
    return batch;
  }
}

/** A 4xx that says the token itself is bad; not a sign-in problem or a rate limit. */
function refusesPosition(error: unknown): boolean {
  return (
    error instanceof MatrixHttpError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![401, 403, 408, 429].includes(error.status)
  );
}
