/**
 * Endpoints named in config.yaml (`providers:` / `custom_providers:`), registered once per
 * process so every place that resolves a provider name (the main model, fallbacks, auxiliary
 * tasks, cron jobs) finds them. A name that is a built-in provider's keeps that provider's
 * protocol and quirks with the configured endpoint and key.
 */
import type { NamedEndpoint } from "../util/named-endpoint.js";
import type { ProviderSpec } from "./providers.js";
import type { ApiMode } from "./types.js";

/** One named endpoint: a base URL with its key (literal or from a variable) and models. */
export type NamedProviderEntry = NamedEndpoint;

const API_MODES: readonly ApiMode[] = ["chat_completions", "codex_responses", "anthropic_messages", "bedrock_converse"];

let registered: ProviderSpec[] = [];

/** How a name is written for lookup: the original's `custom:NAME` form and spaces allowed. */
export function namedProviderKey(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/^custom:/, "")
    .replace(/\s+/g, "-");
}

/** The catalog row a named entry stands for, over the built-in row of the same name if any. */
export function namedProviderSpec(entry: NamedProviderEntry, builtIn?: ProviderSpec): ProviderSpec {
  const id = builtIn?.id ?? namedProviderKey(entry.name);
  const apiMode = API_MODES.find((mode) => mode === entry.apiMode);
  const keyEnvVars = entry.keyEnv ? [entry.keyEnv, ...(builtIn?.keyEnvVars ?? [])] : (builtIn?.keyEnvVars ?? []);
  return {
    ...builtIn,
    id,
    label: builtIn?.label ?? entry.name,
    aliases: [...(builtIn?.aliases ?? []), `custom:${namedProviderKey(entry.name)}`, namedProviderKey(entry.name)],
    apiMode: apiMode ?? builtIn?.apiMode ?? "chat_completions",
    defaultBaseUrl: entry.baseUrl,
    keyEnvVars,
    ...(entry.apiKey ? { apiKey: entry.apiKey } : {}),
    // An entry that names no key at all is an endpoint that wants none (a local or private server).
    ...(!builtIn && !entry.apiKey && !entry.keyEnv ? { keyOptional: true } : {}),
    ...(entry.model || entry.models[0] ? { defaultModel: entry.model || entry.models[0] } : {}),
    ...(entry.models.length ? { models: [...entry.models] } : {}),
  };
}

/** Replaces the registered named providers. */
export function setNamedProviders(specs: readonly ProviderSpec[]): void {
  registered = [...specs];
}

/** The registered named provider for a name or alias, if any. */
export function findNamedProvider(name: string): ProviderSpec | undefined {
  const key = namedProviderKey(name);
  return registered.find((spec) => spec.id === key || spec.aliases.includes(key));
}
