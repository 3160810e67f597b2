/** Agent construction options, and how they turn into model routes and the enabled tool list. */

import type { CredentialPool } from "../llm/credential-pool.js";
import { createTransport } from "../llm/providers.js";
import type { ApiMode, Message, Transport } from "../llm/types.js";
import type { MemoryStore } from "../state/memory-store.js";
import type { SessionStore } from "../state/session-store.js";
import type { PermissionGate } from "../tools/permissions/gate.js";
import type { ToolContext, ToolRegistry } from "../tools/registry.js";
import { resolveToolsets } from "../tools/toolsets.js";
import type { IterationBudget } from "./budget.js";
import type { TurnCheckpointer } from "./checkpointing.js";
import type { CompressionSettings } from "./compression-driver.js";
import type { SummarizeFn } from "./compressor.js";
import type { ContextEngineFactory } from "./context-engine.js";
import type { AgentListener } from "./events.js";
import type { ToolGuardrails } from "./guardrails.js";
import type { HookRunner } from "./hooks.js";
import type { MemoryManager } from "./memory-manager.js";
import type { ModelRoute, RetryPolicy } from "./model-call.js";
import type { PromptGuidance } from "./prompt-guidance.js";
import type { TerminalEnvironment } from "./system-prompt.js";
import type { TurnCheckSettings } from "./turn-checks.js";

export interface RouteSpec {
  provider: string;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  apiMode?: ApiMode;
  /** Several keys for this provider; rotated on errors flagged for rotation. */
  credentialPool?: CredentialPool;
  /** Longest wait for the first byte of a reply (`agent.first_byte_timeout`). */
  firstByteTimeoutMs?: number;
}

/** A completed turn, as the learning loop reads it. */
export interface FinishedTurn {
  sessionId: string;
  platform: string;
  /** Whether a person is there (one-shot runs, API requests and cron jobs have nobody). */
  interactive: boolean;
  userMessage: string;
  finalResponse: string;
  toolCalls: number;
  /** The turn's messages, from the user's message on. */
  messages: Message[];
  /** The session's MEMORY.md / USER.md store, and its directory. */
  memory?: MemoryStore;
  memoryDir?: string;
  /** Shows the user one line about what was learnt (after the turn, as a status event). */
  announce(message: string): void;
}

/** Reviews finished turns for something worth keeping (the runtime's learning loop). */
export interface TurnLearner {
  turnFinished(turn: FinishedTurn): void;
}

