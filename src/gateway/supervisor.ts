/**
 * Keeps one adapter connected. `connected` means its listener is alive: when the adapter reports
 * the listener lost (or connecting fails), the supervisor reconnects with backoff and reports
 * each attempt, so a dead bot never looks healthy.
 */
import { backoffDelayMs, sleepWithSignal } from "../util/backoff.js";
import type { AdapterHealth, InboundMessage, PlatformAdapter } from "./types.js";

export interface SupervisorOptions {
  inbound(message: InboundMessage): void;
  log(message: string): void;
  baseDelayMs: number;
  capMs?: number;
  /** How often a connected adapter's `checkAlive` runs (default 60 s; 0 turns it off). */
  watchdogMs?: number;
}

export class AdapterSupervisor {
  health: AdapterHealth = { state: "connecting" };
  private readonly stopped = new AbortController();
  private reconnecting: Promise<void> | undefined;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    readonly adapter: PlatformAdapter,
    private readonly options: SupervisorOptions,
  ) {}

  /** Connects once; a failure is reported and retried in the background. */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      this.lost(error);
    }
    const every = this.options.watchdogMs ?? 60_000;
    if (this.adapter.checkAlive && every > 0) {
      this.watchdog = setInterval(() => void this.check(), every);
      this.watchdog.unref();
    }
  }

  /** A connected adapter that cannot show it is alive is treated as lost. */
  async check(): Promise<void> {
    if (this.health.state !== "connected" || !this.adapter.checkAlive) return;
    try {
      await this.adapter.checkAlive();
    } catch (error) {
      this.lost(
        new Error(`the listener did not answer a health check (${error instanceof Error ? error.message : error})`),
      );
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.watchdog);
    this.stopped.abort();
    await this.reconnecting;
    this.health = { state: "stopped" };
    await this.adapter.disconnect().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    await this.adapter.connect({
      inbound: (message) => this.options.inbound(message),
      listenerLost: (error) => this.lost(error),
    });
    this.health = { state: "connected", since: Date.now() };
  }

  private lost(error: unknown): void {
    if (this.stopped.signal.aborted || this.reconnecting) return;
    const reason = error instanceof Error ? error.message : String(error);
    this.options.log(`${this.adapter.platform}: listener lost (${reason}); reconnecting`);
    this.reconnecting = this.reconnectLoop(reason).finally(() => {
      this.reconnecting = undefined;
    });
  }

  private async reconnectLoop(firstError: string): Promise<void> {
    let lastError = firstError;
    for (let attempt = 1; !this.stopped.signal.aborted; attempt++) {
      this.health = { state: "reconnecting", attempt, lastError };
      const delay = backoffDelayMs(attempt, { baseMs: this.options.baseDelayMs, capMs: this.options.capMs ?? 300_000 });
      try {
        await sleepWithSignal(delay, this.stopped.signal);
        await this.adapter.disconnect().catch(() => undefined);
        await this.connect();
        this.options.log(`${this.adapter.platform}: reconnected after ${attempt} attempt(s)`);
        return;
      } catch (error) {
        if (this.stopped.signal.aborted) return;
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
  }
}
