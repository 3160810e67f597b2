/**
 * Builds a ready Agent for a surface from HERMES_HOME (config.yaml, .env) and command-line
 * flags: resolves provider and model, registers the built-in tools, opens the session store.
 */
import { resolve as resolvePath } from "node:path";
import { Agent, type AgentOptions } from "../agent/agent.js";
import { smartJudgeWithAuxiliary } from "../agent/approval-judge.js";
import { type AuxiliaryClient, createAuxiliaryClient, summarizeWithAuxiliary } from "../agent/auxiliary.js";
import { IterationBudget } from "../agent/budget.js";
import type { SummarizeFn } from "../agent/compressor.js";
import { DEFAULT_CONTEXT_LENGTH } from "../agent/context-window.js";
import { delegationDepsFrom, registerDelegateTool } from "../agent/delegation.js";
import { guardrailsConfigFromYaml, ToolGuardrails } from "../agent/guardrails.js";
import { MemoryManager } from "../agent/memory-manager.js";
import { resolveRoutes } from "../agent/options.js";
import type { CredentialPool } from "../llm/credential-pool.js";
import { PROVIDERS, resolveProvider } from "../llm/providers.js";
import type { ApiMode } from "../llm/types.js";
import { AuthStoreError } from "../state/auth-store.js";
import { loadConfigAsync } from "../state/config-load.js";
import type { HermesConfig } from "../state/config-schema.js";
import { loadDotEnv } from "../state/dotenv.js";
import { MemoryStore } from "../state/memory-store.js";
import { hermesHome, hermesPaths } from "../state/paths.js";
import { openSessionStore, type SessionStore } from "../state/session-store.js";
import type { ApprovalPolicy } from "../tools/approval/policy.js";
import { type ToolContext, ToolRegistry } from "../tools/registry.js";
import { checkContextWindow } from "./context-check.js";
import { loadCredentialPool, persistPool } from "./credentials.js";
import { UsageError } from "./exit-codes.js";
import { type DetectOptions, detectLocalServer } from "./local-servers.js";
import type { ChatFlags } from "./program.js";
import { assembleTools, awaitMcp } from "./runtime-tools.js";

export interface Runtime {
  agent: Agent;
  config: HermesConfig;
  model: string;
  provider: string;
  store: SessionStore;
  /** The approval policy shared by the shell tools (`/yolo` flips its `yolo` flag). */
  approvals: ApprovalPolicy;
  /** Restart the MCP servers from the current config.yaml (`/reload-mcp`); returns status lines. */
  reloadMcp(): Promise<string[]>;
  /** The base URL in use, when one was given or detected. */
  baseUrl?: string;
  /** The auxiliary-model client for side tasks (titles, summaries), built on first use. */
  auxiliary(): Promise<AuxiliaryClient>;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  interactive: boolean;
  quiet: boolean;
  /** Answers the clarify tool (interactive surfaces). */
  clarify?: ToolContext["clarify"];
  /** Asks the user about dangerous commands (interactive surfaces). */
  requestApproval?: ToolContext["requestApproval"];
  /** Where to look for a local model server when nothing is configured; `false` skips the probe. */
  localServers?: DetectOptions | false;
}

export const NO_PROVIDER_HELP = [
  "no model provider is configured. Three ways to fix it:",
  "  1. run `hermes setup` to pick a provider, key and model;",
  "  2. export a provider key (e.g. OPENROUTER_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY) and pass --model;",
  "  3. use a local server: --provider custom --base-url http://127.0.0.1:11434/v1 --model NAME",
].join("\n");

/** The first catalog provider whose API key is present in the environment. */
export function providerFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return PROVIDERS.find((p) => p.id !== "custom" && p.keyEnvVars.some((name) => Boolean(env[name]?.trim())))?.id;
}

function parseMaxTurns(raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`--max-turns must be a positive integer (got "${raw}")`);
  return value;
}

/** `memory.*` in config: the built-in MEMORY.md / USER.md with their limits, or none. */
function memoryOption(home: string, config: HermesConfig): Pick<AgentOptions, "memory"> {
  if (!config.memory.memory_enabled) return { memory: false };
  const store = new MemoryStore({
    dir: hermesPaths(home).memoriesDir,
    memoryCharLimit: config.memory.memory_char_limit,
    userCharLimit: config.memory.user_char_limit,
    userProfileEnabled: config.memory.user_profile_enabled,
  });
  return { memory: new MemoryManager({ store }) };
}

/**
 * The auxiliary client (`auxiliary.<task>`, `auto` = the main model first), built on first use
 * so a session that never needs it never pays for it. `agentOptions` is read at that moment.
 */
