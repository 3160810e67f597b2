/** The agent options every session of a runtime starts from, built once from config.yaml. */

import { join } from "node:path";
import type { AgentOptions } from "../agent/agent.js";
import { type AuxiliaryClient, createAuxiliaryClient, summarizeWithAuxiliary } from "../agent/auxiliary.js";
import type { SummarizeFn } from "../agent/compressor.js";
import { DEFAULT_CONTEXT_LENGTH } from "../agent/context-window.js";
import { guardrailsConfigFromYaml, ToolGuardrails } from "../agent/guardrails.js";
import { MemoryManager, type MemoryProviderSource } from "../agent/memory-manager.js";
import { resolveRoutes } from "../agent/options.js";
import type { CredentialPool } from "../llm/credential-pool.js";
import type { HermesConfig } from "../state/config-schema.js";
import { LearningLedger } from "../state/learning-ledger.js";
import { MemoryStore } from "../state/memory-store.js";
import { hermesPaths } from "../state/paths.js";
import type { SessionStore } from "../state/session-store.js";
import type { ApprovalPolicy } from "../tools/approval/policy.js";
import type { ToolRegistry } from "../tools/registry.js";
import { effectiveSchemaBudget } from "../tools/tool-search.js";
import type { ContextCheck } from "./context-check.js";
import type { ModelChoice } from "./model-choice.js";
import type { RuntimeOverrides } from "./runtime.js";

/** A memory scope name as a directory name: anything else becomes `_`, and it is never empty. */
export function memoryScopeDir(scope: string): string {
  const safe = scope
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 120);
  return safe || "_";
}

/** The external provider (`memory.provider`) for a memory directory, and where warnings go. */
export interface MemoryWiring {
  provider?: (dir: string) => MemoryProviderSource;
  onWarning?: (message: string) => void;
}

/**
 * `memory.*` in config: the built-in MEMORY.md / USER.md with their limits, plus the external
 * provider when one is configured, or no memory at all.
 */
export function memoryOption(
  home: string,
  config: HermesConfig,
  scope?: string,
  wiring: MemoryWiring = {},
): Pick<AgentOptions, "memory"> {
  if (!config.memory.memory_enabled) return { memory: false };
  const root = hermesPaths(home).memoriesDir;
  const dir = scope === undefined ? root : join(root, "scopes", memoryScopeDir(scope));
  const store = new MemoryStore({
    dir,
    memoryCharLimit: config.memory.memory_char_limit,
    userCharLimit: config.memory.user_char_limit,
    userProfileEnabled: config.memory.user_profile_enabled,
  });
  return {
    memory: new MemoryManager({
      store,
      ...(wiring.provider ? { provider: wiring.provider(dir) } : {}),
      ...(wiring.onWarning ? { onWarning: wiring.onWarning } : {}),
    }),
  };
}

/**
 * The auxiliary client (`auxiliary.<task>`, `auto` = the main model first), built on first use
 * so a session that never needs it never pays for it. `agentOptions` is read at that moment.
 */
export function lazyAuxiliaryClient(
  config: HermesConfig,
  agentOptions: () => AgentOptions,
  notice: (message: string) => void,
): () => Promise<AuxiliaryClient> {
  let client: Promise<AuxiliaryClient> | undefined;
  return () => {
    client ??= resolveRoutes(agentOptions()).then(([mainRoute]) =>
      createAuxiliaryClient({
        config,
        ...(mainRoute ? { mainRoute } : {}),
        env: process.env,
        onNotice: notice,
      }),
    );
    return client;
  };
}

/** Compression summaries go to the auxiliary model of the `compression` task. */
function lazySummarizer(auxiliary: () => Promise<AuxiliaryClient>): SummarizeFn {
  return async (prompt, opts) => summarizeWithAuxiliary(await auxiliary())(prompt, opts);
}

/**
 * Settings that name something this build does not have, with what happens instead.
 * `contextEngines`: the engines plugins registered.
 */
export function unavailableFeatures(
  config: HermesConfig,
  contextEngines: readonly string[] = [],
  memoryProviders: readonly string[] = [],
): string[] {
  const notes: string[] = [];
  if (config.context.engine !== "compressor" && !contextEngines.includes(config.context.engine)) {
    notes.push(
      `context.engine "${config.context.engine}" is not available; the built-in compressor manages the context`,
    );
  }
  if (config.memory.provider && !memoryProviders.includes(config.memory.provider)) {
    notes.push(
      `memory.provider "${config.memory.provider}" is not available (known: ${memoryProviders.join(", ") || "none"}); memory stays in MEMORY.md and USER.md`,
    );
  }
  if (!config.security.redact_secrets) {
    notes.push(
      "security.redact_secrets: false is not honoured: secrets stay masked in tool output, logs and transcripts",
    );
  }
  return notes;
}

