/**
 * Per-session lanes: each session handles one item at a time, in arrival order, and at most
 * `maxConcurrent` items run across all sessions. Items waiting in a lane stay visible (and
 * mutable), so the runner can merge overflow into the last one instead of dropping it.
 */

interface Lane<T> {
  running: boolean;
  queue: T[];
}

export class LaneSet<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  private active = 0;
  private readonly slotWaiters: Array<() => void> = [];
  private readonly idleWaiters: Array<() => void> = [];

  constructor(
    private readonly maxConcurrent: number,
    private readonly handle: (key: string, item: T) => Promise<void>,
    private readonly onError: (key: string, error: unknown) => void = () => {},
  ) {}

  /** Whether `key` has an item running or waiting for a slot. */
  busy(key: string): boolean {
    return this.lanes.get(key)?.running ?? false;
  }

  /** Items waiting behind the running one (the array itself: callers may merge into it). */
  waiting(key: string): T[] {
    return this.lanes.get(key)?.queue ?? [];
  }

  /** Runs `item` now if the session is idle, otherwise after what is ahead of it. */
  push(key: string, item: T): void {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: false, queue: [] };
      this.lanes.set(key, lane);
    }
    lane.queue.push(item);
    if (!lane.running) void this.drain(key, lane);
  }

  /** Drops what waits in a lane (not the running item); returns what was dropped. */
  clear(key: string): T[] {
    const lane = this.lanes.get(key);
    if (!lane) return [];
    return lane.queue.splice(0);
  }

  /** Drops what waits in every lane; returns it. */
  clearAll(): T[] {
    return [...this.lanes.keys()].flatMap((key) => this.clear(key));
  }

  get runningCount(): number {
    return this.active;
  }

  /** Resolves once no lane has anything running or waiting. */
  idle(): Promise<void> {
    if (this.lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async drain(key: string, lane: Lane<T>): Promise<void> {
    lane.running = true;
    try {
      for (let item = lane.queue.shift(); item !== undefined; item = lane.queue.shift()) {
        await this.acquire();
        try {
          await this.handle(key, item);
        } catch (error) {
          this.onError(key, error);
        } finally {
          this.release();
        }
      }
    } finally {
      lane.running = false;
      if (lane.queue.length === 0) this.lanes.delete(key);
      else void this.drain(key, lane);
      if (this.lanes.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }

  private acquire(): Promise<void> {
    if (this.active < this.maxConcurrent) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.slotWaiters.push(() => {
        this.active += 1;
        resolve();
      }),
    );
  }

  private release(): void {
    this.active -= 1;
    this.slotWaiters.shift()?.();
  }
}
