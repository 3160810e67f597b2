/**
 * Context-window sizes: a table for well-known models, a probe for custom and local servers
 * (OpenAI-style `/v1/models`, Ollama `/api/show`, LM Studio `/api/v0/models`), the Ollama
 * `num_ctx` knob, and the minimum window the agent needs to work.
 */
import { modelBaseName } from "./transports/common.js";

/** Tokens, keyed by model-name prefix (dots written as dashes). The longest matching prefix wins. */
export const CONTEXT_WINDOWS: Record<string, number> = {
  claude: 200_000,
  "gpt-5": 400_000,
  "gpt-5-chat": 128_000,
  "gpt-4-1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-oss": 131_072,
  o1: 200_000,
  o3: 200_000,
  "o4-mini": 200_000,
  "codex-mini": 200_000,
  gemini: 1_048_576,
  "gemini-1-5-pro": 2_097_152,
  "gemma-3": 131_072,
  deepseek: 128_000,
  qwen3: 131_072,
  "qwen3-coder": 262_144,
  "qwen3-max": 262_144,
  "qwen2-5": 131_072,
  qwq: 131_072,
  "llama-3-1": 131_072,
  "llama-3-2": 131_072,
  "llama-3-3": 131_072,
  "llama3-1": 131_072,
  "llama3-2": 131_072,
  "llama3-3": 131_072,
  "llama-4": 1_048_576,
  "kimi-k2": 262_144,
  "kimi-k2-0711": 131_072,
  "glm-4": 128_000,
  "glm-4-5": 131_072,
  "glm-4-6": 204_800,
  "minimax-m2": 204_800,
  "minimax-m1": 1_000_000,
  "grok-3": 131_072,
  "grok-4": 256_000,
  "grok-4-fast": 2_000_000,
  "grok-code-fast": 256_000,
  "mistral-large": 131_072,
  devstral: 131_072,
  "hermes-3": 131_072,
  "hermes-4": 131_072,
};

export const MINIMUM_CONTEXT_LENGTH = 64_000;

/** The known window of a model, or undefined. Vendor prefixes and Ollama tags are ignored. */
export function contextWindowFor(model: string): number | undefined {
  const name = modelBaseName(model).replaceAll(".", "-");
  let best: string | undefined;
  for (const key of Object.keys(CONTEXT_WINDOWS)) {
    if (name.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : CONTEXT_WINDOWS[best];
}

export interface ProbeOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  /** Per-request timeout (default 5 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

function positive(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.floor(n) : undefined;
}

function root(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
}

/** A server's JSON answer; `answered` is false when no HTTP response came back at all. */
interface JsonAnswer {
  answered: boolean;
  body?: unknown;
}

async function getJson(url: string, options: ProbeOptions, body?: unknown): Promise<JsonAnswer> {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 5000)];
  if (options.signal) signals.push(options.signal);
  try {
    // Loaded on first probe: the table lookups above need no networking modules.
    const [{ httpRequest }, { proxyForUrl }] = await Promise.all([import("./http-client.js"), import("./proxy.js")]);
    const response = await httpRequest(url, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        accept: "application/json",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any(signals),
      proxy: proxyForUrl(url),
    });
    if (response.status < 200 || response.status > 299) {
      response.cancel();
      return { answered: true };
    }
    return { answered: true, body: await response.json().catch(() => undefined) };
  } catch {
    return { answered: false };
  }
}

function findModel(list: unknown, model: string): Record<string, unknown> | undefined {
  const data = (list as { data?: unknown } | undefined)?.data ?? list;
  if (!Array.isArray(data)) return undefined;
  const entries = data.filter((e): e is Record<string, unknown> => !!e && typeof e === "object");
  return (
    entries.find((e) => e.id === model) ??
    entries.find((e) => typeof e.id === "string" && modelBaseName(e.id) === modelBaseName(model))
  );
}

function fromModelsEntry(entry: Record<string, unknown> | undefined): number | undefined {
  if (!entry) return undefined;
  const topProvider = (entry.top_provider ?? {}) as Record<string, unknown>;
  return (
    positive(entry.context_length) ??
    positive(entry.max_model_len) ??
    positive(entry.context_window) ??
    positive(entry.max_context_length) ??
    positive(topProvider.context_length)
  );
}

