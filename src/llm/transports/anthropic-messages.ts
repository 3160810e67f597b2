/**
 * Anthropic Messages (`POST {baseUrl}/v1/messages`, streamed), also spoken by
 * Anthropic-compatible endpoints (MiniMax, Kimi and Z.AI `/anthropic` paths).
 *
 * Malformed chunks: the protocol is strict and every event carries content, so an event whose
 * data is not JSON ends the stream with LlmError kind `malformed` rather than dropping text.
 */
import { LlmError } from "../errors.js";
import { postJson } from "../http.js";
import { normalizeFinishReason } from "../normalize.js";
import { applyCacheMarkers } from "../prompt-caching.js";
import { readSse } from "../sse.js";
import type { ContentPart, LlmEvent, LlmRequest, Message, ReasoningContinuity, Transport } from "../types.js";
import { usageFromAnthropic } from "../usage.js";
import { disconnectError, type ErrorContext } from "../watchdog.js";
import {
  joinUrl,
  modelBaseName,
  type ProviderQuirks,
  parseArguments,
  parseDataUrl,
  parseJson,
  pushTurn,
  type TransportOptions,
  temperatureFor,
  thinkingBudget,
} from "./common.js";

export const ANTHROPIC_VERSION = "2023-06-01";
const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
const OAUTH_BETA = "oauth-2025-04-20";

type Block = Record<string, unknown> & { type: string };
type Turn = { role: "user" | "assistant"; content: Block[] };
type Thinking = NonNullable<ReasoningContinuity["anthropicThinking"]>[number];

/** Output caps by model family; the first matching prefix wins. */
const OUTPUT_LIMITS: Array<[string, number]> = [
  ["claude-opus-4-6", 128_000],
  ["claude-sonnet-4-6", 128_000],
  ["claude-opus-4-5", 64_000],
  ["claude-opus-4", 32_000],
  ["claude-sonnet-4", 64_000],
  ["claude-haiku-4", 64_000],
  ["claude-3-7", 64_000],
  ["claude-3-5", 8_192],
  ["claude-3", 4_096],
];

export function defaultMaxTokens(model: string): number {
  const name = modelBaseName(model).replaceAll(".", "-");
  return OUTPUT_LIMITS.find(([prefix]) => name.startsWith(prefix))?.[1] ?? 16_384;
}

function imageBlock(url: string): Block {
  const data = parseDataUrl(url);
  if (data) return { type: "image", source: { type: "base64", media_type: data.mediaType, data: data.data } };
  return { type: "image", source: { type: "url", url } };
}

function partsToBlocks(content: Message["content"]): Block[] {
  if (content === null || content === "") return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.flatMap((part: ContentPart): Block[] => {
    if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
    return [imageBlock(part.image_url.url)];
  });
}

function thinkingBlocks(message: Message): Block[] {
  return (message.reasoningContinuity?.anthropicThinking ?? []).map((block): Block => ({ ...block }));
}

function assistantBlocks(message: Message): Block[] {
  const blocks = [...thinkingBlocks(message), ...partsToBlocks(message.content)];
  for (const call of message.tool_calls ?? []) {
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return blocks;
}

function toolResultBlock(message: Message): Block {
  const block: Block = { type: "tool_result", tool_use_id: message.tool_call_id ?? "" };
  const parts = partsToBlocks(message.content);
  if (typeof message.content === "string") {
    if (message.content !== "") block.content = message.content;
  } else if (parts.length > 0) {
    block.content = parts;
  }
  return block;
}

/** Converts the internal history into a system prompt and strictly alternating turns. */
export function toAnthropicMessages(messages: Message[]): { system: Block[]; messages: Turn[] } {
  const system: Block[] = [];
  const turns: Turn[] = [];
  const push = (role: Turn["role"], blocks: Block[]) => pushTurn(turns, role, blocks);
  for (const message of messages) {
    if (message.role === "system") system.push(...partsToBlocks(message.content));
    else if (message.role === "assistant") push("assistant", assistantBlocks(message));
    else if (message.role === "tool") push("user", [toolResultBlock(message)]);
    else push("user", partsToBlocks(message.content));
  }
  return { system, messages: turns };
}

export function buildAnthropicBody(req: LlmRequest, quirks: ProviderQuirks = {}): Record<string, unknown> {
  const { system, messages } = toAnthropicMessages(req.messages);
  const body: Record<string, unknown> & { messages: Turn[]; tools?: Array<Record<string, unknown>>; system?: unknown } =
    {
      model: req.model,
      max_tokens: req.maxTokens ?? defaultMaxTokens(req.model),
      messages,
      stream: true,
    };
  if (system.length > 0) body.system = system;
  if (req.stopSequences?.length) body.stop_sequences = req.stopSequences;
  if (req.tools && req.tools.length > 0) {
    body.tools = req.tools.map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      input_schema: tool.function.parameters,
    }));
  }
  const budget = thinkingBudget(req.reasoningEffort);
  if (budget !== undefined) {
    body.thinking = { type: "enabled", budget_tokens: budget };
    if ((body.max_tokens as number) <= budget) body.max_tokens = budget + 4096;
  } else {
    const temperature = temperatureFor(req, quirks);
    if (temperature !== undefined) body.temperature = temperature;
  }
  if (req.promptCache !== false && quirks.supportsCacheControl !== false) {
    applyCacheMarkers(body, { ttl: req.promptCache?.ttl ?? "5m" });
  }
  if (req.serviceTier) body.service_tier = req.serviceTier;
  return { ...body, ...req.extraBody };
}

