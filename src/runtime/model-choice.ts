/**
 * Which provider, endpoint and model a runtime talks to: flags first, then config.yaml, then
 * the first provider whose key is in the environment, then a model server running locally.
 */
import { findNamedProvider } from "../llm/named-providers.js";
import { PROVIDERS, type ProviderSpec, registerNamedProviders, resolveProvider } from "../llm/providers.js";
import type { ApiMode } from "../llm/types.js";
import { DEFAULT_MODEL } from "../state/config-constants.js";
import { namedEndpoints } from "../state/config-providers.js";
import type { HermesConfig } from "../state/config-schema.js";
import { UsageError } from "./errors.js";
import { type DetectOptions, detectLocalServer } from "./local-servers.js";
import { checkBaseUrl } from "./preflight.js";

/** Providers that serve models from many vendors under `vendor/model` names, like DEFAULT_MODEL. */
const AGGREGATORS = new Set(["openrouter", "nous"]);

export const NO_PROVIDER_HELP = [
  "no model provider is configured. Three ways to fix it:",
  "  1. run `hermes setup` to pick a provider, key and model;",
  "  2. export a provider key (e.g. OPENROUTER_API_KEY, ANTHROPIC_API_KEY, OPENAI_API_KEY) and pass --model;",
  "  3. use a local server: --provider custom --base-url http://127.0.0.1:11434/v1 --model NAME",
].join("\n");

export interface ModelOverrides {
  model?: string | undefined;
  provider?: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  apiMode?: string | undefined;
}

export interface ModelChoice {
  info: ProviderSpec;
  model: string;
  baseUrl?: string;
  apiMode?: ApiMode;
  /** Where each part came from, for `hermes model` and error messages. */
  sources: { provider: string; model: string; baseUrl?: string };
}

/** The base URL given by flag, config or OPENAI_BASE_URL, checked, with where it came from. */
function explicitBaseUrl(config: HermesConfig, overrides: ModelOverrides) {
  if (overrides.baseUrl !== undefined)
    return { value: checkBaseUrl(overrides.baseUrl, "--base-url"), source: "--base-url" };
  if (config.model.base_url) {
    return { value: checkBaseUrl(config.model.base_url, "model.base_url in config.yaml"), source: "model.base_url" };
  }
  return undefined;
}

/** The first catalog provider whose API key is present in the environment. */
export function providerFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return PROVIDERS.find((p) => p.id !== "custom" && p.keyEnvVars.some((name) => Boolean(env[name]?.trim())))?.id;
}

export async function chooseModel(
  config: HermesConfig,
  overrides: ModelOverrides,
  options: { localServers?: DetectOptions | false; notice: (message: string) => void; env?: NodeJS.ProcessEnv },
): Promise<ModelChoice> {
  const env = options.env ?? process.env;
  registerNamedProviders(namedEndpoints(config));
  const explicit = explicitBaseUrl(config, overrides);
  let baseUrl = explicit?.value;
  let baseUrlSource = explicit?.source;
  let provider =
    overrides.provider ??
    (config.model.provider && config.model.provider !== "auto" ? config.model.provider : undefined);
  let providerSource = overrides.provider ? "--provider" : provider ? "model.provider" : "";
  if (!provider && baseUrl) {
    provider = "custom";
    providerSource = `a base URL (${baseUrlSource})`;
  }
  if (!provider && env.OPENAI_BASE_URL?.trim()) {
    // An OpenAI-compatible server named the way the OpenAI SDKs expect.
    provider = "custom";
    providerSource = "OPENAI_BASE_URL";
  }
  if (!provider) {
    provider = providerFromEnvironment(env);
    if (provider) providerSource = "the API key in the environment";
  }
  let detectedModel: string | undefined;
  if (!provider && options.localServers !== false) {
    // Only when nothing at all is configured: a local server answers without a key.
    const local = await detectLocalServer(options.localServers ?? {});
    if (local) {
      provider = "custom";
      baseUrl = local.baseUrl;
      detectedModel =
        overrides.model ?? (local.models.includes(config.model.default) ? config.model.default : local.model);
      baseUrlSource = `detected ${local.name}`;
      providerSource = `a server detected on this machine (${local.name})`;
      options.notice(`no provider configured; using ${local.name} at ${local.baseUrl} (model ${detectedModel})`);
    }
  }
  if (!provider) throw new UsageError(NO_PROVIDER_HELP);
  const info = resolveProvider(provider);
  if (!info) {
    throw new UsageError(
      `unknown provider "${provider}": not a built-in provider (hermes help providers lists them) ` +
        "nor a name under providers: or custom_providers: in config.yaml",
    );
  }
  const named = findNamedProvider(provider) ? info : undefined;
  if (!baseUrl && named?.defaultBaseUrl) {
    baseUrl = named.defaultBaseUrl;
    baseUrlSource = `providers.${provider} in config.yaml`;
  }
  if (!baseUrl && info.baseUrlEnvVar && env[info.baseUrlEnvVar]?.trim()) {
    baseUrl = checkBaseUrl(env[info.baseUrlEnvVar]!, info.baseUrlEnvVar);
    baseUrlSource = info.baseUrlEnvVar;
  }
  // A named endpoint's own model stands in for the built-in default, never for a chosen one.
  const namedModel = config.model.default === DEFAULT_MODEL ? named?.defaultModel : undefined;
  const model = detectedModel ?? overrides.model ?? namedModel ?? (config.model.default || undefined);
  if (!model) throw new UsageError(`no model given for provider ${info.id}: pass --model or set model.default`);
  const modelSource = detectedModel
    ? "the detected server"
    : overrides.model
      ? "--model"
      : namedModel
        ? `providers.${provider} in config.yaml`
        : "model.default";
  if (modelSource === "model.default" && model === DEFAULT_MODEL && !AGGREGATORS.has(info.id)) {
    throw new UsageError(
      `${info.label} was chosen (${providerSource}) but no model was given, and the built-in default ` +
        `${DEFAULT_MODEL} is an OpenRouter name that ${info.label} does not serve: pass --model NAME, ` +
        "or set one with `hermes model NAME`.",
    );
  }
  const configMode = config.model.api_mode !== "auto" ? (config.model.api_mode as ApiMode) : undefined;
  const apiMode = (overrides.apiMode as ApiMode | undefined) ?? configMode;
  return {
    info,
    model,
    ...(baseUrl ? { baseUrl } : {}),
    ...(apiMode ? { apiMode } : {}),
    sources: { provider: providerSource, model: modelSource, ...(baseUrlSource ? { baseUrl: baseUrlSource } : {}) },
  };
}
