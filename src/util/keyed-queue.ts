/**
 * Runs tasks one after another per key (a chat's events in the order they came) while different
 * keys run side by side. A failing task is reported and does not stop the ones after it.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Queues `task` after the key's earlier ones; the promise settles (never rejects) once it ran. */
  push(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task).catch((error: unknown) => this.onError(error));
    this.tails.set(key, next);
    void next.then(() => {
      if (this.tails.get(key) === next) this.tails.delete(key);
    });
    return next;
  }
}
