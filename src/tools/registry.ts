/**
 * The root of the tool system: a tool is data plus a handler. This module imports nothing
 * from the project, so every other part can depend on it.
 */

/** What a tool handler may reach of the agent. Every member is optional: surfaces differ. */
export interface ToolContext {
  /** Working directory for file and terminal tools. */
  cwd: string;
  /** Session the call belongs to. */
  sessionId?: string;
  /** Task id of the running turn (shared by a parent and its subagents). */
  taskId?: string;
  /** Aborted when the user interrupts the turn. */
  signal: AbortSignal;
  /** Platform that drives the agent ("cli", "api_server", "cron", ...). */
  platform?: string;
  /** Whether a person is present to answer prompts. */
  interactive?: boolean;
  /** Ask the user a question (clarify tool). Resolves with the answer. */
  clarify?: (question: string, choices?: string[]) => Promise<string>;
  /** Ask the user to approve a dangerous action. */
  requestApproval?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
  /** Report progress of a long-running tool. */
  progress?: (text: string) => void;
  /** Agent services exposed to tools, keyed by name (memory store, session search, delegation). */
  services?: Record<string, unknown>;
  /**
   * The session's permission mode or one of the user's `permissions.allow` rules already allows
   * this call: approvals let it run without asking. Hardline blocks and deny rules still apply.
   */
  preapproved?: boolean;
}

export interface ApprovalRequest {
  command: string;
  reason: string;
  key?: string | null;
}

export type ApprovalAnswer = "once" | "session" | "always" | "deny";

/**
 * What a tool's `parameters` must offer: checking arguments and describing them as JSON Schema.
 * Schemas from `z` in util/schema satisfy it, and so do zod 4 schemas.
 */
export interface ParameterSchema<Out = unknown> {
  /** Returns the checked value or throws. */
  parse(value: unknown): Out;
  safeParse(
    value: unknown,
  ):
    | { success: true; data: Out }
    | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } };
  toJSONSchema(options?: { io?: "input" | "output"; unrepresentable?: "any" | "throw" }): unknown;
}

export type ParametersOf<S> = S extends ParameterSchema<infer Out> ? Out : never;

export interface ToolSpec<S extends ParameterSchema<unknown> = ParameterSchema> {
  name: string;
  toolset: string;
  description: string;
  parameters: S;
  handler: (args: ParametersOf<S>, ctx: ToolContext) => Promise<string>;
  /** Whether the tool is usable right now (keys present, binary installed). */
  check?: () => boolean | Promise<boolean>;
  /** Safe to run concurrently with other parallel-safe calls. */
  parallelSafe?: boolean;
  /** Argument names that hold file paths, for overlap checks between concurrent calls. */
  pathArgs?: string[];
  /** Cap on the result text; longer results are truncated with a marker. */
  maxResultChars?: number;
  /**
   * The result carries text from outside (web pages, MCP servers) that may try to instruct the
   * model; it reaches the model fenced as data.
   */
  untrustedOutput?: boolean;
  emoji?: string;
  /** Replace a tool of the same name registered by another toolset. */
  override?: boolean;
  /** Raw JSON schema to publish instead of the one derived from `parameters` (MCP tools). */
  jsonSchema?: Record<string, unknown>;
}

export interface FunctionDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export const DEFAULT_MAX_RESULT_CHARS = 100_000;
const CHECK_CACHE_MS = 30_000;

export class ToolRegistryError extends Error {}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolSpec>();
  private readonly checkCache = new Map<string, { ok: boolean; at: number }>();
  private readonly schemaOverrides = new Map<string, Partial<FunctionDefinition["function"]>>();
  private definitionCache: { key: string; generation: number; defs: FunctionDefinition[] } | undefined;
  /** Bumped on every change, so memoized definitions are rebuilt. */
  generation = 0;

  register<S extends ParameterSchema<unknown>>(spec: ToolSpec<S>): void {
    const existing = this.tools.get(spec.name);
    if (existing && existing.toolset !== spec.toolset && !spec.override && !isMcpReplacement(existing, spec)) {
      throw new ToolRegistryError(
        `tool "${spec.name}" is already registered by toolset "${existing.toolset}"; set override to replace it`,
      );
    }
    this.tools.set(spec.name, spec as unknown as ToolSpec);
    this.checkCache.delete(spec.name);
    this.generation++;
  }

  deregister(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) {
      this.checkCache.delete(name);
      this.schemaOverrides.delete(name);
      this.generation++;
    }
    return removed;
  }

  get(name: string): ToolSpec | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  all(): ToolSpec[] {
    return [...this.tools.values()];
  }

  /** Change the published description or schema of a tool without re-registering it. */
  overrideSchema(name: string, override: Partial<FunctionDefinition["function"]>): void {
    this.schemaOverrides.set(name, override);
    this.generation++;
  }

  async isAvailable(name: string, now = Date.now()): Promise<boolean> {
    const spec = this.tools.get(name);
    if (!spec) return false;
    if (!spec.check) return true;
    const cached = this.checkCache.get(name);
    if (cached && now - cached.at < CHECK_CACHE_MS) return cached.ok;
    let ok: boolean;
    try {
      ok = await spec.check();
    } catch {
      ok = false;
    }
    this.checkCache.set(name, { ok, at: now });
    return ok;
  }

  /** OpenAI function definitions for the named tools, in the given order, memoized per generation. */
  definitions(names: string[]): FunctionDefinition[] {
    const key = names.join("\u0000");
    const cache = this.definitionCache;
    if (cache && cache.key === key && cache.generation === this.generation) return cache.defs;
    const defs: FunctionDefinition[] = [];
    for (const name of names) {
      const spec = this.tools.get(name);
      if (!spec) continue;
      const override = this.schemaOverrides.get(name) ?? {};
      defs.push({
        type: "function",
        function: {
          name,
          description: override.description ?? spec.description,
          parameters: override.parameters ?? spec.jsonSchema ?? toJsonSchema(spec.parameters),
        },
      });
    }
    this.definitionCache = { key, generation: this.generation, defs };
    return defs;
  }
}

function isMcpReplacement(existing: ToolSpec, incoming: ToolSpec): boolean {
  return existing.toolset.startsWith("mcp-") && incoming.toolset.startsWith("mcp-");
}

export function toJsonSchema(schema: ParameterSchema<unknown>): Record<string, unknown> {
  const json = { ...(schema.toJSONSchema({ io: "input", unrepresentable: "any" }) as Record<string, unknown>) };
  delete json.$schema;
  return json;
}

/** Cut a tool result to `limit` characters, keeping head and tail and saying what was removed. */
export function capResult(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.7);
  const tail = Math.floor(limit * 0.2);
  const removed = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[... output truncated: ${removed} characters removed of ${text.length} ...]\n\n${text.slice(text.length - tail)}`;
}
