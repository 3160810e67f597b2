/** Options and small helpers shared by every transport. */

import type { ContentPart, LlmRequest, Message } from "../types.js";
import type { StreamTimeouts } from "../watchdog.js";

/** Per-provider behaviour switches, kept as data in the provider catalog. */
export interface ProviderQuirks {
  /** Always send this temperature, whatever the request says. */
  fixedTemperature?: number;
  /** Never send a temperature (the provider picks it server-side). */
  omitTemperature?: boolean;
  /** Accepts Anthropic `cache_control` markers on chat-completions content parts (aggregators). */
  supportsCacheControl?: boolean;
  /** Echo OpenRouter `reasoning_details` on later assistant turns. */
  echoReasoningDetails?: boolean;
  /** Send the previous reasoning text back as `reasoning_content` on assistant turns. */
  echoReasoningContent?: boolean;
  /** Field that carries the output cap on chat completions (default `max_tokens`). */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Do not send an output cap at all. */
  omitMaxTokens?: boolean;
  /** How a reasoning effort is expressed on chat completions (default `reasoning_effort`). */
  reasoningStyle?: "reasoning_effort" | "openrouter" | "none";
  /** Send the API key in this header instead of `Authorization: Bearer` (Azure's `api-key`). */
  apiKeyHeader?: string;
}

export interface TransportOptions {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  /** Provider id, used in error messages and error fields. */
  provider?: string | undefined;
  /** Headers sent with every request (provider defaults, attribution, ...). */
  headers?: Record<string, string> | undefined;
  timeouts?: StreamTimeouts | undefined;
  quirks?: ProviderQuirks | undefined;
  /** Environment for proxy settings (default `process.env`). */
  env?: Record<string, string | undefined> | undefined;
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}

/** The model name without a vendor prefix ("openai/gpt-5" → "gpt-5"). */
export function modelBaseName(model: string): string {
  const slash = model.lastIndexOf("/");
  return (slash >= 0 ? model.slice(slash + 1) : model).toLowerCase();
}

/** OpenAI reasoning models weigh the `developer` role above `system`. */
export function usesDeveloperRole(model: string): boolean {
  const name = modelBaseName(model);
  return name.startsWith("gpt-5") || name.includes("codex") || /^o\d/.test(name);
}

/**
 * The temperature to send, if any. Kimi / Moonshot models choose theirs server-side and OpenAI
 * reasoning models reject anything but the default, so neither gets one.
 */
export function temperatureFor(req: LlmRequest, quirks: ProviderQuirks | undefined): number | undefined {
  if (quirks?.omitTemperature) return undefined;
  if (/kimi|moonshot/i.test(req.model) || usesDeveloperRole(req.model)) return undefined;
  if (quirks?.fixedTemperature !== undefined) return quirks.fixedTemperature;
  return req.temperature;
}

/** Plain text of a message's content (image parts dropped). */
export function contentText(content: Message["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .filter((part): part is Extract<ContentPart, { type: "text" }> => part.type === "text")
    .map((part) => part.text)
    .join("");
}

/** Tool-call arguments as a JSON object; anything unparsable becomes `{}` so the request stays valid. */
export function parseArguments(args: string): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Splits a `data:` URL into media type and base64 payload. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(url);
  if (!match) return undefined;
  const mediaType = match[1] ?? "application/octet-stream";
  const data = match[2] ? match[3]! : Buffer.from(decodeURIComponent(match[3]!)).toString("base64");
  return { mediaType, data };
}

export function bearer(apiKey: string | undefined, quirks?: ProviderQuirks): Record<string, string> {
  if (!apiKey) return {};
  return quirks?.apiKeyHeader ? { [quirks.apiKeyHeader]: apiKey } : { authorization: `Bearer ${apiKey}` };
}

/** Parses one SSE data payload, or undefined when it is not JSON. */
export function parseJson(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return value && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const THINKING_BUDGETS: Record<string, number> = {
  minimal: 1024,
  low: 4096,
  medium: 8192,
  high: 16_384,
  xhigh: 32_768,
  max: 32_768,
};

/** Extended-thinking token budget for a reasoning effort, for Claude-style protocols. */
export function thinkingBudget(effort: string | undefined): number | undefined {
  return effort ? THINKING_BUDGETS[effort.toLowerCase()] : undefined;
}

/** Appends blocks to the turn list, merging into the last turn when it has the same role. */
export function pushTurn<B>(
  turns: Array<{ role: "user" | "assistant"; content: B[] }>,
  role: "user" | "assistant",
  blocks: B[],
): void {
  if (blocks.length === 0) return;
  const last = turns[turns.length - 1];
  if (last && last.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}
