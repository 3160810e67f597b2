/**
 * Named OpenAI-compatible endpoints, in both of the original's shapes: `providers:` (a mapping
 * keyed by name) and the older `custom_providers:` (a list of entries with a `name`). Each one
 * can be chosen as `model.provider: NAME` (or `custom:NAME`) and `--provider NAME`.
 */
import type { NamedEndpoint } from "../util/named-endpoint.js";
import { z } from "../util/schema/index.js";
import { accepts, baseUrlText, integerAtLeast } from "./config-fields.js";

const optionalText = () => z.string(accepts("a string")).optional();

/** A model list, or the original's mapping of model names to per-model settings. */
const modelNames = z
  .preprocess(
    (value) => (value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value) : value),
    z.array(z.string(accepts("a model name")), accepts("a list of model names, or a mapping keyed by model name")),
  )
  .default([]);

const entryFields = {
  name: optionalText(),
  base_url: baseUrlText().optional(),
  /** The original's other spellings of `base_url`. */
  url: baseUrlText().optional(),
  api: baseUrlText().optional(),
  /** The key itself; `key_env` (the name of a variable holding it) keeps it out of this file. */
  api_key: optionalText(),
  key_env: optionalText(),
  api_key_env: optionalText(),
  api_mode: optionalText(),
  transport: optionalText(),
  /** The model used when none is given. */
  model: optionalText(),
  default_model: optionalText(),
  models: modelNames,
  context_length: integerAtLeast(0, 0).optional(),
};

const providerEntry = z.object(entryFields, accepts("a mapping with base_url (and api_key or key_env, models)"));

export const providersSchema = z
  .record(z.string(), providerEntry, accepts("a mapping of provider names to endpoint settings"))
  .default({});

export const customProvidersSchema = z
  .array(
    providerEntry.refine((entry) => Boolean(entry.name?.trim()), { error: () => "an entry with a name" }),
    accepts("a list of endpoints, each with a name and base_url"),
  )
  .default([]);

export type { NamedEndpoint };

type ProviderEntry = z.output<typeof providerEntry>;

function toEndpoint(name: string, entry: ProviderEntry): NamedEndpoint | undefined {
  const baseUrl = entry.base_url || entry.url || entry.api;
  if (!baseUrl || !name.trim()) return undefined;
  const keyEnv = entry.key_env || entry.api_key_env;
  const apiMode = entry.api_mode || entry.transport;
  const model = entry.model || entry.default_model;
  return {
    name: name.trim(),
    baseUrl,
    ...(entry.api_key ? { apiKey: entry.api_key } : {}),
    ...(keyEnv ? { keyEnv } : {}),
    ...(apiMode ? { apiMode } : {}),
    ...(model ? { model } : {}),
    models: entry.models,
  };
}

/**
 * Every usable named endpoint: `custom_providers` entries first, then `providers` ones (the
 * original's order); an entry without a base URL names nothing to call and is left out.
 */
export function namedEndpoints(config: {
  providers: Record<string, ProviderEntry>;
  custom_providers: ProviderEntry[];
}): NamedEndpoint[] {
  const found: NamedEndpoint[] = [];
  const seen = new Set<string>();
  const add = (endpoint: NamedEndpoint | undefined) => {
    const key = endpoint?.name.toLowerCase();
    if (!endpoint || !key || seen.has(key)) return;
    seen.add(key);
    found.push(endpoint);
  };
  for (const entry of config.custom_providers) add(toEndpoint(entry.name ?? "", entry));
  for (const [key, entry] of Object.entries(config.providers)) add(toEndpoint(entry.name || key, entry));
  return found;
}
