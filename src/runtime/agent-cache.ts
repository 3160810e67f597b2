/**
 * The agents a long-lived process keeps in memory, by session key: least recently used first
 * out when the cache is full, and dropped after an idle period. An agent in the middle of a run
 * is never dropped. Dropping one loses nothing: its transcript is in the session store and a
 * new agent for the same key reloads it.
 */
import type { Agent } from "../agent/agent.js";

export interface AgentCacheOptions {
  maxAgents: number;
  /** Drop agents unused for this long (ms); 0 keeps them until the cache is full. */
  idleMs: number;
  now?: () => number;
}

interface Entry {
  agent: Agent;
  lastUsed: number;
}

export class AgentCache {
  /** Map order is use order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(private readonly options: AgentCacheOptions) {
    this.now = options.now ?? Date.now;
    if (options.idleMs > 0) {
      this.sweeper = setInterval(() => this.dropIdle(), Math.max(1000, Math.floor(options.idleMs / 2)));
      this.sweeper.unref();
    }
  }

  get size(): number {
    return this.entries.size;
  }

  keys(): string[] {
    return [...this.entries.keys()];
  }

  agents(): Agent[] {
    return [...this.entries.values()].map((entry) => entry.agent);
  }

  /** The agent for `key`, marked as just used. */
  get(key: string): Agent | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    entry.lastUsed = this.now();
    this.entries.set(key, entry);
    return entry.agent;
  }

  set(key: string, agent: Agent): void {
    this.entries.delete(key);
    this.entries.set(key, { agent, lastUsed: this.now() });
    this.trim();
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  /** Drop every idle agent unused for longer than `idleMs`. Returns the keys dropped. */
  dropIdle(): string[] {
    if (this.options.idleMs <= 0) return [];
    const cutoff = this.now() - this.options.idleMs;
    const dropped: string[] = [];
    for (const [key, entry] of this.entries) {
      if (entry.lastUsed <= cutoff && !entry.agent.running) {
        this.entries.delete(key);
        dropped.push(key);
      }
    }
    return dropped;
  }

  /** Over the limit, drop least recently used agents that are not running. */
  private trim(): void {
    if (this.entries.size <= this.options.maxAgents) return;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.options.maxAgents) break;
      if (!entry.agent.running) this.entries.delete(key);
    }
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.entries.clear();
  }
}
