/**
 * The provider catalog: every vendor is a row of data (wire protocol, base URL, key variables,
 * headers, quirks), so adding an OpenAI-compatible vendor needs no code. `createTransport`
 * loads only the one transport module the resolved protocol needs.
 */
import { findNamedProvider, type NamedProviderEntry, namedProviderSpec, setNamedProviders } from "./named-providers.js";
import type { BedrockTransportOptions } from "./transports/bedrock-converse.js";
import type { ProviderQuirks, TransportOptions } from "./transports/common.js";
import { modelBaseName } from "./transports/common.js";
import type { ApiMode, Transport } from "./types.js";

export interface ProviderSpec {
  id: string;
  label: string;
  aliases: string[];
  /** The provider's protocol. `chat_completions` is only a default: base-URL rules may refine it. */
  apiMode: ApiMode;
  defaultBaseUrl?: string;
  /** Environment variables holding the key, in order of preference. */
  keyEnvVars: string[];
  baseUrlEnvVar?: string;
  defaultHeaders?: Record<string, string>;
  quirks?: ProviderQuirks;
  /** A key written in config.yaml (`providers.<name>.api_key`); used before the variables. */
  apiKey?: string;
  /** Calls need no key (a named endpoint configured without one). */
  keyOptional?: boolean;
  /** The model used when none is given, and the models the endpoint serves (named endpoints). */
  defaultModel?: string;
  models?: string[];
}

const OPENROUTER_HEADERS = { "HTTP-Referer": "https://hermes-agent.nousresearch.com", "X-Title": "Hermes Agent" };

