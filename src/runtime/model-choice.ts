/**
 * Which provider, endpoint and model a runtime talks to: flags first, then config.yaml, then
 * the first provider whose key is in the environment, then a model server running locally.
 */
import { PROVIDERS, type ProviderSpec, resolveProvider } from "../llm/providers.js";
import type { ApiMode } from "../llm/types.js";
import type { HermesConfig } from "../state/config-schema.js";
import { UsageError } from "./errors.js";
import { type DetectOptions, detectLocalServer } from "./local-servers.js";

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
}

/** The first catalog provider whose API key is present in the environment. */
export function providerFromEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  return PROVIDERS.find((p) => p.id !== "custom" && p.keyEnvVars.some((name) => Boolean(env[name]?.trim())))?.id;
}

export async function chooseModel(
  config: HermesConfig,
  overrides: ModelOverrides,
  options: { localServers?: DetectOptions | false; notice: (message: string) => void },
): Promise<ModelChoice> {
  let baseUrl = overrides.baseUrl ?? (config.model.base_url || undefined);
  let provider =
    overrides.provider ??
    (config.model.provider && config.model.provider !== "auto" ? config.model.provider : undefined);
  if (!provider) provider = baseUrl ? "custom" : providerFromEnvironment(process.env);
  let detectedModel: string | undefined;
  if (!provider && options.localServers !== false) {
    // Only when nothing at all is configured: a local server answers without a key.
    const local = await detectLocalServer(options.localServers ?? {});
    if (local) {
      provider = "custom";
      baseUrl = local.baseUrl;
      detectedModel =
        overrides.model ?? (local.models.includes(config.model.default) ? config.model.default : local.model);
      options.notice(`no provider configured; using ${local.name} at ${local.baseUrl} (model ${detectedModel})`);
    }
  }
  if (!provider) throw new UsageError(NO_PROVIDER_HELP);
  const info = resolveProvider(provider);
  if (!info) throw new UsageError(`unknown provider "${provider}" (see docs/providers.md for the list)`);
  const model = detectedModel ?? overrides.model ?? (config.model.default || undefined);
  if (!model) throw new UsageError(`no model given for provider ${info.id}: pass --model or set model.default`);
  const configMode = config.model.api_mode !== "auto" ? (config.model.api_mode as ApiMode) : undefined;
  const apiMode = (overrides.apiMode as ApiMode | undefined) ?? configMode;
  return { info, model, ...(baseUrl ? { baseUrl } : {}), ...(apiMode ? { apiMode } : {}) };
}
