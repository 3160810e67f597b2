/**
 * Memory for one agent: the built-in MEMORY.md / USER.md store, plus at most one external
 * provider (a vector store, a user-modelling service, the local fact store, ...). The built-in
 * store feeds a frozen snapshot into the system prompt at session start; a provider may add its
 * own block there, recall context for each user message (fenced, sent at call time only), learn
 * from each finished turn, from messages about to be compressed away and from writes to the
 * built-in store, and expose tools. Provider failures are reported, never thrown into the turn.
 */
import type { Message } from "../llm/types.js";
import type { MemoryStore, MemoryStoreWrite } from "../state/memory-store.js";
import type { ToolSpec } from "../tools/registry.js";
import { fenceMemoryContext } from "./memory-scrubber.js";

/** Which session a call is about. */
export interface MemoryTurn {
  sessionId: string;
  platform: string;
}

export type MemoryWrite = MemoryStoreWrite;

/**
 * What an external memory provider implements. The lifecycle methods marked optional are
 * called when present: `isAvailable` (false → not used, with a warning), `initialize` (once,
 * before anything else), `onPreCompress` (messages about to be summarised away),
 * `onSessionEnd`, `onMemoryWrite` (the `memory` tool changed MEMORY.md or USER.md) and
 * `shutdown` (the process is closing).
 */
export interface MemoryProvider {
  readonly name: string;
  isAvailable?(): boolean | Promise<boolean>;
  initialize?(): void | Promise<void>;
  /** Text for the system prompt, read once at session start. */
  systemPromptBlock(): string | Promise<string>;
  /** Memory relevant to the user's message, or "" when there is none. */
  prefetch(query: string, turn?: MemoryTurn): Promise<string>;
  /** Learn from a finished turn. */
  syncTurn(user: string, assistant: string, turn?: MemoryTurn): Promise<void>;
  /** Start recalling for the next turn in the background. */
  queuePrefetch(query: string, turn?: MemoryTurn): void;
  /** Extra tools the provider offers (registered under its own toolset). */
  tools(): ToolSpec[];
  onPreCompress?(messages: readonly Message[], turn: MemoryTurn): void | Promise<void>;
  onSessionEnd?(messages: readonly Message[], turn: MemoryTurn): void | Promise<void>;
  onMemoryWrite?(write: MemoryWrite): void | Promise<void>;
  shutdown?(): void | Promise<void>;
}

/** A provider, or how to make one on first use (so a session that never recalls never opens it). */
export type MemoryProviderSource = MemoryProvider | (() => Promise<MemoryProvider | undefined>);

export interface MemoryManagerOptions {
  store?: MemoryStore;
  provider?: MemoryProviderSource;
  /** Told about provider failures and rejected registrations. */
  onWarning?: (message: string) => void;
}

export class MemoryManager {
  readonly store: MemoryStore | undefined;
  private providerInstance: MemoryProvider | undefined;
  private pending: (() => Promise<MemoryProvider | undefined>) | undefined;
  private loading: Promise<void> | undefined;
  private readonly warn: (message: string) => void;

  constructor(options: MemoryManagerOptions = {}) {
    this.store = options.store;
    this.warn = options.onWarning ?? (() => {});
    const source = options.provider;
    if (typeof source === "function") this.pending = source;
    else if (source) this.addProvider(source);
    this.store?.onWrite((write) => {
      const provider = this.providerInstance;
      if (provider?.onMemoryWrite) void this.guard("memory write", async () => provider.onMemoryWrite?.(write));
    });
  }

  get provider(): MemoryProvider | undefined {
    return this.providerInstance;
  }

  /** Registers the external provider; a second one is refused, so tools and recall never conflict. */
  addProvider(provider: MemoryProvider): boolean {
    if (this.providerInstance) {
      this.warn(
        `memory provider "${provider.name}" was not added: "${this.providerInstance.name}" is already active and only one external provider is allowed`,
      );
      return false;
    }
    this.providerInstance = provider;
    return true;
  }

  /** Makes, checks and initialises a provider given as a factory; resolves once it is usable or dropped. */
  ready(): Promise<void> {
    const make = this.pending;
    if (!make) return Promise.resolve();
    this.loading ??= (async () => {
      const provider = await this.guard("start-up", make);
      this.pending = undefined;
      if (!provider) return;
      const available = await this.guard(
        "availability check",
        async () => (await provider.isAvailable?.()) ?? true,
        provider,
      );
      if (!available) {
        this.warn(`memory provider "${provider.name}" is not available; memory stays in MEMORY.md and USER.md`);
        return;
      }
      const initialized = await this.guard(
        "initialisation",
        async () => {
          await provider.initialize?.();
          return true;
        },
        provider,
      );
      if (initialized) this.addProvider(provider);
    })();
    return this.loading;
  }

  /**
   * The memory layer of a new session's system prompt. The built-in snapshot is refreshed
   * here, so writes of an earlier session show up, while writes during this session wait
   * for the next one.
   */
  async systemPromptBlock(): Promise<string> {
    await this.ready();
    const blocks: string[] = [];
    const snapshot = this.store?.refreshSnapshot().trim();
    if (snapshot) blocks.push(snapshot);
    const external = await this.guard("system prompt block", async () => this.providerInstance?.systemPromptBlock());
    if (external?.trim()) blocks.push(external.trim());
    return blocks.join("\n\n");
  }

  /** A new user turn begins: reset the store's per-turn failure counter. */
  startTurn(): void {
    this.store?.startTurn();
  }

  /** Recalled memory for this message, already fenced; "" when nothing was recalled. */
  async recall(query: string, turn?: MemoryTurn): Promise<string> {
    await this.ready();
    const provider = this.providerInstance;
    if (!provider) return "";
    const recalled = await this.guard("recall", () => provider.prefetch(query, turn));
    return recalled ? fenceMemoryContext(recalled) : "";
  }

  /** After a finished turn: let the provider learn from it and start recalling for the next one. */
  async finishTurn(user: string, assistant: string, turn?: MemoryTurn): Promise<void> {
    const provider = this.providerInstance;
    if (!provider) return;
    await this.guard("turn sync", () => provider.syncTurn(user, assistant, turn));
    await this.guard("prefetch", async () => provider.queuePrefetch(user, turn));
  }

  /** Messages are about to be summarised away: the provider may keep what it needs from them. */
  async beforeCompress(messages: readonly Message[], turn: MemoryTurn): Promise<void> {
    const provider = this.providerInstance;
    if (provider?.onPreCompress)
      await this.guard("pre-compression", async () => provider.onPreCompress?.(messages, turn));
  }

  async endSession(messages: readonly Message[], turn: MemoryTurn): Promise<void> {
    const provider = this.providerInstance;
    if (provider?.onSessionEnd) await this.guard("session end", async () => provider.onSessionEnd?.(messages, turn));
  }

  /** The process is closing: the provider flushes and releases what it holds. */
  async shutdown(): Promise<void> {
    const provider = this.providerInstance;
    this.providerInstance = undefined;
    this.pending = undefined;
    if (provider?.shutdown) await this.guard("shutdown", async () => provider.shutdown?.(), provider);
  }

  tools(): ToolSpec[] {
    return this.providerInstance ? this.providerInstance.tools() : [];
  }

  private async guard<T>(
    what: string,
    action: () => Promise<T>,
    subject = this.providerInstance,
  ): Promise<T | undefined> {
    try {
      return await action();
    } catch (error) {
      const name = subject?.name ?? "memory";
      this.warn(`memory provider "${name}" failed during ${what}: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }
}