function lazyAuxiliaryClient(
  config: HermesConfig,
  agentOptions: () => AgentOptions,
  quiet: boolean,
): () => Promise<AuxiliaryClient> {
  let client: Promise<AuxiliaryClient> | undefined;
  return () => {
    client ??= resolveRoutes(agentOptions()).then(([mainRoute]) =>
      createAuxiliaryClient({
        config,
        ...(mainRoute ? { mainRoute } : {}),
        env: process.env,
        onNotice: (message) => {
          if (!quiet) process.stderr.write(`hermes: ${message}\n`);
        },
      }),
    );
    return client;
  };
}

/** Compression summaries go to the auxiliary model of the `compression` task. */
function lazySummarizer(auxiliary: () => Promise<AuxiliaryClient>): SummarizeFn {
  return async (prompt, opts) => summarizeWithAuxiliary(await auxiliary())(prompt, opts);
}

/** Settings that name something this build does not have, with what happens instead. */
export function unavailableFeatures(config: HermesConfig): string[] {
  const notes: string[] = [];
  if (config.context.engine !== "compressor") {
    notes.push(
      `context.engine "${config.context.engine}" is not available; the built-in compressor manages the context`,
    );
  }
  if (config.memory.provider) {
    notes.push(`memory.provider "${config.memory.provider}" is not available; memory stays in MEMORY.md and USER.md`);
  }
  return notes;
}

async function sessionToResume(store: SessionStore, flags: ChatFlags): Promise<string | undefined> {
  if (flags.resume) {
    if (!(await store.getSession(flags.resume))) {
      store.close();
      throw new UsageError(`no session with id ${flags.resume} (see hermes sessions list)`);
    }
    return flags.resume;
  }
  if (flags.continue) {
    const [latest] = await store.listSessions({ limit: 1, source: "cli" });
    return latest?.id;
  }
  return undefined;
}

