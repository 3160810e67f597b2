/**
 * Builds a ready Agent for a surface from HERMES_HOME (config.yaml, .env) and command-line
 * flags: resolves provider and model, registers the built-in tools, opens the session store.
 */
import { Agent } from "../agent/agent.js";
import { PROVIDERS, resolveProvider } from "../llm/providers.js";
import type { ApiMode } from "../llm/types.js";
import { loadConfig, setConfigValue } from "../state/config.js";
import type { HermesConfig } from "../state/config-schema.js";
import { loadDotEnv } from "../state/dotenv.js";
import { hermesHome, hermesPaths } from "../state/paths.js";
import { openSessionStore, type SessionStore } from "../state/session-store.js";
import { approvalPolicyFromConfig } from "../tools/approval/policy.js";
import { registerBuiltinTools } from "../tools/builtin/index.js";
import { ToolRegistry } from "../tools/registry.js";
import { UsageError } from "./exit-codes.js";
import type { ChatFlags } from "./program.js";

export interface Runtime {
  agent: Agent;
  config: HermesConfig;
  model: string;
  provider: string;
  store: SessionStore;
  close(): Promise<void>;
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

function persistAllowlist(home: string, config: HermesConfig, pattern: string): void {
  const current = config.approvals.command_allowlist;
  if (current.includes(pattern)) return;
  current.push(pattern);
  setConfigValue(home, "approvals.command_allowlist", JSON.stringify(current));
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

export async function buildRuntime(
  flags: ChatFlags,
  options: { interactive: boolean; quiet: boolean },
): Promise<Runtime> {
  const home = hermesHome();
  loadDotEnv(home);
  const { config, warnings } = loadConfig({ home });
  if (!options.quiet) for (const warning of warnings) process.stderr.write(`hermes: ${warning}\n`);

  const baseUrl = flags.baseUrl ?? (config.model.base_url || undefined);
  let provider =
    flags.provider ?? (config.model.provider && config.model.provider !== "auto" ? config.model.provider : undefined);
  if (!provider) provider = baseUrl ? "custom" : providerFromEnvironment(process.env);
  if (!provider) throw new UsageError(NO_PROVIDER_HELP);
  const info = resolveProvider(provider);
  if (!info) throw new UsageError(`unknown provider "${provider}" (see docs/providers.md for the list)`);
  const model = flags.model ?? (config.model.default || undefined);
  if (!model) throw new UsageError(`no model given for provider ${info.id}: pass --model or set model.default`);
  const configMode = config.model.api_mode !== "auto" ? (config.model.api_mode as ApiMode) : undefined;
  const apiMode = (flags.apiMode as ApiMode | undefined) ?? configMode;

  const registry = new ToolRegistry();
  const approvals = approvalPolicyFromConfig(config, {
    yolo: Boolean(flags.yolo),
    persistAllowlist: (pattern) => persistAllowlist(home, config, pattern),
  });
  registerBuiltinTools(registry, {
    approvals,
    terminalTimeoutSeconds: config.terminal.timeout,
    codeExecution: {
      timeoutSeconds: config.code_execution.timeout,
      maxToolCalls: config.code_execution.max_tool_calls,
    },
    ...(config.web.backend ? { webBackend: config.web.backend } : {}),
  });
  const store = await openSessionStore(hermesPaths(home).stateDb);
  const sessionId = await sessionToResume(store, flags);
  const enabledToolsets = flags.toolsets
    ? flags.toolsets
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : config.toolsets;

  const agent = new Agent({
    model,
    provider: info.id,
    ...(baseUrl ? { baseUrl } : {}),
    ...(flags.apiKey ? { apiKey: flags.apiKey } : {}),
    ...(apiMode ? { apiMode } : {}),
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
    cwd: process.cwd(),
    interactive: options.interactive,
    services: { sessionSearch: (query: string, limit: number) => store.search(query, { limit }) },
    quiet: options.quiet,
    ...(config.model.max_tokens ? { maxTokens: config.model.max_tokens } : {}),
    ...(config.agent.reasoning_effort ? { reasoningEffort: config.agent.reasoning_effort } : {}),
    ...(sessionId ? { sessionId } : {}),
  });
  return {
    agent,
    config,
    model,
    provider: info.id,
    store,
    close: async () => store.close(),
  };
}
