/**
 * Conditions a test waits on in a fake server, checked each time the fake says something changed
 * (a call, an event, a frame): no polling, and a bounded wait that names what never happened.
 */
type Waiter = { test: () => boolean; resolve: () => void };

export class ConditionWaiters {
  private waiters: Waiter[] = [];

  /** `label` names the fake in timeout errors ("fake Matrix"). */
  constructor(private readonly label: string) {}

  /** Resolves when `test` holds, checked now and after every `notify`; rejects after `timeoutMs`. */
  waitFor(test: () => boolean, what = "a condition", timeoutMs = 20_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`${this.label}: timed out waiting for ${what}`));
      }, timeoutMs);
      const waiter: Waiter = {
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** Something changed: resolve the waits whose condition now holds. */
  notify(): void {
    const ready = this.waiters.filter((w) => w.test());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }
}
