/**
 * Memory for one agent: the built-in MEMORY.md / USER.md store, plus at most one external
 * provider (a vector store, a user-modelling service, ...). The built-in store feeds a frozen
 * snapshot into the system prompt at session start; a provider may add its own block there,
 * recall context for each user message (fenced, sent at call time only), learn from each
 * finished turn and expose tools. Provider failures are reported, never thrown into the turn.
 */
import type { MemoryStore } from "../state/memory-store.js";
import type { ToolSpec } from "../tools/registry.js";
import { fenceMemoryContext } from "./memory-scrubber.js";

export interface MemoryProvider {
  readonly name: string;
  /** Text for the system prompt, read once at session start. */
  systemPromptBlock(): string | Promise<string>;
  /** Memory relevant to the user's message, or "" when there is none. */
  prefetch(query: string): Promise<string>;
  /** Learn from a finished turn. */
  syncTurn(user: string, assistant: string): Promise<void>;
  /** Start recalling for the next turn in the background. */
  queuePrefetch(query: string): void;
  /** Extra tools the provider offers (registered under its own toolset). */
  tools(): ToolSpec[];
}

export interface MemoryManagerOptions {
  store?: MemoryStore;
  provider?: MemoryProvider;
  /** Told about provider failures and rejected registrations. */
  onWarning?: (message: string) => void;
}

export class MemoryManager {
  readonly store: MemoryStore | undefined;
  private providerInstance: MemoryProvider | undefined;
  private readonly warn: (message: string) => void;

  constructor(options: MemoryManagerOptions = {}) {
    this.store = options.store;
    this.warn = options.onWarning ?? (() => {});
    if (options.provider) this.addProvider(options.provider);
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

  /**
   * The memory layer of a new session's system prompt. The built-in snapshot is refreshed
   * here, so writes of an earlier session show up, while writes during this session wait
   * for the next one.
   */
  async systemPromptBlock(): Promise<string> {
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
  async recall(query: string): Promise<string> {
    const provider = this.providerInstance;
    if (!provider) return "";
    const recalled = await this.guard("recall", () => provider.prefetch(query));
    return recalled ? fenceMemoryContext(recalled) : "";
  }

  /** After a finished turn: let the provider learn from it and start recalling for the next one. */
  async finishTurn(user: string, assistant: string): Promise<void> {
    const provider = this.providerInstance;
    if (!provider) return;
    await this.guard("turn sync", () => provider.syncTurn(user, assistant));
    await this.guard("prefetch", async () => provider.queuePrefetch(user));
  }

  tools(): ToolSpec[] {
    return this.providerInstance ? this.providerInstance.tools() : [];
  }

  private async guard<T>(what: string, action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action();
    } catch (error) {
      const name = this.providerInstance?.name ?? "memory";
      this.warn(`memory provider "${name}" failed during ${what}: ${error instanceof Error ? error.message : error}`);
      return undefined;
    }
  }
}
