/**
 * Where the Matrix event stream was read up to, kept across restarts in
 * `$HERMES_HOME/gateway/matrix-sync.json`: a restarted gateway asks `/sync` for what came after
 * it, so messages sent while it was down are answered. A position is saved only once every
 * message of its batch was stored by the core, and in the order the batches came; one left from
 * another account or homeserver, or older than a day, is not used (a day-old question is not
 * answered out of the blue).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../../../util/atomic-write.js";

const POSITION_TTL_MS = 24 * 3_600_000;

export class SyncPositionStore {
  readonly path: string;
  private saving: Promise<void> = Promise.resolve();
  /** Set once a batch failed to store: no later position may be saved past it. */
  private held = false;

  constructor(
    home: string,
    private readonly owner: () => string,
    private readonly log: (line: string) => void,
  ) {
    this.path = join(home, "gateway", "matrix-sync.json");
  }

  load(): string | undefined {
    if (!existsSync(this.path)) return undefined;
    try {
      const saved = JSON.parse(readFileSync(this.path, "utf8")) as {
        owner?: unknown;
        nextBatch?: unknown;
        savedAt?: unknown;
      };
      if (saved.owner !== this.owner() || typeof saved.nextBatch !== "string" || !saved.nextBatch) return undefined;
      if (typeof saved.savedAt !== "number" || Date.now() - saved.savedAt > POSITION_TTL_MS) return undefined;
      return saved.nextBatch;
    } catch {
      return undefined;
    }
  }

  /**
   * Saves `nextBatch` once `stored` (this batch's messages handed to the core) resolves true and
   * every earlier batch's position was saved. A batch whose messages were not all stored holds
   * the position where it is until the process restarts and reads that batch again.
   */
  saveAfter(stored: Promise<boolean>, nextBatch: string): void {
    this.saving = this.saving.then(async () => {
      const ok = await stored;
      if (!ok && !this.held) {
        this.held = true;
        this.log("matrix: a message could not be stored; the saved sync position stays before it until a restart");
      }
      if (this.held) return;
      try {
        atomicWriteFile(this.path, `${JSON.stringify({ owner: this.owner(), nextBatch, savedAt: Date.now() })}\n`, {
          mode: 0o600,
        });
      } catch (error) {
        this.log(`matrix: could not save the sync position: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }

  /** Resolves once every position asked for so far is saved (or held). */
  settled(): Promise<void> {
    return this.saving;
  }
}