function authHeaders(apiKey: string | undefined, thinking: boolean): Record<string, string> {
  const betas = thinking ? [INTERLEAVED_THINKING_BETA] : [];
  const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
  if (apiKey?.startsWith("sk-ant-oat")) {
    headers.authorization = `Bearer ${apiKey}`;
    betas.push(OAUTH_BETA);
  } else if (apiKey) {
    headers["x-api-key"] = apiKey;
  }
  if (betas.length > 0) headers["anthropic-beta"] = betas.join(",");
  return headers;
}

const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function streamError(data: Record<string, unknown>, context: ErrorContext): LlmError {
  const error = (data.error ?? {}) as Record<string, unknown>;
  const type = String(error.type ?? "api_error");
  return new LlmError(`Anthropic stream error (${type}): ${String(error.message ?? "")}`, {
    kind: "http",
    status: ERROR_STATUS[type] ?? 500,
    body: data,
    ...context,
  });
}

type OpenBlock = { kind: "tool"; toolIndex: number } | { kind: "thinking"; thinking: Thinking } | { kind: "other" };

async function* streamAnthropic(
  options: TransportOptions,
  req: LlmRequest,
  signal: AbortSignal,
): AsyncGenerator<LlmEvent> {
  const context: ErrorContext = { provider: options.provider, model: req.model };
  const body = buildAnthropicBody(req, options.quirks);
  const base = (options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "").replace(/\/v1$/, "");
  const response = await postJson(joinUrl(base, "v1/messages"), body, {
    ...context,
    signal,
    timeouts: options.timeouts,
    env: options.env,
    headers: { ...authHeaders(options.apiKey, body.thinking !== undefined), ...options.headers, ...req.headers },
  });
  const open = new Map<number, OpenBlock>();
  const thinking: Thinking[] = [];
  let toolCount = 0;
  let rawUsage: Record<string, unknown> = {};
  let stopReason: string | undefined;
  let sawStop = false;
  for await (const event of readSse(response, { ...context, signal, timeouts: options.timeouts })) {
    if (event.event === "ping") continue;
    const data = parseJson(event.data);
    if (!data) {
      throw new LlmError(`Anthropic sent an unreadable ${event.event ?? "stream"} event.`, {
        kind: "malformed",
        body: event.data,
        ...context,
      });
    }
    const index = typeof data.index === "number" ? data.index : -1;
    switch (data.type) {
      case "message_start":
        rawUsage = { ...((data.message as Record<string, unknown> | undefined)?.usage as object) };
        break;
      case "content_block_start": {
        const block = (data.content_block ?? {}) as Record<string, unknown>;
        if (block.type === "tool_use") {
          const toolIndex = toolCount++;
          open.set(index, { kind: "tool", toolIndex });
          yield {
            type: "tool_call_start",
            index: toolIndex,
            id: String(block.id ?? ""),
            name: String(block.name ?? ""),
          };
        } else if (block.type === "thinking") {
          const entry: Thinking = { type: "thinking", thinking: String(block.thinking ?? "") };
          if (typeof block.signature === "string" && block.signature) entry.signature = block.signature;
          thinking.push(entry);
          open.set(index, { kind: "thinking", thinking: entry });
        } else if (block.type === "redacted_thinking") {
          thinking.push({ type: "redacted_thinking", data: String(block.data ?? "") });
          open.set(index, { kind: "other" });
        } else {
          open.set(index, { kind: "other" });
          if (block.type === "text" && typeof block.text === "string" && block.text) {
            yield { type: "text_delta", text: block.text };
          }
        }
        break;
      }
      case "content_block_delta": {
        const delta = (data.delta ?? {}) as Record<string, unknown>;
        const target = open.get(index);
        if (delta.type === "text_delta" && typeof delta.text === "string") {
          yield { type: "text_delta", text: delta.text };
        } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
          if (target?.kind === "thinking" && target.thinking.type === "thinking")
            target.thinking.thinking += delta.thinking;
          yield { type: "reasoning_delta", text: delta.thinking };
        } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
          if (target?.kind === "thinking" && target.thinking.type === "thinking")
            target.thinking.signature = delta.signature;
        } else if (delta.type === "input_json_delta" && target?.kind === "tool") {
          const piece = typeof delta.partial_json === "string" ? delta.partial_json : "";
          if (piece) yield { type: "tool_call_delta", index: target.toolIndex, argumentsDelta: piece };
        }
        break;
      }
      case "content_block_stop": {
        const target = open.get(index);
        if (target?.kind === "tool") yield { type: "tool_call_end", index: target.toolIndex };
        open.delete(index);
        break;
      }
      case "message_delta": {
        const delta = (data.delta ?? {}) as Record<string, unknown>;
        if (typeof delta.stop_reason === "string") stopReason = delta.stop_reason;
        for (const [key, value] of Object.entries((data.usage ?? {}) as Record<string, unknown>)) {
          if (value !== null && value !== undefined) rawUsage[key] = value;
        }
        break;
      }
      case "message_stop":
        sawStop = true;
        break;
      case "error":
        throw streamError(data, context);
      default:
        break;
    }
    if (sawStop) break;
  }
  if (!sawStop) throw disconnectError(context, "no message_stop");
  for (const target of open.values()) {
    if (target.kind === "tool") yield { type: "tool_call_end", index: target.toolIndex };
  }
  yield { type: "usage", usage: usageFromAnthropic(rawUsage) };
  if (thinking.length > 0) yield { type: "reasoning_continuity", continuity: { anthropicThinking: thinking } };
  yield { type: "finish", reason: normalizeFinishReason(stopReason, toolCount > 0) };
}

export function createAnthropicMessagesTransport(options: TransportOptions = {}): Transport {
  return {
    apiMode: "anthropic_messages",
    stream: (req, signal) => streamAnthropic(options, req, signal),
  };
}
