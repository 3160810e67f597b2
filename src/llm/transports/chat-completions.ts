/**
 * OpenAI-compatible chat completions (`POST {baseUrl}/chat/completions`, streamed).
 *
 * Malformed chunks: a `data:` payload that is not JSON is skipped, because many compatible
 * servers interleave stray non-JSON lines; an `{"error": ...}` payload ends the stream with an
 * LlmError. The stream is complete once a finish reason or `[DONE]` has arrived.
 */
import { LlmError } from "../errors.js";
import { postJson } from "../http.js";
import { deterministicToolCallId, normalizeFinishReason, ThinkTagSplitter } from "../normalize.js";
import { applyCacheMarkers } from "../prompt-caching.js";
import { readSse } from "../sse.js";
import type { LlmEvent, LlmRequest, Message, ReasoningContinuity, Transport, Usage } from "../types.js";
import { usageFromChatCompletions } from "../usage.js";
import { disconnectError, type ErrorContext } from "../watchdog.js";
import {
  bearer,
  joinUrl,
  type ProviderQuirks,
  parseJson,
  type TransportOptions,
  temperatureFor,
  usesDeveloperRole,
} from "./common.js";

type WireMessage = Record<string, unknown> & { role: string; content?: unknown };

function toWireMessage(message: Message, model: string, quirks: ProviderQuirks): WireMessage {
  switch (message.role) {
    case "system":
      return { role: usesDeveloperRole(model) ? "developer" : "system", content: message.content ?? "" };
    case "user":
      return { role: "user", content: message.content ?? "" };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id ?? "", content: message.content ?? "" };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      const wire: WireMessage = { role: "assistant", content: message.content ?? (calls.length > 0 ? null : "") };
      if (calls.length > 0) {
        wire.tool_calls = calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: call.function.arguments },
        }));
      }
      const details = message.reasoningContinuity?.openrouterDetails;
      if (quirks.echoReasoningDetails && details && details.length > 0) wire.reasoning_details = details;
      if (quirks.echoReasoningContent && message.reasoning) wire.reasoning_content = message.reasoning;
      return wire;
    }
  }
}

