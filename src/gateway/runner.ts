/**
 * The messaging gateway: hosts platform adapters and applies every policy they share. An
 * inbound message is claimed in the store first (a redelivery is dropped there, across restarts
 * too), then authorized, then either handled as a slash command or queued in its session's
 * lane, where the session's agent runs it. Replies go out through the delivery ledger.
 */

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Agent } from "../agent/agent.js";
import type { HermesRuntime } from "../runtime/runtime.js";
import type { Coordination } from "../state/coordination.js";
import type { GatewayStore } from "../state/gateway-store.js";
import { configuredHomeChannel } from "../state/home-channel.js";
import type { CronToolBackend } from "../tools/builtin/cronjob.js";
import type { PermissionMode } from "../tools/permissions/gate.js";
import type { ApprovalAnswer, ApprovalRequest } from "../tools/registry.js";
import { type AuthDecision, authorize, pairingReply, requestPairing } from "./authorization.js";
import { deliverBackgroundResults } from "./background-results.js";
import { askApprovalInChat, askQuestionInChat } from "./chat-prompts.js";
import { type CommandContext, handleCommand, type ParsedCommand, parseBangCommand, parseCommand } from "./commands.js";
import { DecidedAhead } from "./decided-ahead.js";
import { type DeliveryMirror, DeliveryQueue } from "./delivery.js";
import { PendingInteractions } from "./interactions.js";
import { LaneSet } from "./lanes.js";
import { ReplicaTurns } from "./replica-turns.js";
import { buildSessionKey } from "./session-key.js";
import type { GatewaySettings, ToolProgressMode } from "./settings.js";
import { AdapterSupervisor } from "./supervisor.js";
import { runTurn, type Turn } from "./turn.js";
import type { AdapterHealth, InboundMessage, PlatformAdapter } from "./types.js";

export interface ReplyTarget {
  platform: string;
  chatId: string;
  threadId: string | null;
}

export interface GatewayRunnerOptions {
  runtime: HermesRuntime;
  store: GatewayStore;
  settings: GatewaySettings;
  adapters: PlatformAdapter[];
  log?: (message: string) => void;
  /** First reconnect delay of a platform whose listener died (default 1 s, doubling). */
  reconnectBaseMs?: number;
  /** How often each platform's listener is checked (default 60 s). */
  watchdogMs?: number;
  /** How long an approval prompt waits for /approve or /deny (default approvals.timeout). */
  approvalTimeoutMs?: number;
  /** First retry delay of a failed send (default 2 s). */
  retryBaseMs?: number;
  /** The scheduler behind /cron (the same one the agent's cronjob tool uses). */
  scheduler?: CronToolBackend;
  /** Replicas sharing the store: which one listens to a platform that allows one listener. */
  coordination?: Coordination;
  /** How often a standing-by replica asks for such a platform (default 5 s). */
  ownershipCheckMs?: number;
  /** Replicas: a send in flight this long is taken to be a dead replica's (default 2 min). */
  staleSendingMs?: number;
  /** Replicas: how long a session's turn is leased to one replica, renewed while it runs (default 60 s). */
  sessionLeaseMs?: number;
  /** Replicas: how often a turn waiting for another replica's lease asks again (default 250 ms). */
  leaseRetryMs?: number;
  /** Replicas: one lease request unanswered this long counts as refused (default a third of the lease, at least 1 s). */
  leaseAttemptMs?: number;
  /** Replicas: how often unanswered messages of replicas that died are looked for (default 30 s). */
  orphanSweepMs?: number;
  /** Replicas: a message stored or started this recently is left to the replica that has it (default 10 s). */
  orphanGraceMs?: number;
  now?: () => number;
}

const KEEP_RECORDS_MS = 7 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 6 * 3_600_000;

export class GatewayRunner {
  readonly interactions = new PendingInteractions();
  /** Permission modes chats chose with /mode, by session key (others use approvals.default_mode). */
  readonly permissionModes = new Map<string, PermissionMode>();
  readonly deliveries: DeliveryQueue;
  private readonly lanes: LaneSet<Turn>;
  private readonly adapters = new Map<string, PlatformAdapter>();
  private readonly supervisors: AdapterSupervisor[] = [];
  private readonly accepting = new Set<Promise<void>>();
  private readonly decidedAhead = new DecidedAhead();
  private stopping = false;
  private readonly stopController = new AbortController();
  private recovering: Promise<void> | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private orphanSweeper: NodeJS.Timeout | undefined;
  private detachBackground: (() => void) | undefined;
  /** Names this process among replicas sharing the store (session leases). */
  readonly replicaId = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  /** /verbose: tool progress chosen in a chat, by session key. */
  readonly toolProgressChoice = new Map<string, ToolProgressMode>();
  readonly startedAt = Date.now();
  readonly now: () => number;