export interface AgentOptions {
  model: string;
  provider?: string;
  baseUrl?: string;
  apiKey?: string;
  apiMode?: ApiMode;
  /** Several keys for the primary provider (`hermes auth add`); rotated on 401/402/429. */
  credentialPool?: CredentialPool;
  /** Use this transport instead of building one from provider/baseUrl/apiKey. */
  transport?: Transport;
  /** Tried in order when the primary fails with an error flagged for fallback (`fallback_providers`). */
  fallbackProviders?: RouteSpec[];
  /** Maximum model calls per conversation run (`agent.max_turns`, default 90). */
  maxIterations?: number;
  /**
   * Estimated tokens the tool schemas may take (`agent.tool_schema_budget`); past it, MCP tools and
   * rarely used built-ins are found through tool_search instead. 0 or unset: every schema is sent.
   */
  toolSchemaBudget?: number;
  /** How the project context layer is found (the runtime passes a cached lookup); default: read the files. */
  contextFilesPrompt?: (cwd: string) => string | undefined;
  /** A budget shared with a parent agent (subagents). */
  iterationBudget?: IterationBudget;
  registry?: ToolRegistry;
  enabledToolsets?: string[];
  disabledToolsets?: string[];
  /** The IANA zone the system prompt states the time in (`timezone`); unset: the UTC date only. */
  timeZone?: string;
  /** The user's own words about this environment (`agent.environment_hint`), added to the environment layer. */
  environmentHint?: string;
  /** `platform_hints`: the platform layer's text per platform, in place of the built-in one ("" drops it). */
  platformHints?: Record<string, string>;
  /** Exact tool names to enable; overrides the toolsets. */
  tools?: string[];
  platform?: string;
  sessionId?: string;
  sessionStore?: SessionStore;
  /** HERMES_HOME, for SOUL.md and other per-user files. */
  home?: string;
  cwd?: string;
  /** Use this system prompt instead of building one. */
  systemPrompt?: string;
  /**
   * Messages sent after the system prompt in every request and never stored (few-shot priming,
   * `prefill_messages_file`).
   */
  prefillMessages?: Message[];
  /** The conversation's personality (`/personality`): its name and instructions, in the ephemeral layer. */
  personality?: { name: string; prompt: string };
  /** Added to the system prompt of every request but never stored with the session. */
  ephemeralSystemPrompt?: string;
  /** The skills catalog for the system prompt. */
  skillsIndex?: string;
  /** `agent.*` switches for the system prompt's guidance; default DEFAULT_PROMPT_GUIDANCE. */
  guidance?: PromptGuidance;
  /** What is checked before a final answer ends a turn; unset: nothing. */
  turnChecks?: TurnCheckSettings;
  /** Load AGENTS.md and the other project context files from `cwd` (default true). */
  loadContextFiles?: boolean;
  /** A remote terminal backend whose facts replace the local environment hint. */
  terminalEnvironment?: TerminalEnvironment;
  /**
   * Persistent memory. Default: the built-in MEMORY.md / USER.md store under `home` when
   * `home` is set; `false` turns memory off.
   */
  memory?: MemoryManager | false;
  /** Plugin and shell hooks around the session, model calls and tool calls (shared per process). */
  hooks?: HookRunner;
  /**
   * The session's permission mode (plan, ask, auto-edit, yolo) and the user's allow/deny rules,
   * enforced before each tool call. Per session: the mode changes with /mode and Shift+Tab.
   */
  permissions?: PermissionGate;
  /**
   * Every tool call counts as approved ahead, as a `permissions.allow` rule would make it:
   * subagents under `delegation.subagent_auto_approve`. Hardline commands and deny rules still refuse.
   */
  autoApprove?: boolean;
  /** The learning loop: told about every completed turn (never given to subagents). */
  learning?: TurnLearner;
  /**
   * Snapshots projects before the first change of each turn (`checkpoints.enabled`), for
   * `/rollback`. Per session.
   */
  checkpoints?: TurnCheckpointer;
  /** Keeps the context in bounds instead of the built-in compressor (`context.engine`). */
  contextEngine?: ContextEngineFactory;
  /** The model's context window in tokens (`model.context_length`); looked up when unset. */
  contextLength?: number;
  /** `compression.*` settings. */
  compression?: CompressionSettings;
  /** Writes compression summaries; defaults to a non-streaming call on the primary route. */
  summarize?: SummarizeFn;
  maxTokens?: number;
  temperature?: number;
  reasoningEffort?: string;
  /** Append each finished run to `trajectory_samples.jsonl` / `failed_trajectories.jsonl` under `home`. */
  saveTrajectories?: boolean;
  /** Prompt caching for providers that support it (`prompt_caching.*`): a TTL, or `false` for none. */
  promptCache?: { ttl?: "5m" | "1h" } | false;
  /**
   * OpenRouter's response cache (`openrouter.response_cache*`): requests to OpenRouter ask it to
   * answer an identical request from its cache for this long. Unset: not asked.
   */
  responseCache?: { ttlSeconds: number };
  /** Extra fields merged into every request body (e.g. Ollama's `options.num_ctx`). */
  extraBody?: Record<string, unknown>;
  /** `agent.service_tier`: the provider's processing tier, sent with every model request. */
  serviceTier?: string;
  retry?: Partial<RetryPolicy>;
  /** Longest wait for the first byte of a model reply (default 30 s; `agent.first_byte_timeout`). */
  firstByteTimeoutMs?: number;
  /** A reply's text or reasoning beyond this many bytes is cut with a note (`agent.max_reply_bytes`, 1 MiB). */
  maxReplyBytes?: number;
  /** Tool-loop guardrails; `false` turns them off. */
  guardrails?: ToolGuardrails | false;
  /** Agent services handed to tools through their context (memory store, session search, ...). */
  services?: Record<string, unknown>;
  clarify?: ToolContext["clarify"];
  requestApproval?: ToolContext["requestApproval"];
  /** A person is present to answer prompts. */
  interactive?: boolean;
  quiet?: boolean;
  onEvent?: AgentListener;
}

