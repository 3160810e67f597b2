/**
 * Turning a preset's {provider, model} entry into a route the mixture_of_agents tool can call,
 * the way the main model's route is found: the provider catalog (and config.yaml's named
 * endpoints), the key from `auxiliary.moa_*.api_key`, the provider's variables or auth.json.
 *
 * `auxiliary.moa_reference` / `auxiliary.moa_aggregator` override where requests go, field by
 * field: a provider other than `auto` replaces every entry's provider; a base_url sends every
 * request there (as the `custom` provider unless a provider is set); a model replaces every
 * entry's model; an api_key is the key used.
 */
import { apiKeyFromEnv, baseUrlFor, resolveProvider } from "../llm/providers.js";
import type { AuxiliaryTaskConfig } from "../state/config-schema.js";
import type { MoaRoute } from "../tools/moa/types.js";
import { needsNoKey } from "./preflight.js";

export type Env = Record<string, string | undefined>;
export type MoaTask = "moa_reference" | "moa_aggregator";

/** A route with what it takes to reach it. */
export interface MoaEndpoint extends MoaRoute {
  baseUrl?: string;
  apiKey?: string;
}

export type MoaRouteResolution = { ok: true; endpoint: MoaEndpoint } | { ok: false; label: string; problem: string };

export interface MoaRouteInput {
  task: MoaTask;
  settings: Pick<AuxiliaryTaskConfig, "provider" | "model" | "base_url" | "api_key">;
  /** Where the entry is written (`moa.presets.default.aggregator`), for messages. */
  source: string;
  env: Env;
  /** A key stored for the provider (auth.json), when the environment has none. */
  storedKey: (providerId: string) => string | undefined;
}

export function resolveMoaRoute(entry: { provider: string; model: string }, input: MoaRouteInput): MoaRouteResolution {
  const { settings, task } = input;
  const overrideProvider = settings.provider.trim();
  const overrideBaseUrl = settings.base_url.trim();
  const providerName =
    overrideProvider && overrideProvider.toLowerCase() !== "auto"
      ? overrideProvider
      : overrideBaseUrl
        ? "custom"
        : entry.provider;
  const model = settings.model.trim() || entry.model;
  const label = `${providerName}:${model}`;
  const spec = resolveProvider(providerName);
  if (!spec) {
    const where = providerName === entry.provider ? `${input.source}.provider` : `auxiliary.${task}.provider`;
    return {
      ok: false,
      label,
      problem:
        `unknown provider "${providerName}" (${where}): use a built-in provider id (\`hermes help providers\`) ` +
        "or a name under providers: in config.yaml",
    };
  }
  const baseUrl = baseUrlFor(spec, overrideBaseUrl || undefined, input.env);
  if (!baseUrl) {
    return {
      ok: false,
      label,
      problem: `${spec.label} has no base URL: set auxiliary.${task}.base_url${spec.baseUrlEnvVar ? ` or ${spec.baseUrlEnvVar}` : ""}`,
    };
  }
  const apiKey = settings.api_key.trim() || apiKeyFromEnv(spec, input.env) || input.storedKey(spec.id);
  if (!apiKey && !needsNoKey(spec, baseUrl)) {
    const variables = spec.keyEnvVars.length > 0 ? `set ${spec.keyEnvVars.join(" or ")} (in $HERMES_HOME/.env), ` : "";
    return {
      ok: false,
      label,
      problem: `no API key for ${spec.label} (${spec.id}): ${variables}run \`hermes auth add ${spec.id}\`, or set auxiliary.${task}.api_key`,
    };
  }
  return {
    ok: true,
    endpoint: { label, provider: spec.id, model, baseUrl, ...(apiKey ? { apiKey } : {}) },
  };
}
