/**
 * `display.cli_refresh_interval`: while the agent works, the status bar is redrawn every so many
 * seconds so the turn's running time ("working 12s") keeps counting between events. 0 turns the
 * refresh, and with it the running time, off.
 */

/** Below this a refresh would only burn CPU: the bar shows whole seconds. */
const MIN_INTERVAL_MS = 100;

export class StatusRefresh {
  private timer: NodeJS.Timeout | undefined;
  private since: number | undefined;

  constructor(
    private readonly intervalSeconds: number,
    private readonly redraw: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Called on every status change: starts counting when work starts, stops when it ends. */
  update(busy: boolean): void {
    if (busy && this.since === undefined) {
      this.since = this.now();
      if (this.intervalSeconds > 0) {
        this.timer = setInterval(this.redraw, Math.max(MIN_INTERVAL_MS, this.intervalSeconds * 1000));
        this.timer.unref();
      }
    } else if (!busy && this.since !== undefined) {
      this.stop();
    }
  }

  /** How long the agent has been working; undefined when idle or when the refresh is off. */
  busyFor(): number | undefined {
    if (this.since === undefined || this.intervalSeconds <= 0) return undefined;
    return this.now() - this.since;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.since = undefined;
  }
}