function transportFor(spec: RouteSpec, apiKey: string | undefined): Promise<Transport> {
  return createTransport({
    provider: spec.provider,
    model: spec.model,
    ...(spec.baseUrl ? { baseUrl: spec.baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(spec.apiMode ? { apiMode: spec.apiMode } : {}),
    ...(spec.firstByteTimeoutMs ? { timeouts: { headersMs: spec.firstByteTimeoutMs } } : {}),
  });
}

async function routeFor(spec: RouteSpec): Promise<ModelRoute> {
  const pool = spec.credentialPool;
  const pooledKey = pool ? (pool.current() ?? pool.select())?.accessToken : undefined;
  const route: ModelRoute = {
    provider: spec.provider,
    model: spec.model,
    transport: await transportFor(spec, pooledKey ?? spec.apiKey),
  };
  if (pool) {
    // Each route rotates only its own pool, so a fallback's 429 never marks the primary's keys.
    route.rotateCredential = async (error) => {
      const next = pool.markExhaustedAndRotate({
        ...(error.statusCode !== undefined ? { statusCode: error.statusCode } : {}),
        reason: error.errorCode ?? error.reason,
        ...(error.resetAt !== undefined ? { resetAt: error.resetAt } : {}),
      });
      return next ? transportFor(spec, next.accessToken) : undefined;
    };
  }
  return route;
}

export async function resolveRoutes(options: AgentOptions): Promise<ModelRoute[]> {
  const provider = options.provider ?? (options.baseUrl ? "custom" : "openrouter");
  const primary: ModelRoute = options.transport
    ? { provider, model: options.model, transport: options.transport }
    : await routeFor({
        provider,
        model: options.model,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.apiMode ? { apiMode: options.apiMode } : {}),
        ...(options.credentialPool ? { credentialPool: options.credentialPool } : {}),
        ...(options.firstByteTimeoutMs ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {}),
      });
  const waitLimit = options.firstByteTimeoutMs ? { firstByteTimeoutMs: options.firstByteTimeoutMs } : {};
  const fallbacks = await Promise.all(
    (options.fallbackProviders ?? []).map((spec) => routeFor({ ...spec, ...waitLimit })),
  );
  return [primary, ...fallbacks];
}

/** Names of the tools this agent may call: registered, enabled by toolset, and passing their checks. */
export async function resolveToolNames(options: AgentOptions): Promise<string[]> {
  const registry = options.registry;
  if (!registry) return [];
  let names: string[];
  if (options.tools) {
    names = options.tools;
  } else {
    const enabled = options.enabledToolsets ?? [`hermes-${(options.platform ?? "cli").replace(/_/g, "-")}`];
    const disabled = new Set(resolveToolsets(options.disabledToolsets ?? []));
    names = resolveToolsets(enabled).filter((name) => !disabled.has(name));
    // A tool registered under a toolset name the toolset table does not know (a library
    // user's own tools) is enabled by naming that toolset.
    const enabledSets = new Set(enabled);
    const disabledSets = new Set(options.disabledToolsets ?? []);
    for (const spec of registry.all()) {
      const wanted = enabledSets.has(spec.toolset) && !disabledSets.has(spec.toolset);
      if (wanted && !disabled.has(spec.name) && !names.includes(spec.name)) names.push(spec.name);
    }
  }
  const available: string[] = [];
  for (const name of names) {
    if (registry.has(name) && (await registry.isAvailable(name))) available.push(name);
  }
  return available;
}