export const PROVIDERS: readonly ProviderSpec[] = [
  {
    id: "openrouter",
    label: "OpenRouter",
    aliases: ["or", "open-router"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://openrouter.ai/api/v1",
    keyEnvVars: ["OPENROUTER_API_KEY"],
    baseUrlEnvVar: "OPENROUTER_BASE_URL",
    defaultHeaders: OPENROUTER_HEADERS,
    quirks: { supportsCacheControl: true, echoReasoningDetails: true, reasoningStyle: "openrouter" },
  },
  {
    id: "nous",
    label: "Nous Portal",
    aliases: ["nous-portal", "nousresearch", "nous-research"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://inference-api.nousresearch.com/v1",
    keyEnvVars: ["NOUS_API_KEY"],
    baseUrlEnvVar: "NOUS_BASE_URL",
    quirks: { supportsCacheControl: true, echoReasoningDetails: true, reasoningStyle: "openrouter" },
  },
  {
    id: "anthropic",
    label: "Anthropic",
    aliases: ["claude", "anthropic-api"],
    apiMode: "anthropic_messages",
    defaultBaseUrl: "https://api.anthropic.com",
    keyEnvVars: ["ANTHROPIC_API_KEY", "ANTHROPIC_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"],
    baseUrlEnvVar: "ANTHROPIC_BASE_URL",
  },
  {
    id: "openai",
    label: "OpenAI",
    aliases: ["openai-api"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://api.openai.com/v1",
    keyEnvVars: ["OPENAI_API_KEY"],
    quirks: { maxTokensField: "max_completion_tokens" },
  },
  {
    id: "openai-codex",
    label: "OpenAI Codex (ChatGPT)",
    aliases: ["codex", "chatgpt"],
    apiMode: "codex_responses",
    defaultBaseUrl: "https://chatgpt.com/backend-api/codex",
    keyEnvVars: ["CODEX_ACCESS_TOKEN"],
    defaultHeaders: { originator: "codex_cli_rs" },
    quirks: { omitMaxTokens: true },
  },
  {
    id: "xai",
    label: "xAI",
    aliases: ["grok", "x-ai", "x.ai"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://api.x.ai/v1",
    keyEnvVars: ["XAI_API_KEY"],
    baseUrlEnvVar: "XAI_BASE_URL",
  },
  {
    id: "gemini",
    label: "Google Gemini",
    aliases: ["google", "google-gemini", "google-ai-studio"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://generativelanguage.googleapis.com/v1beta/openai",
    keyEnvVars: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
    baseUrlEnvVar: "GEMINI_BASE_URL",
  },
  {
    id: "vertex",
    label: "Google Vertex AI",
    aliases: ["vertex-ai", "google-vertex", "gcp-vertex"],
    apiMode: "chat_completions",
    // No key: OAuth2 tokens from Google credentials (llm/vertex/credentials.ts).
    keyEnvVars: [],
    baseUrlEnvVar: "VERTEX_BASE_URL",
  },
  {
    id: "bedrock",
    label: "AWS Bedrock",
    aliases: ["aws", "aws-bedrock", "amazon-bedrock"],
    apiMode: "bedrock_converse",
    keyEnvVars: ["AWS_BEARER_TOKEN_BEDROCK"],
    baseUrlEnvVar: "BEDROCK_BASE_URL",
  },
  {
    id: "azure-foundry",
    label: "Azure AI Foundry",
    aliases: ["azure", "azure-openai", "foundry"],
    apiMode: "chat_completions",
    keyEnvVars: ["AZURE_FOUNDRY_API_KEY", "AZURE_OPENAI_API_KEY"],
    baseUrlEnvVar: "AZURE_FOUNDRY_BASE_URL",
    quirks: { apiKeyHeader: "api-key", maxTokensField: "max_completion_tokens" },
  },
  {
    id: "deepseek",
    label: "DeepSeek",
    aliases: ["deep-seek"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://api.deepseek.com/v1",
    keyEnvVars: ["DEEPSEEK_API_KEY"],
    baseUrlEnvVar: "DEEPSEEK_BASE_URL",
  },
  {
    id: "zai",
    label: "Z.AI (GLM)",
    aliases: ["glm", "z-ai", "z.ai", "zhipu"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://api.z.ai/api/paas/v4",
    keyEnvVars: ["GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY"],
    baseUrlEnvVar: "GLM_BASE_URL",
  },
  {
    id: "kimi-coding",
    label: "Kimi (Moonshot)",
    aliases: ["kimi", "moonshot", "kimi-for-coding"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://api.moonshot.ai/v1",
    keyEnvVars: ["KIMI_API_KEY", "MOONSHOT_API_KEY"],
    baseUrlEnvVar: "KIMI_BASE_URL",
    quirks: { omitTemperature: true, echoReasoningContent: true },
  },
  {
    id: "minimax",
    label: "MiniMax",
    aliases: ["mini-max"],
    apiMode: "anthropic_messages",
    defaultBaseUrl: "https://api.minimax.io/anthropic",
    keyEnvVars: ["MINIMAX_API_KEY"],
    baseUrlEnvVar: "MINIMAX_BASE_URL",
  },
  {
    id: "minimax-cn",
    label: "MiniMax (China)",
    aliases: ["minimax-china"],
    apiMode: "anthropic_messages",
    defaultBaseUrl: "https://api.minimaxi.com/anthropic",
    keyEnvVars: ["MINIMAX_CN_API_KEY"],
    baseUrlEnvVar: "MINIMAX_CN_BASE_URL",
  },
  {
    id: "alibaba",
    label: "Alibaba Cloud (DashScope / Qwen)",
    aliases: ["dashscope", "qwen", "aliyun"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
    keyEnvVars: ["DASHSCOPE_API_KEY"],
    baseUrlEnvVar: "DASHSCOPE_BASE_URL",
  },
  {
    id: "huggingface",
    label: "Hugging Face Inference Providers",
    aliases: ["hf", "hugging-face"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://router.huggingface.co/v1",
    keyEnvVars: ["HF_TOKEN", "HUGGINGFACE_API_KEY"],
    baseUrlEnvVar: "HF_BASE_URL",
  },
  {
    id: "nvidia",
    label: "NVIDIA NIM",
    aliases: ["nim", "nvidia-nim"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://integrate.api.nvidia.com/v1",
    keyEnvVars: ["NVIDIA_API_KEY"],
    baseUrlEnvVar: "NVIDIA_BASE_URL",
  },
  {
    id: "ollama-cloud",
    label: "Ollama Cloud",
    aliases: ["ollama.com"],
    apiMode: "chat_completions",
    defaultBaseUrl: "https://ollama.com/v1",
    keyEnvVars: ["OLLAMA_API_KEY"],
    baseUrlEnvVar: "OLLAMA_BASE_URL",
  },
  {
    id: "lmstudio",
    label: "LM Studio",
    aliases: ["lm-studio", "lms"],
    apiMode: "chat_completions",
    defaultBaseUrl: "http://localhost:1234/v1",
    keyEnvVars: ["LM_API_KEY"],
    baseUrlEnvVar: "LMSTUDIO_BASE_URL",
  },
  {
    id: "custom",
    label: "Custom OpenAI-compatible endpoint",
    aliases: ["local", "openai-compatible", "ollama", "vllm", "llamacpp", "llama.cpp"],
    apiMode: "chat_completions",
    keyEnvVars: ["OPENAI_API_KEY"],
    baseUrlEnvVar: "OPENAI_BASE_URL",
  },
];

function builtInProvider(nameOrAlias: string): ProviderSpec | undefined {
  const key = nameOrAlias.trim().toLowerCase();
  return PROVIDERS.find((p) => p.id === key || p.aliases.includes(key));
}

/**
 * The catalog row for a provider id or alias (case-insensitive), or undefined. Endpoints named
 * in config.yaml (see registerNamedProviders) come first.
 */
export function resolveProvider(nameOrAlias: string | undefined): ProviderSpec | undefined {
  if (!nameOrAlias) return undefined;
  return findNamedProvider(nameOrAlias) ?? builtInProvider(nameOrAlias);
}

/** Makes config.yaml's named endpoints resolvable by name, replacing any registered before. */
export function registerNamedProviders(entries: readonly NamedProviderEntry[]): void {
  setNamedProviders(entries.map((entry) => namedProviderSpec(entry, builtInProvider(entry.name))));
}

function parseUrl(baseUrl: string | undefined): URL | undefined {
  if (!baseUrl) return undefined;
  try {
    return new URL(baseUrl);
  } catch {
    return undefined;
  }
}

/** The protocol implied by a base URL (and model), if any rule matches. */
export function apiModeFromBaseUrl(baseUrl: string | undefined, model?: string): ApiMode | undefined {
  const url = parseUrl(baseUrl);
  if (!url) return undefined;
  const host = url.hostname.toLowerCase();
  const path = url.pathname.replace(/\/+$/, "").toLowerCase();
  if (host === "api.anthropic.com" || path.endsWith("/anthropic") || path.endsWith("/anthropic/v1")) {
    return "anthropic_messages";
  }
  if (/^bedrock-runtime(-fips)?\.[a-z0-9-]+\.amazonaws\.com$/.test(host)) return "bedrock_converse";
  if (path.includes("/backend-api/codex")) return "codex_responses";
  if (host === "api.openai.com" && model && /^gpt-5/.test(modelBaseName(model))) return "codex_responses";
  return undefined;
}

/**
 * Picks the wire protocol: an explicit choice wins, then a provider whose protocol is not the
 * generic one, then base-URL rules, then chat completions.
 */
export function resolveApiMode(input: {
  explicit?: ApiMode | string | undefined;
  provider?: string | undefined;
  baseUrl?: string | undefined;
  model?: string | undefined;
}): ApiMode {
  const modes: ApiMode[] = ["chat_completions", "codex_responses", "anthropic_messages", "bedrock_converse"];
  if (input.explicit && modes.includes(input.explicit as ApiMode)) return input.explicit as ApiMode;
  const spec = resolveProvider(input.provider);
  if (spec && spec.apiMode !== "chat_completions") return spec.apiMode;
  return apiModeFromBaseUrl(input.baseUrl ?? spec?.defaultBaseUrl, input.model) ?? "chat_completions";
}

/** The key written in config.yaml for the provider, else the first one in its environment variables. */
export function apiKeyFromEnv(
  spec: ProviderSpec,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (spec.apiKey) return spec.apiKey;
  for (const name of spec.keyEnvVars) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Explicit base URL, else the provider's base-URL variable, else its default. */
export function baseUrlFor(
  spec: ProviderSpec | undefined,
  explicit: string | undefined,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  if (explicit) return explicit;
  const fromEnv = spec?.baseUrlEnvVar ? env[spec.baseUrlEnvVar]?.trim() : undefined;
  return fromEnv || spec?.defaultBaseUrl;
}

export interface CreateTransportOptions extends Omit<TransportOptions, "provider"> {
  provider?: string;
  apiMode?: ApiMode | string;
  model?: string;
  /** Bedrock only. */
  region?: string;
  credentials?: BedrockTransportOptions["credentials"];
}

/** Builds the transport for a provider, loading only the module its protocol needs. */
export async function createTransport(options: CreateTransportOptions): Promise<Transport> {
  const env = options.env ?? process.env;
  const spec = resolveProvider(options.provider);
  const baseUrl = baseUrlFor(spec, options.baseUrl, env);
  const apiMode = resolveApiMode({
    explicit: options.apiMode,
    provider: options.provider,
    baseUrl,
    model: options.model,
  });
  const transportOptions: TransportOptions = {
    baseUrl,
    apiKey: options.apiKey ?? (spec ? apiKeyFromEnv(spec, env) : undefined),
    provider: spec?.id ?? options.provider,
    headers: { ...spec?.defaultHeaders, ...options.headers },
    quirks: { ...spec?.quirks, ...options.quirks },
    timeouts: options.timeouts,
    env: options.env,
  };
  if (spec?.id === "vertex") {
    return (await import("./vertex/transport.js")).createVertexTransport(transportOptions);
  }
  switch (apiMode) {
    case "anthropic_messages":
      return (await import("./transports/anthropic-messages.js")).createAnthropicMessagesTransport(transportOptions);
    case "codex_responses":
      return (await import("./transports/codex-responses.js")).createCodexResponsesTransport(transportOptions);
    case "bedrock_converse": {
      const bedrock: BedrockTransportOptions = { ...transportOptions };
      if (options.region) bedrock.region = options.region;
      if (options.credentials) bedrock.credentials = options.credentials;
      return (await import("./transports/bedrock-converse.js")).createBedrockConverseTransport(bedrock);
    }
    default:
      return (await import("./transports/chat-completions.js")).createChatCompletionsTransport(transportOptions);
  }
}