function fromOllamaShow(show: unknown): number | undefined {
  if (!show || typeof show !== "object") return undefined;
  const record = show as Record<string, unknown>;
  const numCtx = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(String(record.parameters ?? ""))?.[1];
  if (numCtx) return positive(numCtx);
  const info = (record.model_info ?? {}) as Record<string, unknown>;
  const key = Object.keys(info).find((k) => k.endsWith(".context_length") || k === "context_length");
  return key ? positive(info[key]) : undefined;
}

export interface ProbeResult {
  /** The window the server reported. */
  tokens?: number;
  /** Whether the server answered at all (an HTTP response of any status), as opposed to being unreachable. */
  answered: boolean;
}

/**
 * Asks a custom or local server how large the model's window is. Tries `/v1/models`
 * (`context_length`, vLLM's `max_model_len`, ...) first; when that does not tell, asks Ollama's
 * `/api/show` and LM Studio's `/api/v0/models` together, prefers Ollama's answer, and cancels
 * the request still running once an answer is settled.
 */
export async function probeContextWindow(options: ProbeOptions): Promise<ProbeResult> {
  const base = root(options.baseUrl);
  const models = await getJson(`${base}/v1/models`, options);
  const fromModels = fromModelsEntry(findModel(models.body, options.model));
  if (fromModels) return { tokens: fromModels, answered: true };
  const settled = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, settled.signal]) : settled.signal;
  const ollama = getJson(`${base}/api/show`, { ...options, signal }, { model: options.model });
  const lmStudio = getJson(`${base}/api/v0/models`, { ...options, signal });
  try {
    const show = await ollama;
    const fromOllama = fromOllamaShow(show.body);
    if (fromOllama) return { tokens: fromOllama, answered: true };
    const listed = await lmStudio;
    const loaded = findModel(listed.body, options.model);
    const tokens = positive(loaded?.loaded_context_length) ?? positive(loaded?.max_context_length);
    const answered = models.answered || show.answered || listed.answered;
    return tokens ? { tokens, answered } : { answered };
  } finally {
    settled.abort();
  }
}

/** The window a custom or local server reports for the model; undefined when none answers. */
export async function probeContextLength(options: ProbeOptions): Promise<number | undefined> {
  return (await probeContextWindow(options)).tokens;
}

/** Whether a base URL points at an Ollama server (its default port or an "ollama" host). */
export function isOllamaBaseUrl(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  try {
    const url = new URL(baseUrl);
    if (url.hostname === "ollama.com") return false;
    return url.port === "11434" || url.hostname.includes("ollama");
  } catch {
    return false;
  }
}

/** Request fields that make an Ollama server load the model with a `numCtx` window; undefined elsewhere. */
export function ollamaContextBody(
  baseUrl: string | undefined,
  numCtx: number | undefined,
): Record<string, unknown> | undefined {
  if (!numCtx || !isOllamaBaseUrl(baseUrl)) return undefined;
  return { options: { num_ctx: numCtx } };
}

export class ContextTooSmallError extends Error {
  constructor(
    readonly contextLength: number,
    readonly minimum: number,
    model?: string,
  ) {
    super(
      `${model ? `The model ${model}` : "The model"} has a ${contextLength.toLocaleString("en-US")}-token context window, ` +
        `below the ${minimum.toLocaleString("en-US")} tokens the agent needs for its tools and history. ` +
        "Pick a model with a larger window (for local servers, raise num_ctx / the loaded context length), " +
        "or lower the minimum if you accept truncated sessions.",
    );
    this.name = "ContextTooSmallError";
  }
}

/** Throws ContextTooSmallError when `contextLength` is below `minimum` (default 64,000). */
export function assertMinimumContext(
  contextLength: number,
  options: { minimum?: number; model?: string; allowBelowMinimum?: boolean } = {},
): void {
  const minimum = options.minimum ?? MINIMUM_CONTEXT_LENGTH;
  if (options.allowBelowMinimum || contextLength >= minimum) return;
  throw new ContextTooSmallError(contextLength, minimum, options.model);
}
