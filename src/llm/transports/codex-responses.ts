/**
 * OpenAI Responses API (`POST {baseUrl}/responses`, streamed): api.openai.com for GPT-5.x and
 * the ChatGPT Codex backend (`/backend-api/codex`). Requests are stateless (`store: false`), so
 * reasoning items travel back with their encrypted content on later turns.
 *
 * Malformed chunks: every event carries state, so unreadable event data ends the stream with
 * LlmError kind `malformed`.
 */
import { LlmError } from "../errors.js";
import { postJson } from "../http.js";
import { normalizeFinishReason } from "../normalize.js";
import { readSse } from "../sse.js";
import type { ContentPart, FinishReason, LlmEvent, LlmRequest, Message, Transport, Usage } from "../types.js";
import { usageFromResponses } from "../usage.js";
import { disconnectError, type ErrorContext } from "../watchdog.js";
import {
  bearer,
  contentText,
  joinUrl,
  type ProviderQuirks,
  parseJson,
  type TransportOptions,
  temperatureFor,
  usesDeveloperRole,
} from "./common.js";

type Item = Record<string, unknown>;

function inputContent(content: Message["content"]): Item[] {
  if (content === null || content === "") return [];
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return content.map(
    (part: ContentPart): Item =>
      part.type === "text"
        ? { type: "input_text", text: part.text }
        : { type: "input_image", image_url: part.image_url.url, detail: part.image_url.detail ?? "auto" },
  );
}

function assistantItems(message: Message): Item[] {
  const items: Item[] = [...((message.reasoningContinuity?.responsesItems ?? []) as Item[])];
  const text = contentText(message.content);
  if (text) items.push({ type: "message", role: "assistant", content: [{ type: "output_text", text }] });
  for (const call of message.tool_calls ?? []) {
    const item: Item = {
      type: "function_call",
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
    };
    if (call.responseItemId?.startsWith("fc")) item.id = call.responseItemId;
    items.push(item);
  }
  return items;
}

/** Leading system messages become `instructions`; the rest of the history becomes input items. */
export function toResponsesInput(messages: Message[], model: string): { instructions: string; input: Item[] } {
  const instructions: string[] = [];
  const input: Item[] = [];
  let leading = true;
  for (const message of messages) {
    if (message.role === "system" && leading) {
      const text = contentText(message.content);
      if (text) instructions.push(text);
      continue;
    }
    leading = false;
    if (message.role === "system") {
      const role = usesDeveloperRole(model) ? "developer" : "system";
      input.push({ type: "message", role, content: inputContent(message.content) });
    } else if (message.role === "user") {
      input.push({ type: "message", role: "user", content: inputContent(message.content) });
    } else if (message.role === "assistant") {
      input.push(...assistantItems(message));
    } else {
      input.push({
        type: "function_call_output",
        call_id: message.tool_call_id ?? "",
        output: contentText(message.content),
      });
    }
  }
  return { instructions: instructions.join("\n\n"), input };
}

export function buildResponsesBody(req: LlmRequest, quirks: ProviderQuirks = {}): Record<string, unknown> {
  const { instructions, input } = toResponsesInput(req.messages, req.model);
  const reasoningModel = usesDeveloperRole(req.model);
  const body: Record<string, unknown> = { model: req.model, instructions, input, stream: true, store: false };
  if (req.tools && req.tools.length > 0) {
    body.tools = req.tools.map((tool) => ({
      type: "function",
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters,
      strict: false,
    }));
    body.tool_choice = "auto";
    body.parallel_tool_calls = true;
  }
  if (reasoningModel || req.reasoningEffort) {
    body.reasoning = { summary: "auto", ...(req.reasoningEffort ? { effort: req.reasoningEffort } : {}) };
    body.include = ["reasoning.encrypted_content"];
  }
  if (req.maxTokens !== undefined && !quirks.omitMaxTokens) body.max_output_tokens = req.maxTokens;
  const temperature = temperatureFor(req, quirks);
  if (temperature !== undefined) body.temperature = temperature;
  if (req.serviceTier) body.service_tier = req.serviceTier;
  return { ...body, ...req.extraBody };
}

const ERROR_STATUS: Record<string, number> = {
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  context_length_exceeded: 400,
  invalid_prompt: 400,
  server_error: 500,
};

function failure(error: Record<string, unknown>, body: unknown, context: ErrorContext): LlmError {
  const code = String(error.code ?? error.type ?? "server_error");
  return new LlmError(`The Responses API reported a failure (${code}): ${String(error.message ?? "")}`, {
    kind: "http",
    status: ERROR_STATUS[code] ?? 500,
    body,
    ...context,
  });
}