/** The JSON body of a streamed chat-completions request. */
export function buildChatCompletionsBody(req: LlmRequest, quirks: ProviderQuirks = {}): Record<string, unknown> {
  const body: Record<string, unknown> & { messages: WireMessage[]; tools?: Array<Record<string, unknown>> } = {
    model: req.model,
    messages: req.messages.map((m) => toWireMessage(m, req.model, quirks)),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (req.tools && req.tools.length > 0) body.tools = req.tools.map((tool) => ({ ...tool }));
  if (req.maxTokens !== undefined && !quirks.omitMaxTokens) body[quirks.maxTokensField ?? "max_tokens"] = req.maxTokens;
  const temperature = temperatureFor(req, quirks);
  if (temperature !== undefined) body.temperature = temperature;
  if (req.stopSequences?.length) body.stop = req.stopSequences;
  if (req.reasoningEffort) {
    const style = quirks.reasoningStyle ?? "reasoning_effort";
    if (style === "openrouter") body.reasoning = { effort: req.reasoningEffort };
    else if (style === "reasoning_effort") body.reasoning_effort = req.reasoningEffort;
  }
  if (quirks.supportsCacheControl && /claude/i.test(req.model) && req.promptCache !== false) {
    applyCacheMarkers(body, { ttl: req.promptCache?.ttl ?? "5m" });
  }
  if (req.serviceTier) body.service_tier = req.serviceTier;
  return { ...body, ...req.extraBody };
}

interface Slot {
  id: string | undefined;
  name: string;
  args: string;
  started: boolean;
}

/**
 * Assembles streamed tool calls by their wire index, so interleaved argument deltas of
 * parallel calls land on the right call. A call is announced once its id and name are known;
 * calls that never get an id are announced at the end with a deterministic one.
 */
export class ToolCallAssembler {
  private readonly slots: Slot[] = [];
  private readonly byWireIndex = new Map<number, number>();

  accept(raw: Record<string, unknown>): LlmEvent[] {
    const fn = (raw.function ?? {}) as { name?: unknown; arguments?: unknown };
    const id = typeof raw.id === "string" && raw.id !== "" ? raw.id : undefined;
    const name = typeof fn.name === "string" ? fn.name : "";
    const args = typeof fn.arguments === "string" ? fn.arguments : "";
    const index = this.slotFor(typeof raw.index === "number" ? raw.index : undefined, id);
    const slot = this.slots[index]!;
    if (id && !slot.id) slot.id = id;
    if (name && !slot.name) slot.name = name;
    const events: LlmEvent[] = [];
    if (!slot.started && slot.id && slot.name) {
      slot.started = true;
      events.push({ type: "tool_call_start", index, id: slot.id, name: slot.name });
      if (slot.args) events.push({ type: "tool_call_delta", index, argumentsDelta: slot.args });
      if (args) events.push({ type: "tool_call_delta", index, argumentsDelta: args });
    } else if (slot.started && args) {
      events.push({ type: "tool_call_delta", index, argumentsDelta: args });
    }
    slot.args += args;
    return events;
  }

  get count(): number {
    return this.slots.length;
  }

  /** Announces calls still waiting for an id, then closes every call. */
  finish(): LlmEvent[] {
    const events: LlmEvent[] = [];
    this.slots.forEach((slot, index) => {
      if (slot.started) return;
      const id = slot.id ?? deterministicToolCallId(index, slot.name, slot.args);
      events.push({ type: "tool_call_start", index, id, name: slot.name });
      if (slot.args) events.push({ type: "tool_call_delta", index, argumentsDelta: slot.args });
    });
    this.slots.forEach((_, index) => {
      events.push({ type: "tool_call_end", index });
    });
    return events;
  }

  private slotFor(wireIndex: number | undefined, id: string | undefined): number {
    if (wireIndex !== undefined) {
      const existing = this.byWireIndex.get(wireIndex);
      const slot = existing === undefined ? undefined : this.slots[existing];
      // Some servers reuse index 0 for every parallel call; a new id means a new call.
      if (existing !== undefined && !(id && slot?.id && slot.id !== id)) return existing;
      const index = this.newSlot();
      this.byWireIndex.set(wireIndex, index);
      return index;
    }
    if (id) {
      const found = this.slots.findIndex((slot) => slot.id === id);
      return found >= 0 ? found : this.newSlot();
    }
    return this.slots.length > 0 ? this.slots.length - 1 : this.newSlot();
  }

  private newSlot(): number {
    this.slots.push({ id: undefined, name: "", args: "", started: false });
    return this.slots.length - 1;
  }
}

/** Merges streamed OpenRouter `reasoning_details` fragments that share a type and index. */
function mergeReasoningDetails(into: Array<Record<string, unknown>>, incoming: unknown): void {
  if (!Array.isArray(incoming)) return;
  for (const raw of incoming) {
    if (!raw || typeof raw !== "object") continue;
    const piece = raw as Record<string, unknown>;
    const match = into.find((d) => d.type === piece.type && d.index === piece.index && piece.index !== undefined);
    if (!match) {
      into.push({ ...piece });
      continue;
    }
    for (const [key, value] of Object.entries(piece)) {
      const current = match[key];
      if ((key === "text" || key === "summary") && typeof value === "string" && typeof current === "string") {
        match[key] = current + value;
      } else if (value !== null && value !== undefined) {
        match[key] = value;
      }
    }
  }
}

function streamError(chunk: Record<string, unknown>, context: ErrorContext): LlmError {
  const error = chunk.error as Record<string, unknown> | string;
  const message = typeof error === "string" ? error : String(error?.message ?? "unknown error");
  const code = typeof error === "object" ? error?.code : undefined;
  const fields: ConstructorParameters<typeof LlmError>[1] = { kind: "http", body: chunk, ...context };
  if (typeof code === "number") fields.status = code;
  return new LlmError(`The provider reported an error mid-stream: ${message}`, fields);
}

async function* streamChat(options: TransportOptions, req: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent> {
  const quirks = options.quirks ?? {};
  const context: ErrorContext = { provider: options.provider, model: req.model };
  const url = joinUrl(options.baseUrl ?? "https://api.openai.com/v1", "chat/completions");
  const response = await postJson(url, buildChatCompletionsBody(req, quirks), {
    ...context,
    signal,
    timeouts: options.timeouts,
    env: options.env,
    headers: { ...bearer(options.apiKey, options.quirks), ...options.headers, ...req.headers },
  });
  const splitter = new ThinkTagSplitter();
  const tools = new ToolCallAssembler();
  const details: Array<Record<string, unknown>> = [];
  let usage: Usage | undefined;
  let finishRaw: string | undefined;
  let sawDone = false;
  const textEvents = (pieces: ReturnType<ThinkTagSplitter["push"]>): LlmEvent[] =>
    pieces.map((p) =>
      p.kind === "text" ? { type: "text_delta", text: p.text } : { type: "reasoning_delta", text: p.text },
    );

  for await (const event of readSse(response, { ...context, signal, timeouts: options.timeouts })) {
    if (event.data.trim() === "[DONE]") {
      sawDone = true;
      break;
    }
    const chunk = parseJson(event.data);
    if (!chunk) continue;
    if (chunk.error) throw streamError(chunk, context);
    if (chunk.usage) usage = usageFromChatCompletions(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? (chunk.choices as Array<Record<string, unknown>>) : [];
    const choice = choices[0];
    if (!choice) continue;
    const delta = (choice.delta ?? choice.message ?? {}) as Record<string, unknown>;
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning) yield { type: "reasoning_delta", text: reasoning };
    mergeReasoningDetails(details, delta.reasoning_details);
    if (typeof delta.content === "string" && delta.content) yield* textEvents(splitter.push(delta.content));
    if (Array.isArray(delta.tool_calls)) {
      for (const raw of delta.tool_calls) if (raw && typeof raw === "object") yield* tools.accept(raw);
    }
    if (typeof choice.finish_reason === "string" && choice.finish_reason) finishRaw = choice.finish_reason;
  }
  if (!sawDone && finishRaw === undefined) throw disconnectError(context, "no finish reason and no [DONE]");
  yield* textEvents(splitter.flush());
  const hadTools = tools.count > 0;
  yield* tools.finish();
  if (usage) yield { type: "usage", usage };
  if (details.length > 0) {
    const continuity: ReasoningContinuity = { openrouterDetails: details };
    yield { type: "reasoning_continuity", continuity };
  }
  yield { type: "finish", reason: normalizeFinishReason(finishRaw, hadTools) };
}

export function createChatCompletionsTransport(options: TransportOptions = {}): Transport {
  return {
    apiMode: "chat_completions",
    stream: (req, signal) => streamChat(options, req, signal),
  };
}
