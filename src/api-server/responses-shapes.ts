/**
 * The Responses API's shapes: a request body turned into an agent turn, the `response` object
 * a turn produces, and the named server-sent events of a streamed response, in the order
 * OpenAI sends them.
 *
 * Item ids derive from the response id and the item's position among items of its kind, so
 * the items a stream announces carry the same ids as the final response object.
 */
import { randomBytes } from "node:crypto";
import type { ContentPart, Message, ToolCall, Usage } from "../llm/types.js";
import { bad, isObject, type Json, optionalBoolean, optionalNumber, present } from "./chat-request.js";

export interface ResponsesRequest {
  model: string;
  /** The new user turn. */
  input: string | ContentPart[];
  /** Items before the new user turn, as messages. */
  history: Message[];
  /** `instructions`, then every system/developer item's text, joined by blank lines. */
  instructions: string;
  previousResponseId?: string;
  conversation?: string;
  store: boolean;
  stream: boolean;
  maxOutputTokens?: number;
  temperature?: number;
}

function userContent(content: unknown, param: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content) || content.length === 0) {
    throw bad(`${param} must be a string or a non-empty array of content parts`, param);
  }
  return content.map((part, j): ContentPart => {
    const at = `${param}[${j}]`;
    if (!isObject(part)) throw bad(`${at} must be an object`, at);
    if (part.type === "input_text") {
      if (typeof part.text !== "string") throw bad(`${at}.text must be a string`, `${at}.text`);
      return { type: "text", text: part.text };
    }
    if (part.type === "input_image") {
      if (typeof part.image_url !== "string" || !part.image_url) {
        throw bad(
          `${at}.image_url must be an image URL or data URL; file_id images are not supported`,
          `${at}.image_url`,
        );
      }
      const detail = ["auto", "low", "high"].includes(part.detail as string) ? { detail: part.detail as "auto" } : {};
      return { type: "image_url", image_url: { url: part.image_url, ...detail } };
    }
    throw bad(
      `${at}.type "${String(part.type)}" is not supported; send input_text and input_image parts`,
      `${at}.type`,
    );
  });
}

/** Text of assistant/system content: a string, or input_text/output_text/refusal parts. */
function plainText(content: unknown, param: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw bad(`${param} must be a string or an array of content parts`, param);
  return content
    .map((part, j) => {
      const at = `${param}[${j}]`;
      const text = isObject(part) ? (part.type === "refusal" ? part.refusal : part.text) : undefined;
      if (!isObject(part) || !["input_text", "output_text", "refusal"].includes(part.type as string)) {
        throw bad(`${at} must be an input_text, output_text or refusal part`, `${at}.type`);
      }
      if (typeof text !== "string") throw bad(`${at} has no text`, at);
      return text;
    })
    .join("");
}

function isUserMessage(item: unknown): boolean {
  return isObject(item) && (item.type === undefined || item.type === "message") && item.role === "user";
}

function convertItems(items: Json[], instructions: string[]): Message[] {
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  items.forEach((item, i) => {
    const at = `input[${i}]`;
    const type = item.type ?? "message";
    const previous = messages.at(-1);
    if (type === "message") {
      const role = item.role;
      if (role === "system" || role === "developer") instructions.push(plainText(item.content, `${at}.content`));
      else if (role === "user") messages.push({ role: "user", content: userContent(item.content, `${at}.content`) });
      else if (role === "assistant")
        messages.push({ role: "assistant", content: plainText(item.content, `${at}.content`) });
      else throw bad(`${at}.role must be one of user, assistant, system, developer`, `${at}.role`);
    } else if (type === "function_call") {
      for (const key of ["call_id", "name", "arguments"]) {
        if (typeof item[key] !== "string") throw bad(`${at}.${key} must be a string`, `${at}.${key}`);
      }
      const call: ToolCall = {
        id: item.call_id as string,
        type: "function",
        function: { name: item.name as string, arguments: item.arguments as string },
        ...(typeof item.id === "string" ? { responseItemId: item.id } : {}),
      };
      toolNames.set(call.id, call.function.name);
      // Text and the calls that followed it were one assistant turn.
      if (previous?.role === "assistant") previous.tool_calls = [...(previous.tool_calls ?? []), call];
      else messages.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      if (typeof item.call_id !== "string") throw bad(`${at}.call_id must be a string`, `${at}.call_id`);
      const name = toolNames.get(item.call_id);
      const output = plainText(item.output, `${at}.output`);
      messages.push({ role: "tool", content: output, tool_call_id: item.call_id, ...(name ? { name } : {}) });
    } else if (type !== "reasoning") {
      // Reasoning items are skipped: a summary is not what the model saw, and it cannot be replayed.
      throw bad(`${at}.type "${String(type)}" is not supported by this server`, `${at}.type`);
    }
  });
  return messages;
}

function conversationId(value: unknown): string | undefined {
  if (!present(value)) return undefined;
  const id = isObject(value) ? value.id : value;
  if (typeof id !== "string" || !id)
    throw bad("conversation must be a string id or an object with an id", "conversation");
  return id;
}

