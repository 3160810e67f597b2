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
  /** Depth of the delegation tree: 1 = children cannot delegate; at most 3. */
  max_spawn_depth: number;
  /** Model for subagents; empty = the parent's. */
  model?: string;
  /** Provider for subagents; empty = the parent's. */
  provider?: string;
}

export const DELEGATION_DEFAULTS: Readonly<DelegationSettings> = {
  max_iterations: 50,
  max_concurrent_children: 3,
  max_spawn_depth: 1,
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
    max_spawn_depth: Math.min(depth, MAX_SPAWN_DEPTH_LIMIT),
    ...(input.model?.trim() ? { model: input.model.trim() } : {}),
    ...(input.provider?.trim() ? { provider: input.provider.trim() } : {}),
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

/**
 * A factory of subagent options derived from the parent's: same provider, model, registry,
 * services and working directory, unless `delegation.provider` / `delegation.model` say
 * otherwise. A different provider drops the parent's endpoint, key and transport so the
 * child resolves its own. `overrides` win over everything.
 */
export function childOptionsFrom(
  parent: AgentOptions,
  settings: Partial<Pick<DelegationSettings, "model" | "provider">> = {},
): (overrides: Partial<AgentOptions>) => AgentOptions {
  const provider = settings.provider?.trim();
  const model = settings.model?.trim();
  return (overrides) => {
    let base: AgentOptions = { ...parent };
    if (provider && provider !== parent.provider) base = { ...withoutEndpoint(base), provider };
    if (model && model !== parent.model) {
      // The parent's context length belongs to the parent's model; let the child look its own up.
      const { contextLength: _contextLength, ...rest } = base;
      base = { ...rest, model };
    }
    return { ...base, ...overrides };
  };
}
