/**
 * The `delegation` config section as the delegate tool reads it, and how a parent's options
 * become the starting point of a subagent's options.
 */
import type { AgentOptions } from "../options.js";

export interface DelegationSettings {
  /** Iterations each subagent may use (`delegation.max_iterations`). */
  max_iterations: number;
  /** Subagents of one batch running at once (`delegation.max_concurrent_children`). */
  max_concurrent_children: number;
  /** Background subagents (`delegate_task` with `background: true`) running at once per process. */
  max_async_children: number;
  /** Depth of the delegation tree: 1 = children cannot delegate; at most 3. */
  max_spawn_depth: number;
  /** Model for subagents; empty = the parent's. */
  model?: string;
  /** Provider for subagents; empty = the parent's. */
  provider?: string;
  /** An OpenAI-compatible endpoint for subagents; wins over `provider`. */
  base_url?: string;
  /** The key for `base_url`; empty = OPENAI_API_KEY. */
  api_key?: string;
  /** The wire protocol for `base_url` (chat_completions, responses, anthropic_messages); empty = detected. */
  api_mode?: string;
  /** Reasoning effort of subagents; empty = the parent's. */
  reasoning_effort?: string;
  /** Characters of a subagent's summary the parent gets; a longer one is cut with a note. */
  max_summary_chars: number;
  /** Seconds a subagent may run before it is interrupted; 0 = no limit. */
  child_timeout_seconds: number;
  /** Whether a subagent may take the orchestrator role (delegate again, within max_spawn_depth). */
  orchestrator_enabled: boolean;
  /** Subagents get the parent's MCP tools (toolsets `mcp-<server>`). */
  inherit_mcp_toolsets: boolean;
  /** Subagents' dangerous commands and guarded actions count as approved instead of being refused. */
  subagent_auto_approve: boolean;
}

export const DELEGATION_DEFAULTS: Readonly<DelegationSettings> = {
  max_iterations: 50,
  max_concurrent_children: 3,
  max_async_children: 3,
  max_spawn_depth: 1,
  max_summary_chars: 24_000,
  child_timeout_seconds: 0,
  orchestrator_enabled: true,
  inherit_mcp_toolsets: true,
  subagent_auto_approve: false,
};

export const MAX_SPAWN_DEPTH_LIMIT = 3;

function positiveInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
}

/** Fills in defaults and keeps every limit in range (depth is clamped to 1..3). */
export function normalizeDelegationSettings(input: Partial<DelegationSettings> = {}): DelegationSettings {
  const depth = positiveInteger(input.max_spawn_depth, DELEGATION_DEFAULTS.max_spawn_depth);
  return {
    max_iterations: positiveInteger(input.max_iterations, DELEGATION_DEFAULTS.max_iterations),
    max_concurrent_children: positiveInteger(
      input.max_concurrent_children,
      DELEGATION_DEFAULTS.max_concurrent_children,
    ),
    max_async_children: positiveInteger(input.max_async_children, DELEGATION_DEFAULTS.max_async_children),
    max_spawn_depth: Math.min(depth, MAX_SPAWN_DEPTH_LIMIT),
    max_summary_chars: positiveInteger(input.max_summary_chars, DELEGATION_DEFAULTS.max_summary_chars),
    child_timeout_seconds:
      input.child_timeout_seconds !== undefined && input.child_timeout_seconds > 0 ? input.child_timeout_seconds : 0,
    orchestrator_enabled: input.orchestrator_enabled ?? DELEGATION_DEFAULTS.orchestrator_enabled,
    inherit_mcp_toolsets: input.inherit_mcp_toolsets ?? DELEGATION_DEFAULTS.inherit_mcp_toolsets,
    subagent_auto_approve: input.subagent_auto_approve ?? DELEGATION_DEFAULTS.subagent_auto_approve,
    ...(input.model?.trim() ? { model: input.model.trim() } : {}),
    ...(input.provider?.trim() ? { provider: input.provider.trim() } : {}),
    ...(input.base_url?.trim() ? { base_url: input.base_url.trim() } : {}),
    ...(input.api_key?.trim() ? { api_key: input.api_key.trim() } : {}),
    ...(input.api_mode?.trim() ? { api_mode: input.api_mode.trim() } : {}),
    ...(input.reasoning_effort?.trim() ? { reasoning_effort: input.reasoning_effort.trim() } : {}),
  };
}

/** Fields that tie options to one provider endpoint; dropped when a subagent uses another provider. */
function withoutEndpoint(options: AgentOptions): AgentOptions {
  const {
    baseUrl: _baseUrl,
    apiKey: _apiKey,
    apiMode: _apiMode,
    credentialPool: _pool,
    transport: _t,
    ...rest
  } = options;
  return rest;
}

type EndpointSettings = Pick<
  DelegationSettings,
  "model" | "provider" | "base_url" | "api_key" | "api_mode" | "reasoning_effort"
>;

/**
 * A factory of subagent options derived from the parent's: same provider, model, registry,
 * services and working directory, unless the `delegation` section says otherwise. `base_url`
 * sends subagents to that endpoint with `api_key` (or OPENAI_API_KEY; never the parent's key,
 * which belongs to the parent's endpoint) and wins over `provider`; a different provider drops
 * the parent's endpoint, key and transport so the child resolves its own. `overrides` win over
 * everything.
 */
export function childOptionsFrom(
  parent: AgentOptions,
  settings: Partial<EndpointSettings> = {},
  env: NodeJS.ProcessEnv = process.env,
): (overrides: Partial<AgentOptions>) => AgentOptions {
  const provider = settings.provider?.trim();
  const model = settings.model?.trim();
  const baseUrl = settings.base_url?.trim();
  const effort = settings.reasoning_effort?.trim();
  return (overrides) => {
    let base: AgentOptions = { ...parent };
    if (baseUrl) {
      const apiKey = settings.api_key?.trim() || env.OPENAI_API_KEY?.trim();
      const apiMode = settings.api_mode?.trim();
      base = {
        ...withoutEndpoint(base),
        provider: "custom",
        baseUrl,
        ...(apiKey ? { apiKey } : {}),
        ...(apiMode ? { apiMode: apiMode as NonNullable<AgentOptions["apiMode"]> } : {}),
      };
    } else if (provider && provider !== parent.provider) base = { ...withoutEndpoint(base), provider };
    if ((model && model !== parent.model) || baseUrl) {
      // The parent's context length belongs to the parent's model and endpoint; the child looks its own up.
      const { contextLength: _contextLength, ...rest } = base;
      base = { ...rest, ...(model ? { model } : {}) };
    }
    if (effort) base = { ...base, reasoningEffort: effort };
    return { ...base, ...overrides };
  };
}
