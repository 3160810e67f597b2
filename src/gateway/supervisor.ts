/**
 * Keeps one adapter connected. `connected` means its listener is alive: when the adapter reports
 * the listener lost (or connecting fails), the supervisor reconnects with backoff and reports
 * each attempt, so a dead bot never looks healthy.
 *
 * A platform that allows one listener at a time (`exclusiveListener`) is listened to only by the
 * replica that owns it in the shared store; the others stand by and ask again every
 * `ownershipCheckMs`, so when the owner dies (PostgreSQL frees its lock as its connection drops)
 * another takes over within that time. A replica that cannot confirm it still owns the platform
 * stops listening rather than risk two readers.
 */
import type { Coordination } from "../state/coordination.js";
import { backoffDelayMs, sleepWithSignal } from "../util/backoff.js";
import type { AdapterHealth, InboundMessage, PlatformAdapter } from "./types.js";

export interface SupervisorOptions {
  inbound(message: InboundMessage): Promise<boolean>;
  /** See AdapterEvents.admits. */
  admits?(message: InboundMessage): Promise<boolean>;
  log(message: string): void;
  baseDelayMs: number;
  capMs?: number;
  /** How long one connection attempt may take before it counts as failed (default 30 s). */
  connectTimeoutMs?: number;
  /** How often a connected adapter's `checkAlive` runs (default 60 s; 0 turns it off). */
  watchdogMs?: number;
  /** Replicas sharing a store: who listens to a platform that allows one listener. */
  coordination?: Coordination;
  /** How often ownership of an exclusive listener is asked for or confirmed (default 5 s). */
  ownershipCheckMs?: number;
}

export class AdapterSupervisor {
  health: AdapterHealth = { state: "connecting" };
  private readonly stopped = new AbortController();
  private reconnecting: Promise<void> | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private ownershipTimer: NodeJS.Timeout | undefined;
  private checkingOwnership: Promise<void> | undefined;
  private haltReconnecting: () => void = () => {};

  constructor(
    readonly adapter: PlatformAdapter,
    private readonly options: SupervisorOptions,
  ) {}

  /** The name this adapter is elected under, when replicas must agree on one listener. */
  private get exclusiveName(): string | undefined {
    return this.options.coordination?.shared ? this.adapter.exclusiveListener : undefined;
  }

  /** Connects once (or stands by for another replica); a failure is reported and retried in the background. */
  async start(): Promise<void> {
    if (this.exclusiveName) {
      this.health = { state: "standby", since: Date.now() };
      await this.checkOwnership();
      this.ownershipTimer = setInterval(() => void this.checkOwnership(), this.options.ownershipCheckMs ?? 5000);
      this.ownershipTimer.unref();
    } else {
      await this.connectOrRetry();
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
    clearInterval(this.ownershipTimer);
    this.stopped.abort();
    await this.checkingOwnership;
    await this.reconnecting;
    const wasListening = this.health.state !== "standby";
    this.health = { state: "stopped" };
    await this.adapter.disconnect().catch(() => undefined);
    // Hand the platform over now rather than when this process's connection drops.
    const name = this.exclusiveName;
    if (name && wasListening) await this.options.coordination?.release(name).catch(() => undefined);
  }

  private async connectOrRetry(): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      this.lost(error);
    }
  }

  /** Takes the platform when no replica listens to it; lets it go when this one no longer owns it. */
  checkOwnership(): Promise<void> {
    this.checkingOwnership ??= this.settleOwnership().finally(() => {
      this.checkingOwnership = undefined;
    });
    return this.checkingOwnership;
  }

  private async settleOwnership(): Promise<void> {
    const name = this.exclusiveName;
    const coordination = this.options.coordination;
    if (!name || !coordination || this.stopped.signal.aborted) return;
    let owned: boolean;
    try {
      owned = await coordination.tryOwn(name);
    } catch (error) {
      owned = false;
      if (this.health.state !== "standby") {
        this.options.log(
          `${this.adapter.platform}: cannot confirm this replica still owns the listener (${error instanceof Error ? error.message : error})`,
        );
      }
    }
    if (this.stopped.signal.aborted) return;
    if (owned && this.health.state === "standby") {
      this.options.log(`${this.adapter.platform}: this replica now listens`);
      this.health = { state: "connecting" };
      await this.connectOrRetry();
    } else if (!owned && this.health.state !== "standby") {
      this.options.log(`${this.adapter.platform}: another replica listens; standing by`);
      this.health = { state: "standby", since: Date.now() };
      this.haltReconnecting();
      await this.reconnecting;
      await this.adapter.disconnect().catch(() => undefined);
    }
  }

  private async connect(): Promise<void> {
    const limitMs = this.options.connectTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`not connected after ${limitMs / 1000} s (gateway.platform_connect_timeout)`)),
        limitMs,
      );
    });
    const attempt = this.adapter.connect({
      inbound: (message) => this.options.inbound(message),
      ...(this.options.admits ? { admits: this.options.admits } : {}),
      listenerLost: (error) => this.lost(error),
    });
    try {
      await Promise.race([attempt, timedOut]);
    } catch (error) {
      // A connection that finishes after its attempt was given up is closed, not left listening.
      attempt.catch(() => undefined);
      await this.adapter.disconnect().catch(() => undefined);
      throw error;
    } finally {
      clearTimeout(timer);
    }
    // Ownership went to another replica while this one was connecting.
    if (this.health.state === "standby") {
      await this.adapter.disconnect().catch(() => undefined);
      return;
    }
    this.health = { state: "connected", since: Date.now() };
  }

  private lost(error: unknown): void {
    if (this.stopped.signal.aborted || this.reconnecting || this.health.state === "standby") return;
    const reason = error instanceof Error ? error.message : String(error);
    this.options.log(`${this.adapter.platform}: listener lost (${reason}); reconnecting`);
    this.reconnecting = this.reconnectLoop(reason).finally(() => {
      this.reconnecting = undefined;
    });
  }

  private async reconnectLoop(firstError: string): Promise<void> {
    const halted = new AbortController();
    this.haltReconnecting = () => halted.abort();
    const signal = AbortSignal.any([this.stopped.signal, halted.signal]);
    let lastError = firstError;
    for (let attempt = 1; !signal.aborted; attempt++) {
      this.health = { state: "reconnecting", attempt, lastError };
      const delay = backoffDelayMs(attempt, { baseMs: this.options.baseDelayMs, capMs: this.options.capMs ?? 300_000 });
      try {
        await sleepWithSignal(delay, signal);
        await this.adapter.disconnect().catch(() => undefined);
        await this.connect();
        this.options.log(`${this.adapter.platform}: reconnected after ${attempt} attempt(s)`);
        return;
      } catch (error) {
        if (signal.aborted) return;
        lastError = error instanceof Error ? error.message : String(error);
      }
    }
  }
}
