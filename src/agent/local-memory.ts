/**
 * The built-in "local" memory provider (`memory.provider: local`): facts about the user and
 * their environment in a SQLite file beside MEMORY.md, learnt from what the user says and from
 * the `memory` tool, recalled by relevance into each turn's `<memory-context>` block, with
 * duplicates and superseded values consolidated. With `memory.local.embedding_base_url` set, an
 * OpenAI-compatible embeddings endpoint adds similarity by meaning to the word match.
 */
import { join } from "node:path";
import type { Message } from "../llm/types.js";
import { FACTS_FILE, type FactStore } from "../state/fact-store.js";
import { openFactStore } from "../state/sqlite-fact-store.js";
import type { ToolContext, ToolSpec } from "../tools/registry.js";
import { z } from "../util/schema/index.js";
import { acceptableFact, extractFacts } from "./fact-extraction.js";
import type { MemoryProvider, MemoryTurn, MemoryWrite } from "./memory-manager.js";

export interface LocalMemorySettings {
  max_recall: number;
  embedding_base_url: string;
  embedding_model: string;
}

export interface LocalMemoryOptions {
  /** The memory directory (where MEMORY.md lives); the facts go in `facts.db` there. */
  dir: string;
  settings: LocalMemorySettings;
  onWarning?: (message: string) => void;
  now?: () => number;
}

const EMBEDDING_TIMEOUT_MS = 10_000;

/** Text of the user messages in a transcript (tool results and assistant text are not the user's word). */
function userTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => {
    if (message.role !== "user") return [];
    if (typeof message.content === "string") return [message.content];
    if (!message.content) return [];
    return message.content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  });
}

export class LocalMemoryProvider implements MemoryProvider {
  readonly name = "local";
  private store: FactStore | undefined;
  private readonly settings: LocalMemorySettings;
  private readonly now: () => number;
  private readonly warn: (message: string) => void;
  private embeddingWarned = false;

  constructor(private readonly options: LocalMemoryOptions) {
    this.settings = options.settings;
    this.now = options.now ?? Date.now;
    this.warn = options.onWarning ?? (() => {});
  }

  get path(): string {
    return join(this.options.dir, FACTS_FILE);
  }

  initialize(): void {
    this.store ??= openFactStore(this.path);
  }

  systemPromptBlock(): string {
    return (
      "Local fact memory is on: facts the user stated in earlier sessions are recalled into a " +
      "<memory-context> block with their messages when relevant. memory_remember stores a fact the " +
      "user wants kept, memory_recall searches the facts, memory_forget removes wrong or outdated ones."
    );
  }

  async prefetch(query: string): Promise<string> {
    const hits = await this.search(query, this.settings.max_recall);
    return hits.map((hit) => `- ${hit.fact.text}`).join("\n");
  }

  /** Recall here is one local query, so it runs for the real next message instead of a guess. */
  queuePrefetch(): void {}

  async syncTurn(user: string, _assistant: string, turn?: MemoryTurn): Promise<void> {
    await this.learn([user], "user", turn?.sessionId);
  }

  async onPreCompress(messages: readonly Message[], turn: MemoryTurn): Promise<void> {
    await this.learn(userTexts(messages), "user", turn.sessionId);
  }

  async onSessionEnd(messages: readonly Message[], turn: MemoryTurn): Promise<void> {
    await this.learn(userTexts(messages), "user", turn.sessionId);
  }

  async onMemoryWrite(write: MemoryWrite): Promise<void> {
    if (write.action === "remove") {
      this.facts().forget({ text: write.content });
      return;
    }
    if (acceptableFact(write.content)) await this.remember(write.content, "memory");
  }

  shutdown(): void {
    this.store?.close();
    this.store = undefined;
  }

  tools(): ToolSpec[] {
    return [this.recallTool(), this.rememberTool(), this.forgetTool()];
  }