export function parseResponsesRequest(body: unknown): ResponsesRequest {
  if (!isObject(body)) throw bad("the request body must be a JSON object");
  if (present(body.model) && typeof body.model !== "string") throw bad("model must be a string", "model");
  if (present(body.instructions) && typeof body.instructions !== "string") {
    throw bad("instructions must be a string", "instructions");
  }
  const previous = body.previous_response_id;
  if (present(previous) && (typeof previous !== "string" || !previous)) {
    throw bad("previous_response_id must be a non-empty string", "previous_response_id");
  }
  const conversation = conversationId(body.conversation);
  if (present(previous) && conversation !== undefined) {
    throw bad("send either previous_response_id or conversation, not both", "conversation");
  }
  const instructions = typeof body.instructions === "string" && body.instructions ? [body.instructions] : [];
  let input: string | ContentPart[];
  let history: Message[] = [];
  if (typeof body.input === "string") {
    if (!body.input) throw bad("input must not be empty", "input");
    input = body.input;
  } else if (Array.isArray(body.input)) {
    const items = body.input;
    if (items.length === 0) throw bad("input must not be an empty array", "input");
    items.forEach((item, i) => {
      if (!isObject(item)) throw bad(`input[${i}] must be an object`, `input[${i}]`);
    });
    if (!isUserMessage(items.at(-1))) {
      throw bad(
        "the last input item must be a user message; the agent answers the final user turn",
        `input[${items.length - 1}]`,
      );
    }
    const messages = convertItems(items as Json[], instructions);
    input = messages.pop()!.content ?? "";
    history = messages;
  } else {
    throw bad("input is required: a string or an array of input items", "input");
  }
  const maxOutputTokens = optionalNumber(body, "max_output_tokens", 1, Number.MAX_SAFE_INTEGER, true);
  const temperature = optionalNumber(body, "temperature", 0, 2);
  return {
    model: typeof body.model === "string" ? body.model : "",
    input,
    history,
    instructions: instructions.filter((text) => text !== "").join("\n\n"),
    ...(typeof previous === "string" ? { previousResponseId: previous } : {}),
    ...(conversation !== undefined ? { conversation } : {}),
    store: optionalBoolean(body, "store") ?? true,
    stream: optionalBoolean(body, "stream") ?? false,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
  };
}

export type ResponseStatus = "completed" | "failed" | "incomplete" | "in_progress";

export type OutputItem =
  | { type: "reasoning"; id: string; summary: Array<{ type: "summary_text"; text: string }> }
  | {
      type: "message";
      id: string;
      role: "assistant";
      status: "in_progress" | "completed" | "incomplete";
      content: OutputText[];
    }
  | {
      type: "function_call";
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: "in_progress" | "completed";
    }
  | { type: "function_call_output"; id: string; call_id: string; output: string; status: "completed" };

