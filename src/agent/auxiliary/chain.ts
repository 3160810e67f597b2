/**
 * Which providers an auxiliary task may use, in order. `provider: auto` starts with the main
 * provider and model, then tries every other provider that has credentials in the environment;
 * an explicit provider comes first and keeps the rest of that order for billing failures.
 */
import { apiKeyFromEnv, baseUrlFor, PROVIDERS, resolveProvider } from "../../llm/providers.js";
import type { Transport } from "../../llm/types.js";
import type { AuxiliaryTaskConfig } from "../../state/config-schema.js";
import type { ModelRoute } from "../recovery/types.js";

export type Env = Record<string, string | undefined>;

/** Cheap, fast models used when a provider is picked for a side task without a model. */
export const DEFAULT_AUXILIARY_MODELS: Readonly<Record<string, string>> = {
  openrouter: "google/gemini-3-flash-preview",
  nous: "google/gemini-3-flash-preview",
  anthropic: "claude-haiku-4-5-20251001",
  "openai-codex": "gpt-5.1-codex-mini",
  openai: "gpt-5-mini",
  gemini: "gemini-3-flash-preview",
  xai: "grok-4-fast-non-reasoning",
  deepseek: "deepseek-chat",
  zai: "glm-4.5-flash",
  "kimi-coding": "kimi-k2-turbo-preview",
  minimax: "MiniMax-M2",
  "minimax-cn": "MiniMax-M2",
  alibaba: "qwen-flash",
};

/** Text tasks: aggregators first, then the custom endpoint, OAuth-style providers, then direct API keys. */
const TEXT_ORDER = ["openrouter", "nous", "custom", "openai-codex", "anthropic"];
/** Vision needs a model that reads images: aggregators and Anthropic before a local endpoint. */
const VISION_ORDER = ["openrouter", "nous", "openai-codex", "anthropic", "custom"];

export interface AuxiliaryCandidate {
  provider: string;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** The main route's transport, reused rather than rebuilt. */
  transport?: Transport;
  /** Fields merged into this candidate's requests (`auxiliary.<task>.extra_body`, first candidate only). */
  extraBody?: Record<string, unknown>;
  /** This candidate is the main provider and model. */
  isMain: boolean;
}

export interface ChainInput {
  task: string;
  settings: Partial<AuxiliaryTaskConfig> | undefined;
  mainRoute: ModelRoute | undefined;
  /** `model.base_url` of config.yaml: the custom endpoint, when one is configured. */
  customBaseUrl: string | undefined;
  env: Env;
}

/** Identifies a provider endpoint for cooldowns: the same provider at another URL is another endpoint. */
export function endpointKey(candidate: Pick<AuxiliaryCandidate, "provider" | "baseUrl">): string {
  return `${candidate.provider}|${candidate.baseUrl ?? ""}`;
}

/** The main provider's transport, optionally with another model (then it is no longer "the main model"). */
export function mainCandidate(mainRoute: ModelRoute, model?: string): AuxiliaryCandidate {
  const chosen = model || mainRoute.model;
  return {
    provider: mainRoute.provider,
    model: chosen,
    transport: mainRoute.transport,
    isMain: chosen === mainRoute.model,
  };
}

/**
 * A candidate for `providerId` with its default side-task model, when it has what it needs
 * (credentials, or an endpoint for the custom provider, which runs the main model's name).
 */
function candidateFor(providerId: string, input: ChainInput): AuxiliaryCandidate | undefined {
  const spec = resolveProvider(providerId);
  if (!spec) return undefined;
  const apiKey = apiKeyFromEnv(spec, input.env);
  if (spec.id === "custom") {
    const baseUrl = input.customBaseUrl || baseUrlFor(spec, undefined, input.env);
    const customModel = input.mainRoute?.model;
    if (!baseUrl || !customModel) return undefined;
    return { provider: "custom", model: customModel, baseUrl, ...(apiKey ? { apiKey } : {}), isMain: false };
  }
  const chosenModel = DEFAULT_AUXILIARY_MODELS[spec.id];
  if (!apiKey || !chosenModel) return undefined;
  const baseUrl = baseUrlFor(spec, undefined, input.env);
  return { provider: spec.id, model: chosenModel, apiKey, ...(baseUrl ? { baseUrl } : {}), isMain: false };
}

/** Every provider with credentials, in the task's preference order, excluding `skip`. */
function autoProviders(input: ChainInput, skip: Set<string>): AuxiliaryCandidate[] {
  const preferred = input.task === "vision" ? VISION_ORDER : TEXT_ORDER;
  const rest = PROVIDERS.map((p) => p.id).filter((id) => !preferred.includes(id));
  const ids = input.task === "vision" ? preferred : [...preferred, ...rest];
  const out: AuxiliaryCandidate[] = [];
  for (const id of ids) {
    if (skip.has(id)) continue;
    const candidate = candidateFor(id, input);
    if (candidate) out.push(candidate);
  }
  return out;
}

/**
 * The candidates for a task in the order they are tried. A configured `model` and `extra_body`
 * apply to the first candidate only (the explicit provider or base_url, or the main provider
 * under `auto`): model names and request fields rarely carry across providers. A configured
 * `api_key` is the explicit endpoint's key (with a key of its own, the main provider is built
 * afresh rather than reused). Throws, naming the config key, for an unknown provider.
 */
export function resolveChain(input: ChainInput): AuxiliaryCandidate[] {
  const settings = input.settings ?? {};
  const extraBody =
    settings.extra_body && Object.keys(settings.extra_body).length > 0 ? settings.extra_body : undefined;
  const [first, ...rest] = chainWithoutExtras(input);
  return first && extraBody ? [{ ...first, extraBody }, ...rest] : first ? [first, ...rest] : [];
}

function chainWithoutExtras(input: ChainInput): AuxiliaryCandidate[] {
  const settings = input.settings ?? {};
  const provider = settings.provider?.trim().toLowerCase() || "auto";
  const model = settings.model?.trim() || undefined;
  const baseUrl = settings.base_url?.trim() || undefined;
  const configuredKey = settings.api_key?.trim() || undefined;
  const main = input.mainRoute;

  if (provider === "auto" && !baseUrl) {
    const first = main ? [mainCandidate(main, model)] : [];
    return [...first, ...autoProviders(input, new Set(main ? [main.provider] : []))];
  }

  const spec = resolveProvider(provider === "auto" ? "custom" : provider);
  if (!spec) throw new Error(`auxiliary.${input.task}.provider: unknown provider "${settings.provider}"`);
  const sameAsMain = main !== undefined && spec.id === main.provider && !baseUrl && !configuredKey;
  let explicit: AuxiliaryCandidate | undefined;
  if (sameAsMain) {
    explicit = mainCandidate(main, model);
  } else {
    const chosenModel = model || DEFAULT_AUXILIARY_MODELS[spec.id] || (spec.id === "custom" ? main?.model : undefined);
    if (!chosenModel) {
      throw new Error(`auxiliary.${input.task}.model: set a model for provider ${spec.id} (no default is known)`);
    }
    const apiKey = configuredKey ?? apiKeyFromEnv(spec, input.env);
    const url = baseUrlFor(spec, baseUrl ?? (spec.id === "custom" ? input.customBaseUrl : undefined), input.env);
    explicit = {
      provider: spec.id,
      model: chosenModel,
      ...(url ? { baseUrl: url } : {}),
      ...(apiKey ? { apiKey } : {}),
      isMain: false,
    };
  }
  const skip = new Set([spec.id, ...(main ? [main.provider] : [])]);
  return [explicit, ...autoProviders(input, skip)];
}