export async function buildRuntime(flags: ChatFlags, options: RuntimeOptions): Promise<Runtime> {
  const home = hermesHome();
  loadDotEnv(home);
  const { config, warnings } = await loadConfigAsync({ home });
  if (!options.quiet) {
    for (const warning of [...warnings, ...unavailableFeatures(config)]) process.stderr.write(`hermes: ${warning}\n`);
  }

  let baseUrl = flags.baseUrl ?? (config.model.base_url || undefined);
  let provider =
    flags.provider ?? (config.model.provider && config.model.provider !== "auto" ? config.model.provider : undefined);
  if (!provider) provider = baseUrl ? "custom" : providerFromEnvironment(process.env);
  let detectedModel: string | undefined;
  if (!provider && options.localServers !== false) {
    // Only when nothing at all is configured: a local server answers without a key.
    const local = await detectLocalServer(options.localServers ?? {});
    if (local) {
      provider = "custom";
      baseUrl = local.baseUrl;
      detectedModel = flags.model ?? (local.models.includes(config.model.default) ? config.model.default : local.model);
      process.stderr.write(
        `hermes: no provider configured; using ${local.name} at ${local.baseUrl} (model ${detectedModel})\n`,
      );
    }
  }
  if (!provider) throw new UsageError(NO_PROVIDER_HELP);
  const info = resolveProvider(provider);
  if (!info) throw new UsageError(`unknown provider "${provider}" (see docs/providers.md for the list)`);
  const model = detectedModel ?? flags.model ?? (config.model.default || undefined);
  if (!model) throw new UsageError(`no model given for provider ${info.id}: pass --model or set model.default`);
  const configMode = config.model.api_mode !== "auto" ? (config.model.api_mode as ApiMode) : undefined;
  const apiMode = (flags.apiMode as ApiMode | undefined) ?? configMode;

  if (config.terminal.backend !== "local") {
    // Running "sandboxed" commands on the host instead would be worse than not running at all.
    throw new UsageError(
      `terminal.backend: ${config.terminal.backend} is not supported yet, and commands must not silently run on this machine instead. ` +
        "Set terminal.backend: local (hermes config set terminal.backend local) to run them here.",
    );
  }
  // `terminal.cwd` (default ".") is where commands run and relative paths resolve.
  const cwd = resolvePath(process.cwd(), config.terminal.cwd);
  const registry = new ToolRegistry();
  // Filled in below; the auxiliary client reads it only when a task first needs it.
  let agentOptions: AgentOptions | undefined;
  const auxiliary = lazyAuxiliaryClient(config, () => agentOptions!, options.quiet);
  const tools = await assembleTools(registry, {
    home,
    cwd,
    config,
    yolo: Boolean(flags.yolo),
    quiet: options.quiet,
    ...(config.approvals.mode === "smart" ? { smartJudge: smartJudgeWithAuxiliary(auxiliary) } : {}),
  });
  const apiKey = flags.apiKey;
  let credentialPool: CredentialPool | undefined;
  try {
    credentialPool = apiKey ? undefined : loadCredentialPool(home, info.id, config, process.env);
  } catch (error) {
    if (!(error instanceof AuthStoreError)) throw error;
    process.stderr.write(`hermes: ${error.message}\n`);
  }
  // The window probe mostly waits on the server and opening the store on loading SQLite, so
  // the two run side by side.
  const [contextCheck, storeOpening] = await Promise.allSettled([
    checkContextWindow({
      model,
      provider: info.id,
      baseUrl,
      apiKey,
      configured: config.model.context_length,
      minimum: config.model.min_context_length,
    }),
    openSessionStore(hermesPaths(home).stateDb),
  ]);
  if (contextCheck.status === "rejected") {
    if (storeOpening.status === "fulfilled") storeOpening.value.close();
    throw contextCheck.reason;
  }
  if (storeOpening.status === "rejected") throw storeOpening.reason;
  const context = contextCheck.value;
  const store = storeOpening.value;
  const sessionId = await sessionToResume(store, flags);
  const enabledToolsets = flags.toolsets
    ? flags.toolsets
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : [...config.toolsets, ...tools.mcpToolsets];

  agentOptions = {
    model,
    provider: info.id,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(apiMode ? { apiMode } : {}),
    ...(credentialPool ? { credentialPool } : {}),
    fallbackProviders: config.fallback_providers.map((f) => ({
      provider: f.provider,
      model: f.model,
      ...(f.base_url ? { baseUrl: f.base_url } : {}),
      ...(f.api_mode && f.api_mode !== "auto" ? { apiMode: f.api_mode as ApiMode } : {}),
    })),
    maxIterations: parseMaxTurns(flags.maxTurns, config.agent.max_turns),
    registry,
    enabledToolsets,
    platform: "cli",
    sessionStore: store,
    home,
    cwd,
    interactive: options.interactive,
    services: { sessionSearch: (query: string, limit: number) => store.search(query, { limit }) },
    quiet: options.quiet,
    skillsIndex: tools.skillsIndex,
    saveTrajectories: Boolean(flags.saveTrajectories) || config.agent.save_trajectories,
    promptCache: config.prompt_caching.enabled ? { ttl: config.prompt_caching.cache_ttl } : false,
    guardrails: new ToolGuardrails(guardrailsConfigFromYaml(config.tool_loop_guardrails)),
    ...memoryOption(home, config),
    compression: {
      enabled: config.compression.enabled,
      threshold: config.compression.threshold,
      targetRatio: config.compression.target_ratio,
      protectFirstN: config.compression.protect_first_n,
      protectLastN: config.compression.protect_last_n,
    },
    // A server that was already probed is not probed again by the agent: unknown means the default.
    ...(context.contextLength || context.probed
      ? { contextLength: context.contextLength ?? DEFAULT_CONTEXT_LENGTH }
      : {}),
    ...(context.extraBody ? { extraBody: context.extraBody } : {}),
    ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
    ...(config.agent.reasoning_effort ? { reasoningEffort: config.agent.reasoning_effort } : {}),
    ...(sessionId ? { sessionId } : {}),
    ...(options.clarify ? { clarify: options.clarify } : {}),
    ...(options.requestApproval ? { requestApproval: options.requestApproval } : {}),
  };
  agentOptions.summarize = lazySummarizer(auxiliary);
  // Subagents draw on each run's budget through the tool context; this one is only a fallback.
  registerDelegateTool(
    registry,
    delegationDepsFrom(agentOptions, new IterationBudget(agentOptions.maxIterations), config.delegation),
  );
  const agent = new Agent(agentOptions);
  await awaitMcp(tools.mcp, options.quiet);
  const approvals = tools.approvals;
  return {
    agent,
    config,
    model,
    provider: info.id,
    store,
    approvals,
    ...(baseUrl ? { baseUrl } : {}),
    auxiliary,
    reloadMcp: async () => {
      const servers = (await loadConfigAsync({ home })).config.mcp_servers;
      if (!tools.mcp) {
        if (Object.keys(servers).length === 0) return ["No MCP servers are configured (see hermes mcp add)."];
        const { McpManager } = await import("../tools/mcp/manager.js");
        tools.mcp = new McpManager({ servers, registry });
      }
      const statuses = await tools.mcp.reload(servers);
      if (!flags.toolsets) {
        for (const toolset of tools.mcp.toolsetNames()) {
          if (!agentOptions.enabledToolsets?.includes(toolset)) agentOptions.enabledToolsets?.push(toolset);
        }
      }
      agent.refreshTools();
      const { formatMcpStatus } = await import("../tools/mcp/status-text.js");
      return formatMcpStatus(statuses);
    },
    close: async () => {
      if (credentialPool) {
        await persistPool(home, credentialPool).catch((error: Error) => {
          process.stderr.write(`hermes: could not save credential status: ${error.message}\n`);
        });
      }
      await tools.mcp?.close();
      store.close();
    },
  };
}