export interface OutputText {
  type: "output_text";
  text: string;
  annotations: never[];
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface ResponseObject {
  id: string;
  object: "response";
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  instructions: string | null;
  metadata: Record<string, string>;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  temperature: number | null;
  text: { format: { type: "text" } };
  tool_choice: "auto";
  tools: never[];
  top_p: number | null;
  usage: ResponseUsage | null;
}

export interface ResponseInit {
  id: string;
  model: string;
  /** Epoch seconds. */
  createdAt: number;
  status: ResponseStatus;
  /** What the turn added after the user's input. */
  newMessages?: readonly Message[];
  instructions?: string | null;
  previousResponseId?: string | null;
  usage?: Usage | null;
  error?: { code: string; message: string };
  /** Why an incomplete response stopped; OpenAI's own values are max_output_tokens and content_filter. */
  incompleteReason?: string;
  temperature?: number | null;
}

export function responseId(): string {
  return `resp_${randomBytes(16).toString("hex")}`;
}

/** Hands out item ids `<prefix>_<response hex>_<n>`, counting per prefix. */
class ItemIds {
  private readonly counts = new Map<string, number>();
  private readonly stem: string;
  constructor(responseIdValue: string) {
    this.stem = responseIdValue.replace(/^resp_/, "");
  }
  next(prefix: "msg" | "rs" | "fc" | "fco"): string {
    const n = this.counts.get(prefix) ?? 0;
    this.counts.set(prefix, n + 1);
    return `${prefix}_${this.stem}_${n}`;
  }
}

const textOf = (content: Message["content"]): string =>
  typeof content === "string"
    ? content
    : (content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");

const outputText = (text: string): OutputText => ({ type: "output_text", text, annotations: [] });

function functionCallItem(call: ToolCall, ids: ItemIds): OutputItem {
  const id = ids.next("fc");
  return {
    type: "function_call",
    id: call.responseItemId ?? id,
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
    status: "completed",
  };
}

const functionOutputItem = (callId: string, output: string, ids: ItemIds): OutputItem => ({
  type: "function_call_output",
  id: ids.next("fco"),
  call_id: callId,
  output,
  status: "completed",
});

function outputItems(messages: readonly Message[], ids: ItemIds): OutputItem[] {
  const items: OutputItem[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      items.push(functionOutputItem(message.tool_call_id ?? "", textOf(message.content), ids));
      continue;
    }
    if (message.role !== "assistant") continue;
    if (message.reasoning) {
      items.push({
        type: "reasoning",
        id: ids.next("rs"),
        summary: [{ type: "summary_text", text: message.reasoning }],
      });
    }
    const text = textOf(message.content);
    if (text)
      items.push({
        type: "message",
        id: ids.next("msg"),
        role: "assistant",
        status: "completed",
        content: [outputText(text)],
      });
    for (const call of message.tool_calls ?? []) items.push(functionCallItem(call, ids));
  }
  return items;
}

export function responseUsage(usage: Usage): ResponseUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export function buildResponseObject(init: ResponseInit): ResponseObject {
  const done = init.status === "completed";
  return {
    id: init.id,
    object: "response",
    created_at: init.createdAt,
    completed_at: done ? Math.max(init.createdAt, Math.floor(Date.now() / 1000)) : null,
    status: init.status,
    error: init.status === "failed" ? (init.error ?? { code: "server_error", message: "the response failed" }) : null,
    incomplete_details: init.status === "incomplete" ? { reason: init.incompleteReason ?? "max_output_tokens" } : null,
    instructions: init.instructions || null,
    metadata: {},
    model: init.model,
    output: outputItems(init.newMessages ?? [], new ItemIds(init.id)),
    parallel_tool_calls: true,
    previous_response_id: init.previousResponseId ?? null,
    temperature: init.temperature ?? null,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: init.usage ? responseUsage(init.usage) : null,
  };
}

const TERMINAL_EVENT: Record<ResponseStatus, string> = {
  completed: "response.completed",
  failed: "response.failed",
  incomplete: "response.incomplete",
  in_progress: "response.completed",
};

/**
 * The events of one streamed response, each serialized as `event: <type>\ndata: <json>\n\n`
 * with an increasing `sequence_number`. Text opens a message item on its first delta; a tool
 * call or result reported meanwhile closes it, and later text opens a new one.
 */
export class ResponseStreamEvents {
  private sequence = 0;
  private outputIndex = 0;
  private readonly ids: ItemIds;
  private open: { id: string; index: number; text: string } | null = null;

  constructor(private readonly init: Omit<ResponseInit, "status" | "newMessages" | "usage">) {
    this.ids = new ItemIds(init.id);
  }

  private event(type: string, fields: Json): string {
    const payload = { type, sequence_number: this.sequence++, ...fields };
    return `event: ${type}\ndata: ${JSON.stringify(payload)}\n\n`;
  }

  /** `response.created` and `response.in_progress`. */
  start(): string[] {
    const response = buildResponseObject({ ...this.init, status: "in_progress" });
    return [this.event("response.created", { response }), this.event("response.in_progress", { response })];
  }

  textDelta(delta: string): string {
    if (!delta) return "";
    let out = "";
    if (!this.open) {
      this.open = { id: this.ids.next("msg"), index: this.outputIndex++, text: "" };
      const item = { type: "message", id: this.open.id, role: "assistant", status: "in_progress", content: [] };
      out += this.event("response.output_item.added", { output_index: this.open.index, item });
      out += this.event("response.content_part.added", { ...this.at(), part: outputText("") });
    }
    this.open.text += delta;
    return out + this.event("response.output_text.delta", { ...this.at(), delta, logprobs: [] });
  }

  /** A completed tool call, as an `output_item.added`/`done` pair. */
  toolCall(call: ToolCall): string {
    return this.closeText("completed") + this.wholeItem(functionCallItem(call, this.ids));
  }

  /** A tool's result, as an `output_item.added`/`done` pair. */
  toolResult(callId: string, output: string): string {
    return this.closeText("completed") + this.wholeItem(functionOutputItem(callId, output, this.ids));
  }

  /** Closes any open text, then the terminal event matching the response's status. */
  finish(response: ResponseObject): string[] {
    const close = this.closeText(response.status === "completed" ? "completed" : "incomplete");
    return [...(close ? [close] : []), this.event(TERMINAL_EVENT[response.status], { response })];
  }

  private at() {
    return { item_id: this.open!.id, output_index: this.open!.index, content_index: 0 };
  }

  private wholeItem(item: OutputItem): string {
    const output_index = this.outputIndex++;
    return (
      this.event("response.output_item.added", { output_index, item }) +
      this.event("response.output_item.done", { output_index, item })
    );
  }

  private closeText(status: "completed" | "incomplete"): string {
    if (!this.open) return "";
    const { id, index, text } = this.open;
    const part = outputText(text);
    const out =
      this.event("response.output_text.done", { ...this.at(), text, logprobs: [] }) +
      this.event("response.content_part.done", { ...this.at(), part }) +
      this.event("response.output_item.done", {
        output_index: index,
        item: { type: "message", id, role: "assistant", status, content: [part] },
      });
    this.open = null;
    return out;
  }
}
