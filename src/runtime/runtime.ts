/**
 * One runtime per process: config.yaml + HERMES_HOME + overrides turned into the shared
 * services every session uses (session store, tools and MCP servers, skills, credentials and
 * fallback routes, the auxiliary client, the approval policy), and agents handed out per
 * session key from a bounded cache. Nothing here writes to a terminal: notices go to a callback.
 */

import { join, resolve as resolvePath } from "node:path";
import { Agent, type AgentOptions } from "../agent/agent.js";
import { smartJudgeWithAuxiliary } from "../agent/approval-judge.js";
import type { AuxiliaryClient } from "../agent/auxiliary.js";
import { IterationBudget } from "../agent/budget.js";
import { isCodingSession } from "../agent/coding-context.js";
import { primeWorkspaceSnapshot } from "../agent/coding-prompt.js";
import { CONTEXT_FILE_MAX_CHARS, cachedContextFilesPrompt } from "../agent/context-files.js";
import { BackgroundDelegations, delegationDepsFrom, registerDelegateTool } from "../agent/delegation.js";
import type { AgentListener } from "../agent/events.js";
import { setBedrockDefaults } from "../llm/bedrock-defaults.js";
import type { CredentialPool } from "../llm/credential-pool.js";
import { setVertexDefaults } from "../llm/vertex/defaults.js";
import { AuthStoreError } from "../state/auth-store.js";
import { loadConfigAsync } from "../state/config-load.js";
import type { HermesConfig } from "../state/config-schema.js";
import { applyTimeZone } from "../state/config-sections.js";
import { loadDotEnv } from "../state/dotenv.js";
import { LearningLedger } from "../state/learning-ledger.js";
import { hermesHome } from "../state/paths.js";
import { profileHome } from "../state/profiles.js";
import { openSessionStore, type SessionStore } from "../state/session-store.js";
import { importOffer } from "../state/store-location.js";
import { resolveStoreLocation } from "../state/store-target.js";
import type { ApprovalPolicy } from "../tools/approval/policy.js";
import type { PermissionMode } from "../tools/permissions/gate.js";
import { defaultProcessManager } from "../tools/process-manager.js";
import { type ToolContext, ToolRegistry } from "../tools/registry.js";
import { configureLog, flushLog, log } from "../util/log.js";
import { AgentCache } from "./agent-cache.js";
import { baseAgentOptions, lazyAuxiliaryClient, unavailableFeatures } from "./agent-options.js";
import { bedrockDefaultsFrom } from "./bedrock-settings.js";
import { noticeCodexAutoraise } from "./codex-autoraise-notice.js";
import { checkContextWindow } from "./context-check.js";
import { canonicalProvider, loadCredentialPool, persistPool } from "./credentials.js";
import { type CronToolLoader, registerLazyCronjobTool } from "./cron-tool.js";
import { Learner } from "./learning/learner.js";
import type { DetectOptions } from "./local-servers.js";
import { memoryProviderNames } from "./memory-providers.js";
import { chooseModel, type ModelOverrides } from "./model-choice.js";
import { startingPersonality } from "./personalities.js";
import { extensionsWanted } from "./plugins/candidates.js";
import type { Extensions } from "./plugins/setup.js";
import { loadPrefillMessages } from "./prefill.js";
import { checkToolsets, requireCredential } from "./preflight.js";
import { applySandbox, type SandboxChoice } from "./sandbox.js";
import { sessionFeatures } from "./session-features.js";
import { pruneSessionsInBackground, wantsSessionPrune } from "./session-prune.js";
import { assembleTools, awaitMcp } from "./tools.js";

export { unavailableFeatures } from "./agent-options.js";
export { NO_PROVIDER_HELP, providerFromEnvironment } from "./model-choice.js";

/** `important` notices are worth showing even to a user who asked for quiet output. */
export type NoticeLevel = "warning" | "important";

export interface RuntimeCallbacks {
  /** Warnings and notices for whoever runs this process (a terminal, a log). */
  onNotice?: (message: string, level: NoticeLevel) => void;
  /** Default answerer of clarify questions for agents that get none of their own. */
  clarify?: ToolContext["clarify"];
  /** Default answerer of approval prompts for agents that get none of their own. */
  requestApproval?: ToolContext["requestApproval"];
}