function finishOf(response: Record<string, unknown>, hasTools: boolean): FinishReason {
  const details = (response.incomplete_details ?? {}) as Record<string, unknown>;
  if (response.status === "incomplete") return normalizeFinishReason(String(details.reason ?? "length"), false);
  return normalizeFinishReason("stop", hasTools);
}

interface OpenCall {
  toolIndex: number;
  sentArgs: boolean;
}

async function* streamResponses(
  options: TransportOptions,
  req: LlmRequest,
  signal: AbortSignal,
): AsyncGenerator<LlmEvent> {
  const context: ErrorContext = { provider: options.provider, model: req.model };
  const url = joinUrl(options.baseUrl ?? "https://api.openai.com/v1", "responses");
  const response = await postJson(url, buildResponsesBody(req, options.quirks), {
    ...context,
    signal,
    timeouts: options.timeouts,
    env: options.env,
    headers: { ...bearer(options.apiKey, options.quirks), ...options.headers, ...req.headers },
  });
  const calls = new Map<string, OpenCall>();
  const reasoningItems: Item[] = [];
  let toolCount = 0;
  let final: Record<string, unknown> | undefined;
  const callFor = (data: Item) => calls.get(String(data.item_id ?? "")) ?? calls.get(`#${String(data.output_index)}`);

  for await (const event of readSse(response, { ...context, signal, timeouts: options.timeouts })) {
    const data = parseJson(event.data);
    if (!data) {
      throw new LlmError(`The Responses API sent an unreadable ${event.event ?? "stream"} event.`, {
        kind: "malformed",
        body: event.data,
        ...context,
      });
    }
    const type = String(data.type ?? event.event ?? "");
    const item = (data.item ?? {}) as Item;
    if (type === "response.output_item.added" && item.type === "function_call") {
      const open: OpenCall = { toolIndex: toolCount++, sentArgs: false };
      calls.set(String(item.id ?? ""), open);
      calls.set(`#${String(data.output_index)}`, open);
      const start: LlmEvent = {
        type: "tool_call_start",
        index: open.toolIndex,
        id: String(item.call_id ?? item.id ?? ""),
        name: String(item.name ?? ""),
      };
      if (typeof item.id === "string") start.responseItemId = item.id;
      yield start;
    } else if (type === "response.output_text.delta" && typeof data.delta === "string") {
      yield { type: "text_delta", text: data.delta };
    } else if (
      (type === "response.reasoning_summary_text.delta" || type === "response.reasoning_text.delta") &&
      typeof data.delta === "string"
    ) {
      yield { type: "reasoning_delta", text: data.delta };
    } else if (type === "response.function_call_arguments.delta" && typeof data.delta === "string") {
      const open = callFor(data);
      if (open && data.delta) {
        open.sentArgs = true;
        yield { type: "tool_call_delta", index: open.toolIndex, argumentsDelta: data.delta };
      }
    } else if (type === "response.output_item.done") {
      if (item.type === "function_call") {
        const open = callFor({ item_id: item.id, output_index: data.output_index });
        if (open && !open.sentArgs && typeof item.arguments === "string" && item.arguments) {
          open.sentArgs = true;
          yield { type: "tool_call_delta", index: open.toolIndex, argumentsDelta: item.arguments };
        }
        if (open) yield { type: "tool_call_end", index: open.toolIndex };
      } else if (item.type === "reasoning" && typeof item.encrypted_content === "string") {
        const { status: _status, ...kept } = item;
        reasoningItems.push(kept);
      }
    } else if (type === "response.completed" || type === "response.incomplete") {
      final = (data.response ?? {}) as Record<string, unknown>;
      break;
    } else if (type === "response.failed") {
      const failed = (data.response ?? {}) as Record<string, unknown>;
      throw failure((failed.error ?? {}) as Record<string, unknown>, data, context);
    } else if (type === "error") {
      throw failure(((data.error as Item | undefined) ?? data) as Record<string, unknown>, data, context);
    }
  }
  if (!final) throw disconnectError(context, "no response.completed");
  const usage: Usage = usageFromResponses(final.usage);
  yield { type: "usage", usage };
  if (reasoningItems.length > 0) yield { type: "reasoning_continuity", continuity: { responsesItems: reasoningItems } };
  yield { type: "finish", reason: finishOf(final, toolCount > 0) };
}

export function createCodexResponsesTransport(options: TransportOptions = {}): Transport {
  return {
    apiMode: "codex_responses",
    stream: (req, signal) => streamResponses(options, req, signal),
  };
}