export interface BaseOptionsInput {
  /** The process's approval policy, which file tools ask before writing where files run later. */
  approvals: ApprovalPolicy;
  home: string;
  cwd: string;
  config: HermesConfig;
  choice: ModelChoice;
  overrides: RuntimeOverrides;
  store: SessionStore;
  registry: ToolRegistry;
  context: ContextCheck;
  skillsIndex: string;
  auxiliary: () => Promise<AuxiliaryClient>;
  platform: string;
  interactive: boolean;
  credentialPool?: CredentialPool;
  memory?: MemoryWiring;
}

export function baseAgentOptions(input: BaseOptionsInput): AgentOptions {
  const { config, choice, overrides, context, store } = input;
  return {
    model: choice.model,
    provider: choice.info.id,
    ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
    ...(overrides.apiKey ? { apiKey: overrides.apiKey } : {}),
    ...(choice.apiMode ? { apiMode: choice.apiMode } : {}),
    ...(input.credentialPool ? { credentialPool: input.credentialPool } : {}),
    fallbackProviders: config.fallback_providers.map((f) => ({
      provider: f.provider,
      model: f.model,
      ...(f.base_url ? { baseUrl: f.base_url } : {}),
      ...(f.api_mode && f.api_mode !== "auto" ? { apiMode: f.api_mode as NonNullable<AgentOptions["apiMode"]> } : {}),
    })),
    maxIterations: overrides.maxTurns ?? config.agent.max_turns,
    toolSchemaBudget: effectiveSchemaBudget(
      config.agent.tool_schema_budget,
      config.tools.tool_search,
      context.contextLength,
    ),
    retry: { maxRetries: config.agent.api_max_retries },
    ...(config.agent.disabled_toolsets.length ? { disabledToolsets: [...config.agent.disabled_toolsets] } : {}),
    ...(config.timezone ? { timeZone: config.timezone } : {}),
    ...(config.agent.environment_hint.trim() ? { environmentHint: config.agent.environment_hint } : {}),
    ...(Object.keys(config.platform_hints).length ? { platformHints: { ...config.platform_hints } } : {}),
    firstByteTimeoutMs: Math.round(config.agent.first_byte_timeout * 1000),
    maxReplyBytes: config.agent.max_reply_bytes,
    registry: input.registry,
    platform: input.platform,
    sessionStore: store,
    home: input.home,
    cwd: input.cwd,
    interactive: input.interactive,
    services: {
      sessionSearch: (query: string, limit: number) => store.search(query, { limit }),
      approvals: input.approvals,
      ...(config.memory.write_approval || config.skills.write_approval
        ? { writeApproval: { memory: config.memory.write_approval, skills: config.skills.write_approval } }
        : {}),
      // Every change the model makes to its memory and skills is recorded, to be seen and undone.
      changeLedger: new LearningLedger(input.home),
    },
    quiet: true,
    skillsIndex: input.skillsIndex,
    guidance: {
      toolUseEnforcement: config.agent.tool_use_enforcement,
      taskCompletion: config.agent.task_completion_guidance,
      parallelToolCalls: config.agent.parallel_tool_call_guidance,
      environmentProbe: config.agent.environment_probe,
      coding: { mode: config.agent.coding_context, instructions: config.agent.coding_instructions },
    },
    turnChecks: {
      intentAckContinuation: config.agent.intent_ack_continuation,
      verifyOnStop: config.agent.verify_on_stop,
      maxVerifyNudges: config.agent.max_verify_nudges,
      verifyGuidance: config.agent.verify_guidance,
    },
    saveTrajectories: Boolean(overrides.saveTrajectories) || config.agent.save_trajectories,
    promptCache: config.prompt_caching.enabled ? { ttl: config.prompt_caching.cache_ttl } : false,
    // A front end's "regenerate" resends the same request and expects a new answer.
    ...(config.openrouter.response_cache && input.platform !== "api_server"
      ? { responseCache: { ttlSeconds: config.openrouter.response_cache_ttl } }
      : {}),
    guardrails: new ToolGuardrails(guardrailsConfigFromYaml(config.tool_loop_guardrails)),
    ...memoryOption(input.home, config, undefined, input.memory),
    compression: {
      enabled: config.compression.enabled,
      threshold: config.compression.threshold,
      targetRatio: config.compression.target_ratio,
      protectFirstN: config.compression.protect_first_n,
      protectLastN: config.compression.protect_last_n,
      abortOnSummaryFailure: config.compression.abort_on_summary_failure,
      hygieneMessageLimit: config.compression.hygiene_hard_message_limit,
      inPlace: config.compression.in_place,
      codexAutoraise: config.compression.codex_gpt55_autoraise,
    },
    // A server that was already probed is not probed again by the agent: unknown means the default.
    ...(context.contextLength || context.probed
      ? { contextLength: context.contextLength ?? DEFAULT_CONTEXT_LENGTH }
      : {}),
    ...(context.extraBody ? { extraBody: context.extraBody } : {}),
    ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
    ...(config.agent.reasoning_effort ? { reasoningEffort: config.agent.reasoning_effort } : {}),
    ...(config.agent.service_tier.trim() ? { serviceTier: config.agent.service_tier.trim() } : {}),
    summarize: lazySummarizer(input.auxiliary),
  };
}