export interface RuntimeOverrides extends ModelOverrides {
  /** Maximum model calls per run (`agent.max_turns`). */
  maxTurns?: number;
  /** Toolsets every agent gets unless its request names its own. */
  toolsets?: string[];
  /** Run dangerous commands without asking (`--yolo`). */
  yolo?: boolean;
  /** The permission mode new sessions start in (`--mode`); default `approvals.default_mode`. */
  permissionMode?: PermissionMode;
  saveTrajectories?: boolean;
}

export interface OpenRuntimeOptions {
  /** HERMES_HOME to use; default `$HERMES_HOME` or `~/.hermes` (or the profile's home). */
  home?: string;
  /** A profile name: its home under `~/.hermes/profiles/`. Ignored when `home` is given. */
  profile?: string;
  overrides?: RuntimeOverrides;
  callbacks?: RuntimeCallbacks;
  /** Where to look for a local model server when nothing is configured; `false` skips the probe. */
  localServers?: DetectOptions | false;
  /** The platform agents run for unless a request names one ("cli", "api_server", ...). */
  platform?: string;
  /** Whether a person is present to answer prompts (default false). */
  interactive?: boolean;
  /** The surface's own toolsets in place of config.yaml's `toolsets` (MCP toolsets are added). */
  toolsets?: string[];
  /** Skip loading `.env` into the environment (already loaded by the caller). */
  skipDotEnv?: boolean;
  /** Plugins and hooks the caller already set up (the gateway needs plugin platforms first). */
  extensions?: Extensions;
  /** Also hand every log line to this (the CLI's -v mirrors the log to stderr). */
  logMirror?: (line: string) => void;
  /**
   * The process runs one turn and exits (a one-shot prompt): MCP servers are waited for up to
   * their own connect_timeout, not `mcp_discovery_timeout`, since no later turn could use them.
   */
  singleTurn?: boolean;
  /** Gives sessions the `cronjob` tool, its scheduler opened on the first call (the surfaces' choice). */
  cronTool?: CronToolLoader;
}

export interface AgentRequest {
  platform?: string;
  /** Checkpoints before file changes, for /rollback (default: `checkpoints.enabled`, else by platform). */
  checkpoints?: boolean;
  /** The permission mode this session starts in, instead of the runtime's. */
  permissionMode?: PermissionMode;
  toolsets?: string[];
  /** Continue this stored session (its transcript is loaded on the first run). */
  sessionId?: string;
  interactive?: boolean;
  clarify?: ToolContext["clarify"];
  requestApproval?: ToolContext["requestApproval"];
  /** Keep MEMORY.md / USER.md under `memories/scopes/<scope>/` instead of the shared files. */
  memoryScope?: string;
  /** Text layered on top of the system prompt of every request; never stored. */
  ephemeralSystemPrompt?: string;
  maxIterations?: number;
  onEvent?: AgentListener;
  /** `false`: the agent writes nothing to the session store (OpenAI's `store: false`). */
  persist?: boolean;
  /** More services for this agent's tools (the gateway passes the chat a cronjob comes from). */
  services?: Record<string, unknown>;
  /** Another model (and provider) than the runtime's, for this agent only (a cron job's snapshot). */
  model?: { model: string; provider?: string | undefined; baseUrl?: string | undefined };
  /** Where commands run and relative paths resolve (default `terminal.cwd`). */
  cwd?: string;
  /** Read AGENTS.md and the other project context files from the working directory (default true). */
  loadContextFiles?: boolean;
  /** `false`: no MEMORY.md / USER.md for this agent. */
  memory?: false;
  /** Toolsets this agent must not have, whatever `toolsets` includes. */
  disabledToolsets?: string[];
  /** `false`: a compression continues in a child session whatever `compression.in_place` says. */
  compressInPlace?: false;
}

/**
 * The options that change when an agent uses another model. On another provider the runtime's
 * key, credential pool, wire protocol and endpoint do not apply: the agent finds that provider's own.
 */
function modelSwitch(options: AgentOptions, wanted: NonNullable<AgentRequest["model"]>): Partial<AgentOptions> {
  const sameProvider =
    !wanted.provider || canonicalProvider(wanted.provider) === canonicalProvider(options.provider ?? "");
  if (sameProvider) return { model: wanted.model, ...(wanted.baseUrl ? { baseUrl: wanted.baseUrl } : {}) };
  return {
    model: wanted.model,
    provider: wanted.provider as string,
    baseUrl: wanted.baseUrl || undefined,
    apiKey: undefined,
    apiMode: undefined,
    credentialPool: undefined,
  };
}

