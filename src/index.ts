/** The public library API of hermes-agent. This file only re-exports. */

// Agent
export { Agent, type RunOptions, type RunResult } from "./agent/agent.js";
export { IterationBudget } from "./agent/budget.js";
export {
  type CompressionResult,
  ContextCompressor,
  type ContextCompressorOptions,
  computeThresholdTokens,
} from "./agent/compressor.js";
export type { ContextEngine, ContextEngineFactory, ContextEngineInput } from "./agent/context-engine.js";
export { delegationDepsFrom, registerDelegateTool } from "./agent/delegation.js";
export { AgentEmitter, type AgentEvent, type AgentListener } from "./agent/events.js";
export {
  canonicalToolArgs,
  classifyToolFailure,
  type GuardrailDecision,
  guardrailsConfigFromYaml,
  ToolGuardrails,
  type ToolGuardrailsConfig,
} from "./agent/guardrails.js";
export { historyProblems, repairHistory } from "./agent/history.js";
export {
  HOOK_EVENTS,
  type HookEvent,
  type HookHandler,
  type HookPayloads,
  type HookReturns,
  HookRunner,
} from "./agent/hooks.js";
export { MemoryManager, type MemoryProvider } from "./agent/memory-manager.js";
export { ModelCallError } from "./agent/model-call.js";
export type { AgentOptions, RouteSpec } from "./agent/options.js";
export { buildSystemPrompt } from "./agent/system-prompt.js";

// Cron schedules
export { computeNextRun, isSilentResponse, parseDuration, parseSchedule } from "./cron/schedule.js";

// LLM layer
export { CredentialPool, type CredentialPoolOptions, type PoolStrategy } from "./llm/credential-pool.js";
export {
  type ClassifiedError,
  type ClassifyContext,
  classifyApiError,
  type FailoverReason,
  LlmError,
} from "./llm/errors.js";
export { collect, ThinkTagSplitter } from "./llm/normalize.js";
export { applyCacheMarkers } from "./llm/prompt-caching.js";
export { createTransport, PROVIDERS, type ProviderSpec, resolveApiMode, resolveProvider } from "./llm/providers.js";
export type {
  ApiMode,
  ContentPart,
  FinishReason,
  LlmEvent,
  LlmRequest,
  Message,
  ToolCall,
  ToolDefinition,
  Transport,
  Usage,
} from "./llm/types.js";
export { estimateCost } from "./llm/usage.js";
// Plugins
export type {
  HermesPlugin,
  MemoryProviderFactory,
  MemoryProviderInput,
  PluginApi,
  PluginCliCommand,
  PluginCliIo,
  PluginCommand,
  PluginCommandContext,
  PluginPlatform,
  PluginPlatformContext,
  PluginTool,
  PluginToolset,
} from "./runtime/plugins/api.js";
export { loadPlugins, type PluginReport, type PluginSet } from "./runtime/plugins/loader.js";
// State
export { loadConfig } from "./state/config.js";
export { DEFAULT_CONFIG } from "./state/config-defaults.js";
export type { HermesConfig } from "./state/config-schema.js";
export { MemoryStore } from "./state/memory-store.js";
export { hermesHome, hermesPaths } from "./state/paths.js";
export { openSessionStore, type SessionStore, SessionStoreError } from "./state/session-store.js";
export { writeTrajectory } from "./state/trajectories.js";
// Tools
export { detectDangerousCommand, detectHardlineCommand } from "./tools/approval/dangerous.js";
export { ApprovalPolicy } from "./tools/approval/policy.js";
export { registerBuiltinTools } from "./tools/builtin/index.js";
export { fuzzyFindAndReplace } from "./tools/fuzzy-patch.js";
export {
  formatMcpStatus,
  McpManager,
  type McpManagerOptions,
  type McpServerSettings,
  type McpServerStatus,
  probeMcpServer,
} from "./tools/mcp/index.js";
export type {
  ApprovalAnswer,
  ApprovalRequest,
  ParameterSchema,
  ParametersOf,
  ToolContext,
  ToolSpec,
} from "./tools/registry.js";
export { capResult, ToolRegistry, ToolRegistryError } from "./tools/registry.js";
export {
  buildSkillsIndex,
  discoverSkills,
  expandSkillCommand,
  installSkillDir,
  manageSkill,
  registerSkillsTools,
  type Skill,
  type SkillCatalog,
  type SkillCommand,
  type SkillProblem,
  type SkillsToolsOptions,
  scanSkillText,
  seedBundledSkills,
} from "./tools/skills/index.js";
export {
  getToolset,
  listToolsets,
  registerCustomToolsets,
  registerToolset,
  resolveToolset,
  resolveToolsets,
  ToolsetCatalog,
  unregisterToolset,
  validateToolset,
} from "./tools/toolsets.js";
// Helpers
export { backoffDelayMs } from "./util/backoff.js";
export { repairToolArguments } from "./util/json-repair.js";
export { redactSecrets } from "./util/redact.js";
export { SchemaError, z } from "./util/schema/index.js";
export { scanForThreats } from "./util/threats.js";
export { packageVersion } from "./util/version.js";
