/**
 * Token usage in one shape for every protocol, and a rough cost estimate.
 *
 * `inputTokens` is the whole prompt, cached parts included; `cacheReadTokens` and
 * `cacheWriteTokens` are the parts of it served from / written to the prompt cache.
 * `outputTokens` includes `reasoningTokens`.
 */
import { modelBaseName } from "./transports/common.js";
import type { Usage } from "./types.js";

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function obj(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

/** OpenAI chat completions (and compatible servers: OpenRouter, DeepSeek, ...). */
export function usageFromChatCompletions(raw: unknown): Usage {
  const u = obj(raw);
  const prompt = obj(u.prompt_tokens_details);
  const completion = obj(u.completion_tokens_details);
  return {
    inputTokens: num(u.prompt_tokens),
    outputTokens: num(u.completion_tokens),
    cacheReadTokens: num(prompt.cached_tokens) || num(u.prompt_cache_hit_tokens) || num(u.cache_read_input_tokens),
    cacheWriteTokens: num(prompt.cache_write_tokens) || num(u.cache_creation_input_tokens),
    reasoningTokens: num(completion.reasoning_tokens),
  };
}

/** OpenAI Responses API. */
export function usageFromResponses(raw: unknown): Usage {
  const u = obj(raw);
  return {
    inputTokens: num(u.input_tokens),
    outputTokens: num(u.output_tokens),
    cacheReadTokens: num(obj(u.input_tokens_details).cached_tokens),
    cacheWriteTokens: 0,
    reasoningTokens: num(obj(u.output_tokens_details).reasoning_tokens),
  };
}

/** Anthropic Messages: `input_tokens` excludes the cached parts, so they are added back. */
export function usageFromAnthropic(raw: unknown): Usage {
  const u = obj(raw);
  const read = num(u.cache_read_input_tokens);
  const write = num(u.cache_creation_input_tokens);
  return {
    inputTokens: num(u.input_tokens) + read + write,
    outputTokens: num(u.output_tokens),
    cacheReadTokens: read,
    cacheWriteTokens: write,
    reasoningTokens: 0,
  };
}

/** Bedrock Converse: like Anthropic, `inputTokens` excludes cache reads and writes. */
export function usageFromBedrock(raw: unknown): Usage {
  const u = obj(raw);
  const read = num(u.cacheReadInputTokens);
  const write = num(u.cacheWriteInputTokens);
  return {
    inputTokens: num(u.inputTokens) + read + write,
    outputTokens: num(u.outputTokens),
    cacheReadTokens: read,
    cacheWriteTokens: write,
    reasoningTokens: 0,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** Published list prices, keyed by model-name prefix (dots written as dashes). Longest prefix wins. */
export const PRICES: Record<string, ModelPrice> = {
  "claude-opus-4": { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 },
  "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-opus-4-6": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-7-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-3-5-sonnet": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  "claude-haiku-4": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 },
  "gpt-5": { input: 1.25, output: 10, cacheRead: 0.125 },
  "gpt-5-mini": { input: 0.25, output: 2, cacheRead: 0.025 },
  "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
  "gpt-4-1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4-1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "gpt-4-1-nano": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  "gpt-4o": { input: 2.5, output: 10, cacheRead: 1.25 },
  "gpt-4o-mini": { input: 0.15, output: 0.6, cacheRead: 0.075 },
  o3: { input: 2, output: 8, cacheRead: 0.5 },
  "o3-mini": { input: 1.1, output: 4.4, cacheRead: 0.55 },
  "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
  "gemini-2-5-pro": { input: 1.25, output: 10, cacheRead: 0.31 },
  "gemini-2-5-flash": { input: 0.3, output: 2.5, cacheRead: 0.075 },
  "deepseek-chat": { input: 0.27, output: 1.1, cacheRead: 0.07 },
  "deepseek-reasoner": { input: 0.55, output: 2.19, cacheRead: 0.14 },
  "grok-4": { input: 3, output: 15, cacheRead: 0.75 },
  "kimi-k2": { input: 0.6, output: 2.5, cacheRead: 0.15 },
  "glm-4-6": { input: 0.6, output: 2.2, cacheRead: 0.11 },
};

export function priceFor(model: string): ModelPrice | undefined {
  const name = modelBaseName(model).replaceAll(".", "-");
  let best: string | undefined;
  for (const key of Object.keys(PRICES)) {
    if (name.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : PRICES[best];
}

/** Estimated USD cost of one call, or undefined when the model's price is unknown. */
export function estimateCost(model: string, usage: Usage, prices?: ModelPrice): number | undefined {
  const price = prices ?? priceFor(model);
  if (!price) return undefined;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const total =
    uncached * price.input +
    usage.cacheReadTokens * (price.cacheRead ?? price.input) +
    usage.cacheWriteTokens * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return total / 1_000_000;
}