export interface HermesRuntime {
  readonly home: string;
  /** Where commands run and relative paths resolve (`terminal.cwd`). */
  readonly cwd: string;
  readonly config: HermesConfig;
  readonly model: string;
  readonly provider: string;
  /** The base URL in use, when one was given or detected. */
  readonly baseUrl: string | undefined;
  readonly store: SessionStore;
  /** Where every store of this home lives: the state.db path or a postgres:// URL (store-target.ts). */
  readonly storeLocation: string;
  /** The approval policy shared by the shell tools (`/yolo` flips its `yolo` flag). */
  readonly approvals: ApprovalPolicy;
  readonly registry: ToolRegistry;
  /** The OS sandbox commands run in. */
  readonly sandbox: SandboxChoice;
  /** Background subagents of this process; surfaces attach to hand their results to sessions. */
  readonly background: BackgroundDelegations;
  /** The cached agent for `key`, or a new one (cached) built from `request`. */
  agentFor(key: string, request?: AgentRequest): Agent;
  /** A new agent that is not cached (one-off runs). */
  createAgent(request?: AgentRequest): Agent;
  /** Forget the cached agent for `key`. */
  evict(key: string): boolean;
  /** The toolsets an agent gets when its request names none. */
  defaultToolsets(): string[];
  /** Keys of the agents now in memory, least recently used first. */
  cachedKeys(): string[];
  /** The auxiliary-model client for side tasks (titles, summaries), built on first use. */
  auxiliary(): Promise<AuxiliaryClient>;
  /** Plugins and hooks of this process, when any are installed or configured. */
  readonly extensions: Extensions | undefined;
  /** The learning loop (reviews after substantial tasks, /learn), unless `learning.mode: off`. */
  readonly learner: Learner | undefined;
  /** Restart the MCP servers from the current config.yaml; returns status lines. */
  reloadMcp(): Promise<string[]>;
  close(): Promise<void>;
}

function homeFor(options: OpenRuntimeOptions): string {
  if (options.home) return options.home;
  if (options.profile) return profileHome(options.profile);
  return hermesHome();
}

const LOG_LEVELS = { DEBUG: "debug", INFO: "info", WARNING: "warn", ERROR: "error" } as const;

/** $HERMES_HOME/logs, as config.yaml's `logging` section says. */
function startLogging(home: string, config: HermesConfig, mirror?: (line: string) => void): void {
  configureLog(join(home, "logs"), {
    level: LOG_LEVELS[config.logging.level],
    maxBytes: Math.round(config.logging.max_size_mb * 1024 * 1024),
    backups: config.logging.backup_count,
    ...(mirror ? { mirror } : {}),
  });
}