  /** Stores one fact (consolidated with what is there); returns what happened, for the tool. */
  async remember(text: string, source: string, sessionId?: string, subject?: string): Promise<string> {
    const embedding = await this.embed(text);
    const write = this.facts().add(
      {
        text,
        source,
        ...(subject ? { subject } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(embedding ? { embedding } : {}),
      },
      this.now(),
    );
    return write.action === "added"
      ? `Remembered (fact ${write.fact.id}).`
      : `Updated fact ${write.fact.id} (was: ${write.previous}).`;
  }

  /**
   * Tools are registered once per process, but each memory scope (a gateway user) has its own
   * provider: a call works on the one of the session that makes it.
   */
  private forSession(ctx: ToolContext): LocalMemoryProvider {
    const own = ctx.services?.memoryProvider;
    return own instanceof LocalMemoryProvider ? own : this;
  }

  private facts(): FactStore {
    this.initialize();
    return this.store!;
  }

  private async learn(texts: string[], source: string, sessionId?: string): Promise<void> {
    for (const text of texts) {
      for (const fact of extractFacts(text)) await this.remember(fact.text, source, sessionId, fact.subject);
    }
  }

  private async search(query: string, limit: number) {
    const embedding = await this.embed(query);
    return this.facts().search(query, { limit, ...(embedding ? { embedding } : {}) });
  }

  /** The query's vector from the configured endpoint; undefined when none is set or it fails. */
  private async embed(text: string): Promise<Float32Array | undefined> {
    const base = this.settings.embedding_base_url;
    if (!base) return undefined;
    try {
      const response = await fetch(`${base.replace(/\/+$/, "")}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: this.settings.embedding_model || undefined, input: text }),
        signal: AbortSignal.timeout(EMBEDDING_TIMEOUT_MS),
      });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = (await response.json()) as { data?: Array<{ embedding?: unknown }> };
      const vector = body.data?.[0]?.embedding;
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === "number")) {
        throw new Error("the reply has no data[0].embedding array of numbers");
      }
      this.embeddingWarned = false;
      return Float32Array.from(vector as number[]);
    } catch (error) {
      if (!this.embeddingWarned) {
        this.embeddingWarned = true;
        this.warn(
          `memory.local.embedding_base_url (${base}) did not answer with an embedding (${error instanceof Error ? error.message : error}); recalling by words only`,
        );
      }
      return undefined;
    }
  }

  private recallTool(): ToolSpec {
    const parameters = z.object({
      query: z.string().describe("What to look for in the stored facts"),
      limit: z.number().int().min(1).max(50).optional().describe("How many facts at most (default 10)"),
    });
    return {
      name: "memory_recall",
      toolset: "memory",
      description:
        "Search the facts remembered about the user and their environment. Returns matching facts with their ids.",
      parameters,
      parallelSafe: true,
      handler: async (args: z.infer<typeof parameters>, ctx) => {
        const hits = await this.forSession(ctx).search(args.query, args.limit ?? 10);
        if (hits.length === 0) return "No stored fact matches.";
        return hits.map((hit) => `[${hit.fact.id}] ${hit.fact.text}`).join("\n");
      },
    } as ToolSpec;
  }

  private rememberTool(): ToolSpec {
    const parameters = z.object({
      fact: z.string().min(1).describe("One declarative fact, e.g. 'The user deploys with Fly.io'"),
    });
    return {
      name: "memory_remember",
      toolset: "memory",
      description:
        "Store a durable fact about the user or their environment (facts, not instructions; never secrets). Returns whether it was stored or merged.",
      parameters,
      handler: async (args: z.infer<typeof parameters>, ctx) => {
        const fact = args.fact.trim();
        if (!acceptableFact(fact)) {
          return "Not stored: the fact holds a secret or text that reads like an instruction to the agent. Store a plain fact instead.";
        }
        return this.forSession(ctx).remember(fact, "tool", ctx.sessionId);
      },
    } as ToolSpec;
  }

  private forgetTool(): ToolSpec {
    const parameters = z.object({
      id: z.number().int().optional().describe("The fact's id, as shown by memory_recall"),
      text: z.string().optional().describe("Remove every fact containing this text"),
    });
    return {
      name: "memory_forget",
      toolset: "memory",
      description: "Remove a wrong or outdated fact by id or text. Returns how many facts were removed.",
      parameters,
      handler: async (args: z.infer<typeof parameters>, ctx) => {
        if (args.id === undefined && !args.text?.trim()) return "Give the fact's id or a piece of its text.";
        const removed = this.forSession(ctx)
          .facts()
          .forget(args.id !== undefined ? { id: args.id } : { text: args.text! });
        return removed
          ? `Forgot ${removed} fact${removed === 1 ? "" : "s"}.`
          : "No stored fact matched; nothing removed.";
      },
    } as ToolSpec;
  }
}