  /** With replicas sharing the store: session leases around every turn. */
  private readonly replicas: ReplicaTurns | undefined;

  constructor(readonly options: GatewayRunnerOptions) {
    this.now = options.now ?? Date.now;
    if (options.coordination?.shared) {
      this.replicas = new ReplicaTurns(this, options.coordination, {
        leaseMs: options.sessionLeaseMs ?? 60_000,
        retryMs: options.leaseRetryMs ?? 250,
        ...(options.leaseAttemptMs !== undefined ? { attemptMs: options.leaseAttemptMs } : {}),
      });
    }
    for (const adapter of options.adapters) this.adapters.set(adapter.platform, adapter);
    this.deliveries = new DeliveryQueue({
      store: options.store,
      adapter: (platform) => this.adapters.get(platform),
      ...(options.retryBaseMs !== undefined ? { retryBaseMs: options.retryBaseMs } : {}),
      ...(options.coordination?.shared ? { staleSendingMs: options.staleSendingMs ?? 120_000 } : {}),
      now: this.now,
      log: (message) => this.log(message),
      mirror: (mirror) => this.mirrorIntoSession(mirror),
    });
    this.lanes = new LaneSet<Turn>(
      options.settings.maxConcurrentRuns,
      (_key, turn) => (this.replicas ? this.replicas.run(turn) : runTurn(this, turn)),
      (key, error) => this.log(`a run for ${key} failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  }

  get runtime(): HermesRuntime {
    return this.options.runtime;
  }

  get store(): GatewayStore {
    return this.options.store;
  }

  get settings(): GatewaySettings {
    return this.options.settings;
  }

  /** True once stop() has begun. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Aborted once stop() has begun: pauses that only pace a reply end at once. */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  log(message: string): void {
    this.options.log?.(message);
  }

  adapter(platform: string): PlatformAdapter | undefined {
    return this.adapters.get(platform);
  }

  platforms(): string[] {
    return [...this.adapters.keys()];
  }

  health(): Record<string, AdapterHealth> {
    return Object.fromEntries(this.supervisors.map((s) => [s.adapter.platform, s.health]));
  }

  /** Resolves once no session has a turn running or waiting. */
  idle(): Promise<void> {
    return this.lanes.idle();
  }

  busy(sessionKey: string): boolean {
    return this.lanes.busy(sessionKey);
  }

  waiting(sessionKey: string): Turn[] {
    return this.lanes.waiting(sessionKey);
  }

  clearWaiting(sessionKey: string): Turn[] {
    return this.lanes.clear(sessionKey);
  }

  enqueue(turn: Turn): void {
    this.lanes.push(turn.sessionKey, turn);
  }

  /**
   * Writes a delivered cron output into the chat's session (`cron.mirror_delivery`), in the
   * session's lane so it never lands in the middle of a running turn; the agent reloads the
   * transcript on its next turn.
   */
  private mirrorIntoSession(mirror: DeliveryMirror): void {
    const { sessionKey } = mirror;
    const message: InboundMessage = {
      platform: sessionKey.split(":")[2] ?? "unknown",
      chatId: "",
      chatType: "dm",
      userId: "",
      messageId: `mirror-${this.now()}`,
      text: "",
    };
    this.enqueue({
      sessionKey,
      message,
      extra: [],
      command: async () => {
        const route = await this.store.sessionRoute(sessionKey);
        if (!route) {
          this.log(`${sessionKey}: no session to write the scheduled job's message into`);
          return;
        }
        await this.runtime.store.appendMessage(route.sessionId, { role: "assistant", content: mirror.text });
        this.runtime.evict(sessionKey);
      },
    });
  }

  /** The session's agent if one is in memory (never creates one). */
  cachedAgent(sessionKey: string): Agent | undefined {
    return this.runtime.cachedKeys().includes(sessionKey) ? this.runtime.agentFor(sessionKey) : undefined;
  }

  async start(): Promise<void> {
    await this.deliveries.start();
    // Finished background subagents come back to their chats as turns.
    this.detachBackground = deliverBackgroundResults(this);
    for (const adapter of this.adapters.values()) {
      const supervisor = new AdapterSupervisor(adapter, {
        inbound: (message) => this.accept(message),
        admits: (message) => this.admits(message),
        log: (message) => this.log(message),
        baseDelayMs: this.options.reconnectBaseMs ?? 1000,
        connectTimeoutMs: this.settings.connectTimeoutMs,
        ...(this.options.watchdogMs !== undefined ? { watchdogMs: this.options.watchdogMs } : {}),
        ...(this.options.coordination ? { coordination: this.options.coordination } : {}),
        ...(this.options.ownershipCheckMs !== undefined ? { ownershipCheckMs: this.options.ownershipCheckMs } : {}),
      });
      this.supervisors.push(supervisor);
    }
    await Promise.all(this.supervisors.map((s) => s.start()));
    await this.recover();
    await this.prune();
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
    if (this.shared) {
      this.orphanSweeper = setInterval(() => void this.recover(), this.options.orphanSweepMs ?? 30_000);
      this.orphanSweeper.unref();
    }
  }

  /** Whether other replicas share the store (PostgreSQL), so sessions are leased turn by turn. */
  get shared(): boolean {
    return this.options.coordination?.shared ?? false;
  }

  /**
   * Answered inbound records and finished deliveries are kept for a week (platforms redeliver
   * within hours; a week covers a gateway that was down for days), then dropped.
   */
  async prune(now = this.now()): Promise<void> {
    try {
      const inbound = await this.store.pruneInbound(now - KEEP_RECORDS_MS);
      const deliveries = await this.store.pruneDeliveries(now - KEEP_RECORDS_MS);
      if (inbound + deliveries > 0)
        this.log(`pruned ${inbound} inbound and ${deliveries} delivery record(s) older than 7 days`);
    } catch (error) {
      this.log(`pruning old records failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /**
   * Stops taking messages, lets runs finish for up to `drainMs`, interrupts the rest, sends what
   * the ledger holds, and disconnects the platforms.
   */
  async stop(drainMs = 0): Promise<void> {
    this.stopping = true;
    this.stopController.abort();
    clearInterval(this.pruner);
    clearInterval(this.orphanSweeper);
    // A sweep under way may still hand turns to the lanes: let it finish first.
    await this.recovering;
    await Promise.allSettled([...this.accepting]);
    const drained = await settlesWithin(this.lanes.idle(), drainMs);
    if (!drained) {
      // Turns that have not started stay unanswered in the store and run after the restart.
      const left = this.lanes.clearAll().filter((turn) => !turn.command).length;
      this.log(
        `runs still going after the drain timeout; interrupting them${left ? ` (${left} waiting turn(s) run after the restart)` : ""}`,
      );
      this.interactions.cancelAll();
      for (const key of this.runtime.cachedKeys()) {
        const agent = this.runtime.agentFor(key);
        if (agent.running) agent.interrupt("the gateway is shutting down");
      }
      await this.lanes.idle();
    }
    await this.deliveries.stop();
    await Promise.all(this.supervisors.map((s) => s.stop()));
    // Messages recorded during the drain are written before the store can close.
    await Promise.allSettled([...this.accepting]);
    this.detachBackground?.();
  }

  /**
   * Takes an inbound message from an adapter; errors are logged, never thrown at the adapter.
   * Resolves true once the message is stored (so the adapter may acknowledge it), false when
   * storing it failed.
   */
  private accept(message: InboundMessage): Promise<boolean> {
    let stored: (ok: boolean) => void = () => undefined;
    const outcome = new Promise<boolean>((resolve) => {
      stored = resolve;
    });
    // While stopping, a message is only recorded: the next start answers it.
    const handle = this.stopping
      ? this.record(message).then(() => stored(true))
      : this.dispatch(message, false, () => stored(true));
    const work = handle.catch((error: unknown) => {
      stored(false);
      this.log(
        `inbound ${message.platform}:${message.messageId} failed: ${error instanceof Error ? error.message : error}`,
      );
    });
    this.accepting.add(work);
    void work.finally(() => this.accepting.delete(work));
    return outcome;
  }

  private async record(message: InboundMessage): Promise<void> {
    const key = { platform: message.platform, chatId: message.chatId, messageId: message.messageId };
    await this.store.claimInbound(key, buildSessionKey(message, this.settings.keys), message, this.now());
  }

  private async dispatch(message: InboundMessage, recovered: boolean, stored?: () => void): Promise<void> {
    const { store, settings } = this;
    const sessionKey = buildSessionKey(message, settings.keys);
    const key = { platform: message.platform, chatId: message.chatId, messageId: message.messageId };
    if (!recovered) {
      const claim = await store.claimInbound(key, sessionKey, message, this.now());
      stored?.();
      if (!claim.accepted) {
        this.log(`ignored a repeat of ${message.platform} message ${message.messageId} (${claim.record.state})`);
        return;
      }
    }
    const auth = this.decidedAhead.take(message) ?? (await this.admit(message));
    if (!auth.allowed) {
      if (auth.action === "pair") {
        const request = await requestPairing(message, store);
        if (request) await this.reply(message, sessionKey, pairingReply(request));
      }
      this.log(`refused ${message.platform} user ${message.userId}: ${auth.why}`);
      await store.finishInbound(key, this.now());
      return;
    }
    if (message.deliverOnly) {
      await this.reply(message, sessionKey, message.text);
      await store.finishInbound(key, this.now());
      return;
    }
    const command = this.commandIn(message);
    if (command) {
      const context: CommandContext = { runner: this, message, sessionKey, admin: auth.admin };
      await handleCommand(context, command);
      await store.finishInbound(key, this.now());
      return;
    }
    if (this.interactions.answerQuestion(sessionKey, message.text)) {
      await store.finishInbound(key, this.now());
      return;
    }
    await this.route({ sessionKey, message, extra: [] });
  }

  /** Whether the sender may talk to the agent (signed senders, such as webhooks, always may). */
  admit(message: InboundMessage): Promise<AuthDecision> {
    const adapter = this.adapters.get(message.platform);
    if (adapter?.authenticatesSenders) {
      return Promise.resolve({ allowed: true, admin: false, via: "signed by the sender" });
    }
    return authorize(message, this.settings, this.store, adapter?.vouchFor?.bind(adapter));
  }

  /** `admit`'s answer for an adapter asking ahead (AdapterEvents.admits): false when it cannot tell. */
  private async admits(message: InboundMessage): Promise<boolean> {
    try {
      const decision = await this.admit(message);
      this.decidedAhead.remember(message, decision);
      return decision.allowed;
    } catch {
      return false;
    }
  }

  /** The slash command a message carries; signed senders (webhooks) write prompts, not commands. */
  commandIn(message: InboundMessage): ParsedCommand | undefined {
    const adapter = this.adapters.get(message.platform);
    if (adapter?.authenticatesSenders) return undefined;
    return parseCommand(message.text) ?? (adapter?.bangCommands ? parseBangCommand(message.text) : undefined);
  }

  /** A new turn for a session: run now, or by the busy-input mode when the session is busy. */
  private async route(turn: Turn): Promise<void> {
    const { sessionKey, message } = turn;
    if (!this.lanes.busy(sessionKey)) return this.enqueue(turn);
    const agent = this.cachedAgent(sessionKey);
    switch (this.settings.busyMode) {
      case "steer":
        if (agent?.running) {
          agent.steer(message.text);
          await this.reply(message, sessionKey, "↪ Added to what I am working on.");
          await this.finish(message);
          return;
        }
        return this.enqueue(turn);
      case "queue": {
        const waiting = this.lanes.waiting(sessionKey);
        const last = waiting.at(-1);
        if (waiting.length >= this.settings.queueLimit && last) {
          // Full: the message rides along with the last queued one instead of being dropped.
          last.extra.push(message);
          await this.reply(
            message,
            sessionKey,
            `Queue full (${waiting.length}); I added this to the last queued message.`,
          );
          return;
        }
        this.enqueue(turn);
        await this.reply(message, sessionKey, `Queued: I will get to this next (${waiting.length} waiting).`);
        return;
      }
      default:
        this.enqueue(turn);
        agent?.interrupt("a new message arrived");
        return;
    }
  }

  async finish(message: InboundMessage): Promise<void> {
    await this.store.finishInbound(
      { platform: message.platform, chatId: message.chatId, messageId: message.messageId },
      this.now(),
    );
  }

  /** Points the chat's session key at `sessionId` (a new, resumed or continued session). */
  async routeSession(sessionKey: string, message: InboundMessage, sessionId: string): Promise<void> {
    await this.store.setSessionRoute(
      { sessionKey, sessionId, platform: message.platform, chatId: message.chatId },
      this.now(),
    );
  }

  /** Where answers to `message` go: its own chat, or the target its platform named. */
  async replyTarget(message: InboundMessage): Promise<ReplyTarget> {
    const own = { platform: message.platform, chatId: message.chatId, threadId: message.threadId ?? null };
    const to = message.deliverTo;
    if (!to) return own;
    if (to.chatId) return { platform: to.platform, chatId: to.chatId, threadId: to.threadId ?? null };
    const home = await this.store.homeChannel(to.platform);
    if (home) return { platform: to.platform, chatId: home.chatId, threadId: home.threadId };
    const configured = configuredHomeChannel(this.runtime.config, to.platform);
    if (configured) return { platform: to.platform, chatId: configured, threadId: null };
    this.log(
      `${to.platform} has no home channel (send /sethome there); the answer to ${message.platform} ${message.chatId} goes to the log`,
    );
    return own;
  }

  /** Sends a text to where answers to the message go, through the ledger. */
  async reply(message: InboundMessage, sessionKey: string | null, text: string): Promise<void> {
    const target = await this.replyTarget(message);
    const adapter = this.adapters.get(target.platform);
    const formatted = adapter?.formatMarkdown ? adapter.formatMarkdown(text) : text;
    await this.deliveries.deliver({ ...target, sessionKey, text: formatted });
  }

  /** Asks the chat to approve a command; waits for /approve or /deny, denying on timeout. */
  askApproval(message: InboundMessage, sessionKey: string, request: ApprovalRequest): Promise<ApprovalAnswer> {
    return askApprovalInChat(this, message, sessionKey, request);
  }

  /** Asks the chat a question (buttons where the platform has them) and waits for the answer. */
  askQuestion(message: InboundMessage, sessionKey: string, question: string, choices?: string[]): Promise<string> {
    return askQuestionInChat(this, message, sessionKey, question, choices);
  }

  /**
   * After a restart: messages that were never answered run again; one that crashed us twice is
   * set aside. With replicas this also runs every `orphanSweepMs`, and takes only messages whose
   * session no live replica holds (one that died mid-turn lets its lease run out).
   */
  private recover(): Promise<void> {
    this.recovering ??= this.recoverUnfinished()
      .catch((error: unknown) => {
        this.log(`looking for unanswered messages failed: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.recovering = undefined;
      });
    return this.recovering;
  }

  private async recoverUnfinished(): Promise<void> {
    const max = this.settings.maxInboundAttempts;
    for (const record of await this.store.unfinishedInbound()) {
      if (this.stopping) return;
      const message = record.payload as InboundMessage;
      if (this.shared) {
        // This replica already has the session's turns in hand, or another live one does, or the
        // replica that stored the message a moment ago is about to run it.
        const sessionKey = buildSessionKey(message, this.settings.keys);
        if (this.lanes.busy(sessionKey)) continue;
        if (record.updatedAt > Date.now() - (this.options.orphanGraceMs ?? 10_000)) continue;
        if (!(await this.replicas!.lease(sessionKey))) continue;
        await this.replicas!.release(sessionKey);
      }
      if (record.state === "running" && record.attempts >= max) {
        await this.store.quarantineInbound(
          record,
          `handling it stopped the gateway ${record.attempts} times`,
          this.now(),
        );
        this.log(`quarantined ${record.platform} message ${record.messageId} after ${record.attempts} attempts`);
        const preview = message.text.length > 80 ? `${message.text.slice(0, 77)}...` : message.text;
        await this.reply(
          message,
          record.sessionKey,
          `I set your message aside ("${preview}"): handling it stopped me ${record.attempts} times. Send it again, perhaps reworded, if you still want an answer.`,
        );
        continue;
      }
      await this.dispatch(message, true);
    }
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  if (ms <= 0) {
    let done = false;
    void promise.then(() => {
      done = true;
    });
    await Promise.resolve();
    return done;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([promise.then(() => true as const), timeout]);
  clearTimeout(timer);
  return result;
}