export async function openRuntime(options: OpenRuntimeOptions = {}): Promise<HermesRuntime> {
  const home = homeFor(options);
  const overrides = options.overrides ?? {};
  const callbacks = options.callbacks ?? {};
  const notice = (message: string, level: NoticeLevel = "warning") => callbacks.onNotice?.(message, level);
  if (!options.skipDotEnv) loadDotEnv(home);
  const { config, warnings } = await loadConfigAsync({ home });
  applyTimeZone(config.timezone);
  setBedrockDefaults(bedrockDefaultsFrom(config.bedrock));
  setVertexDefaults({
    ...(config.vertex.project_id.trim() ? { projectId: config.vertex.project_id.trim() } : {}),
    ...(config.vertex.region.trim() ? { region: config.vertex.region.trim() } : {}),
  });
  if (config.network.force_ipv4) (await import("./network.js")).preferIpv4();
  startLogging(home, config, options.logMirror);
  if (config.secrets.bitwarden.enabled) {
    const { loadBitwardenSecrets } = await import("./bitwarden-secrets.js");
    await loadBitwardenSecrets({ home, settings: config.secrets.bitwarden, notice });
  }
  for (const warning of warnings) notice(warning);
  // `terminal.cwd` (default ".") is where commands run and relative paths resolve.
  const cwd = resolvePath(process.cwd(), config.terminal.cwd);
  const platform = options.platform ?? "cli";
  const codingPosture = isCodingSession({ mode: config.agent.coding_context, platform, cwd });
  if (codingPosture) void primeWorkspaceSnapshot(cwd);
  const extensions =
    options.extensions ??
    (extensionsWanted(home, config)
      ? await (await import("./plugins/setup.js")).setUpExtensions({ home, config, cwd, notice })
      : undefined);
  const contextEngines = extensions?.plugins.contextEngines;
  const pluginMemoryProviders = extensions?.plugins.memoryProviders;
  for (const note of unavailableFeatures(
    config,
    [...(contextEngines?.keys() ?? [])],
    memoryProviderNames(pluginMemoryProviders),
  )) {
    notice(note);
  }
  const features = sessionFeatures({
    home,
    config,
    cwd,
    platform: options.platform ?? "cli",
    interactive: options.interactive ?? false,
    ...(overrides.permissionMode ? { permissionMode: overrides.permissionMode } : {}),
    yolo: Boolean(overrides.yolo),
    ...(pluginMemoryProviders ? { memoryProviders: pluginMemoryProviders } : {}),
    notice: (message) => notice(message),
  });

  const choice = await chooseModel(config, overrides, {
    ...(options.localServers !== undefined ? { localServers: options.localServers } : {}),
    notice: (message) => notice(message, "important"),
  });
  noticeCodexAutoraise(home, config.compression, { provider: choice.info.id, model: choice.model }, notice);
  log("info", "runtime", "open", {
    platform: options.platform ?? "cli",
    provider: choice.info.id,
    model: choice.model,
    base_url: choice.baseUrl,
  });
  let credentialPool: CredentialPool | undefined;
  try {
    credentialPool = overrides.apiKey ? undefined : loadCredentialPool(home, choice.info.id, config, process.env);
  } catch (error) {
    if (!(error instanceof AuthStoreError)) throw error;
    notice(error.message, "important");
  }
  requireCredential(choice.info, choice.baseUrl, Boolean(overrides.apiKey) || credentialPool !== undefined);
  if (config.terminal.backend !== "local") {
    // Running "sandboxed" commands on the host instead would be worse than not running at all.
    const { UsageError } = await import("./errors.js");
    throw new UsageError(
      `terminal.backend: ${config.terminal.backend} is not supported yet, and commands must not silently run on this machine instead. ` +
        "Set terminal.backend: local (hermes config set terminal.backend local) to run them here.",
    );
  }
  const mcpServers = Object.keys(config.mcp_servers);
  if (overrides.toolsets) checkToolsets(overrides.toolsets, "--toolsets", mcpServers);
  if (!options.toolsets) checkToolsets(config.toolsets, "toolsets in config.yaml", mcpServers);
  for (const [platform, names] of Object.entries(config.platform_toolsets)) {
    checkToolsets(names, `platform_toolsets.${platform} in config.yaml`, mcpServers);
  }
  const sandbox = applySandbox(config, { home, interactive: options.interactive ?? false }, notice);
  defaultProcessManager().setKillGrace(config.terminal.daemon_term_grace_seconds * 1000);
  const registry = new ToolRegistry();
  // Filled in below; the auxiliary client reads it only when a task first needs it.
  let base: AgentOptions | undefined;
  const auxiliary = lazyAuxiliaryClient(config, () => base!, notice);
  // The lean coding posture replaces config.yaml's default toolsets, never a surface's own or a
  // platform's pinned ones.
  const codingFocus =
    config.agent.coding_context === "focus" &&
    !options.toolsets &&
    !(platform in config.platform_toolsets) &&
    codingPosture;
  const tools = await assembleTools(registry, {
    home,
    cwd,
    config,
    yolo: Boolean(overrides.yolo),
    platform,
    codingFocus,
    notice,
    auxiliary,
    ...(config.approvals.mode === "smart" ? { smartJudge: smartJudgeWithAuxiliary(auxiliary) } : {}),
  });
  if (extensions) (await import("./plugins/setup.js")).registerPluginTools(registry, extensions, notice);
  // The window probe mostly waits on the server and opening the store on loading SQLite, so
  // the two run side by side.
  const storeLocation = resolveStoreLocation(home, config.store);
  const cronTool = options.cronTool
    ? registerLazyCronjobTool(registry, options.cronTool, { storeLocation, home, config })
    : undefined;
  const [contextCheck, storeOpening] = await Promise.allSettled([
    checkContextWindow({
      model: choice.model,
      provider: choice.info.id,
      baseUrl: choice.baseUrl,
      apiKey: overrides.apiKey,
      configured: config.model.context_length,
      minimum: config.model.min_context_length,
      home,
    }),
    openSessionStore(storeLocation),
  ]);
  if (contextCheck.status === "rejected") {
    if (storeOpening.status === "fulfilled") storeOpening.value.close();
    await tools.mcp?.close();
    throw contextCheck.reason;
  }
  if (storeOpening.status === "rejected") {
    await tools.mcp?.close();
    throw storeOpening.reason;
  }
  const store = storeOpening.value;
  const pruning = wantsSessionPrune(options.platform ?? "cli", options.interactive ?? false)
    ? pruneSessionsInBackground(home, store, config, notice)
    : undefined;
  const offer = importOffer(home);
  if (offer) notice(offer);
  const configured = codingFocus ? ["coding"] : (config.platform_toolsets[platform] ?? config.toolsets);
  const pluginToolsets = extensions?.plugins.toolsets ?? [];
  const defaultToolsets = () =>
    overrides.toolsets ?? [...(options.toolsets ?? configured), ...tools.mcpToolsets, ...pluginToolsets];
  const baseOptions: AgentOptions = baseAgentOptions({
    home,
    cwd,
    config,
    choice,
    overrides,
    store,
    registry,
    context: contextCheck.value,
    skillsIndex: tools.skillsIndex,
    approvals: tools.approvals,
    auxiliary,
    platform: options.platform ?? "cli",
    interactive: options.interactive ?? false,
    ...(credentialPool ? { credentialPool } : {}),
    memory: features.memoryWiring,
  });
  if (extensions) baseOptions.hooks = extensions.hooks;
  if (config.sessions.write_json_snapshots) {
    (await import("./session-snapshots.js")).writeSnapshotsAfterTurns(baseOptions, { home, store, notice });
  }
  const startPersonality = startingPersonality(config.display.personality, config.personalities, (m) => notice(m));
  if (startPersonality) baseOptions.personality = startPersonality;
  const prefill = loadPrefillMessages(config.prefill_messages_file, home, (message) => notice(message));
  if (prefill) baseOptions.prefillMessages = prefill;
  // Sessions starting together (a burst of API requests) look for project context files once.
  baseOptions.contextFilesPrompt = cachedContextFilesPrompt(
    3_000,
    Date.now,
    config.context_file_max_chars ?? CONTEXT_FILE_MAX_CHARS,
  );
  const learner =
    config.learning.mode === "off"
      ? undefined
      : new Learner({ home, config, registry, ledger: new LearningLedger(home), auxiliary, notice: (m) => notice(m) });
  if (learner) baseOptions.learning = learner;
  const engine = contextEngines?.get(config.context.engine);
  if (engine) baseOptions.contextEngine = engine.item;
  base = baseOptions;
  features.startCurator(store, auxiliary);
  // Subagents draw on each run's budget through the tool context; this one is only a fallback.
  const background = new BackgroundDelegations(config.delegation.max_async_children);
  registerDelegateTool(registry, {
    ...delegationDepsFrom(baseOptions, new IterationBudget(baseOptions.maxIterations ?? 90), config.delegation),
    background,
  });
  /** Agents whose toolsets follow the configuration (and so gain MCP toolsets on reload). */
  const followsConfig = new Set<WeakRef<Agent>>();
  const refreshFollowers = () => {
    for (const ref of followsConfig) {
      const agent = ref.deref();
      if (!agent) {
        followsConfig.delete(ref);
        continue;
      }
      const enabled = agent.options.enabledToolsets;
      for (const toolset of tools.mcpToolsets) if (enabled && !enabled.includes(toolset)) enabled.push(toolset);
      agent.refreshTools();
    }
  };
  const mcpWait = options.singleTurn ? Number.POSITIVE_INFINITY : config.mcp_discovery_timeout;
  await awaitMcp(tools.mcp, notice, mcpWait, refreshFollowers);
  const cache = new AgentCache({
    maxAgents: config.gateway.agent_cache.max_agents,
    idleMs: config.gateway.agent_cache.idle_timeout_minutes * 60_000,
  });

  const createAgent = (request: AgentRequest = {}): Agent => {
    const agentOptions: AgentOptions = {
      ...baseOptions,
      enabledToolsets: [...(request.toolsets ?? defaultToolsets())],
      ...(request.platform ? { platform: request.platform } : {}),
      ...(request.interactive !== undefined ? { interactive: request.interactive } : {}),
      ...(request.sessionId ? { sessionId: request.sessionId } : {}),
      ...(request.ephemeralSystemPrompt ? { ephemeralSystemPrompt: request.ephemeralSystemPrompt } : {}),
      ...(request.maxIterations ? { maxIterations: request.maxIterations } : {}),
      ...(request.onEvent ? { onEvent: request.onEvent } : {}),
      ...(request.disabledToolsets ? { disabledToolsets: [...request.disabledToolsets] } : {}),
    };
    if (request.persist === false) delete agentOptions.sessionStore;
    if (request.cwd) agentOptions.cwd = request.cwd;
    Object.assign(
      agentOptions,
      features.forSession({
        ...request,
        ...(agentOptions.cwd ? { cwd: agentOptions.cwd } : {}),
      }),
    );
    if (request.loadContextFiles !== undefined) agentOptions.loadContextFiles = request.loadContextFiles;
    if (request.memory === false) agentOptions.memory = false;
    if (request.compressInPlace === false && agentOptions.compression) {
      agentOptions.compression = { ...agentOptions.compression, inPlace: false };
    }
    if (request.model) {
      const switched = modelSwitch(agentOptions, request.model);
      Object.assign(agentOptions, switched);
      const pool = switched.provider ? loadCredentialPool(home, switched.provider, config) : undefined;
      if (pool) agentOptions.credentialPool = pool;
    }
    if (request.services) agentOptions.services = { ...agentOptions.services, ...request.services };
    const clarify = request.clarify ?? callbacks.clarify;
    const requestApproval = request.requestApproval ?? callbacks.requestApproval;
    if (clarify) agentOptions.clarify = clarify;
    if (requestApproval) agentOptions.requestApproval = requestApproval;
    const agent = new Agent(agentOptions);
    if (!request.toolsets && !overrides.toolsets) followsConfig.add(new WeakRef(agent));
    return agent;
  };

  return {
    home,
    cwd,
    config,
    model: choice.model,
    provider: choice.info.id,
    baseUrl: choice.baseUrl,
    store,
    storeLocation,
    approvals: tools.approvals,
    registry,
    sandbox,
    background,
    extensions,
    learner,
    createAgent,
    agentFor(key, request) {
      const cached = cache.get(key);
      if (cached) return cached;
      const agent = createAgent(request);
      cache.set(key, agent);
      return agent;
    },
    evict: (key) => {
      const agent = cache.get(key);
      if (agent) void agent.endSession("ended");
      return cache.delete(key);
    },
    defaultToolsets: () => [...defaultToolsets()],
    cachedKeys: () => cache.keys(),
    auxiliary,
    reloadMcp: async () => {
      const servers = (await loadConfigAsync({ home })).config.mcp_servers;
      if (!tools.mcp) {
        if (Object.keys(servers).length === 0) return ["No MCP servers are configured (see hermes mcp add)."];
        const { McpManager } = await import("../tools/mcp/manager.js");
        const { mcpSamplingModel } = await import("./mcp-sampling.js");
        tools.mcp = new McpManager({ servers, registry, sampling: mcpSamplingModel(auxiliary) });
      }
      const statuses = await tools.mcp.reload(servers);
      tools.mcpToolsets = tools.mcp.toolsetNames();
      refreshFollowers();
      const { formatMcpStatus } = await import("../tools/mcp/status-text.js");
      return formatMcpStatus(statuses);
    },
    close: async () => {
      log("info", "runtime", "close", { platform: options.platform ?? "cli" });
      const stopped = await background.close();
      if (stopped > 0) notice(`stopped ${stopped} background subagent(s) that were still running`, "important");
      await Promise.all(cache.agents().map((agent) => agent.endSession("shutdown")));
      await learner?.idle();
      cache.close();
      if (baseOptions.memory) await baseOptions.memory.shutdown();
      await features.close();
      await pruning;
      // Background processes the model started do not outlive the process that runs the agent,
      // unless started with keep_alive where the user allowed it (terminal.allow_keep_alive).
      const processes = defaultProcessManager();
      for (const info of processes.list().filter((p) => p.status === "running")) {
        if (info.output_file) {
          notice(
            `leaving background process ${info.session_id} running (pid ${info.pid}, ${info.command}); output: ${info.output_file}`,
            "important",
          );
        } else {
          notice(`stopping background process ${info.session_id} (${info.command})`, "important");
        }
      }
      await processes.dispose();
      if (credentialPool) {
        await persistPool(home, credentialPool).catch((error: Error) => {
          notice(`could not save credential status: ${error.message}`, "important");
        });
      }
      await tools.mcp?.close();
      await tools.browser.close();
      await tools.lsp?.close();
      await cronTool?.close();
      store.close();
      flushLog();
    },
  };
}
