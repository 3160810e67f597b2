/**
 * Validates a `POST /v1/chat/completions` body and turns it into an agent turn: the client's
 * system and developer text, the earlier messages as history, and the last user message as
 * the input. Every rejection is an ApiError 400 naming the offending parameter.
 *
 * Client-provided `tools` and `tool_choice` are accepted and ignored: the agent runs its own
 * server-side tools, and tool calls never come back to the client as `tool_calls`.
 */
import type { ContentPart, Message, ToolCall } from "../llm/types.js";
import { ApiError } from "./errors.js";

export interface ChatRequest {
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: send a usage chunk before `[DONE]`. */
  includeUsage: boolean;
  /** Every system and developer message's text, in order, joined by blank lines. */
  instructions: string;
  history: Message[];
  input: string | ContentPart[];
  temperature?: number;
  maxTokens?: number;
}

export type Json = Record<string, unknown>;

const ROLES = ["system", "developer", "user", "assistant", "tool", "function"];
const IMAGE_DETAILS = ["auto", "low", "high"];

export function bad(message: string, param: string | null = null): ApiError {
  return new ApiError(400, message, { param });
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `null` counts as absent, as it does for OpenAI's nullable parameters. */
export function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function textOfParts(content: unknown, param: string, allowed: string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw bad(`${param} must be a string or an array of content parts`, param);
  return content
    .map((part, j) => {
      const at = `${param}[${j}]`;
      if (!isObject(part) || typeof part.type !== "string") throw bad(`${at} must be an object with a type`, at);
      if (!allowed.includes(part.type)) {
        throw bad(`${at}.type "${part.type}" is not allowed here; use ${allowed.join(" or ")}`, `${at}.type`);
      }
      const text = part.type === "refusal" ? part.refusal : part.text;
      if (typeof text !== "string")
        throw bad(`${at} needs a string ${part.type === "refusal" ? "refusal" : "text"}`, at);
      return text;
    })
    .join("");
}

function userParts(content: unknown[], param: string): ContentPart[] {
  if (content.length === 0) throw bad(`${param} must not be an empty array`, param);
  return content.map((part, j): ContentPart => {
    const at = `${param}[${j}]`;
    if (!isObject(part) || typeof part.type !== "string") throw bad(`${at} must be an object with a type`, at);
    if (part.type === "text") {
      if (typeof part.text !== "string") throw bad(`${at}.text must be a string`, `${at}.text`);
      return { type: "text", text: part.text };
    }
    if (part.type === "image_url") {
      const image = part.image_url;
      if (!isObject(image) || typeof image.url !== "string" || !image.url) {
        throw bad(`${at}.image_url must be an object with a url`, `${at}.image_url`);
      }
      if (present(image.detail) && !IMAGE_DETAILS.includes(image.detail as string)) {
        throw bad(`${at}.image_url.detail must be one of ${IMAGE_DETAILS.join(", ")}`, `${at}.image_url.detail`);
      }
      const detail = present(image.detail) ? { detail: image.detail as "auto" | "low" | "high" } : {};
      return { type: "image_url", image_url: { url: image.url, ...detail } };
    }
    throw bad(
      `${at}.type "${part.type}" is not supported by this server; send text and image_url parts only`,
      `${at}.type`,
    );
  });
}

function userContent(content: unknown, param: string): string | ContentPart[] {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return userParts(content, param);
  throw bad(`${param} must be a string or an array of content parts`, param);
}

function toolCalls(value: unknown, param: string): ToolCall[] {
  if (!Array.isArray(value)) throw bad(`${param} must be an array`, param);
  return value.map((call, j): ToolCall => {
    const at = `${param}[${j}]`;
    if (!isObject(call)) throw bad(`${at} must be an object`, at);
    if (call.type !== "function") {
      throw bad(`${at}.type must be "function"; other tool call types are not supported`, `${at}.type`);
    }
    if (typeof call.id !== "string" || !call.id) throw bad(`${at}.id must be a non-empty string`, `${at}.id`);
    const fn = call.function;
    if (!isObject(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string") {
      throw bad(`${at}.function must have a string name and string arguments`, `${at}.function`);
    }
    return { id: call.id, type: "function", function: { name: fn.name, arguments: fn.arguments } };
  });
}

function convertMessage(message: Json, param: string, toolNames: Map<string, string>): Message {
  const role = message.role as string;
  if (role === "user") {
    if (!present(message.content)) throw bad(`${param}.content is required for a user message`, `${param}.content`);
    return { role: "user", content: userContent(message.content, `${param}.content`) };
  }
  if (role === "assistant") {
    if (present(message.function_call)) {
      throw bad(`${param}.function_call is deprecated and not supported; use tool_calls`, `${param}.function_call`);
    }
    const calls = present(message.tool_calls) ? toolCalls(message.tool_calls, `${param}.tool_calls`) : [];
    const content = present(message.content)
      ? textOfParts(message.content, `${param}.content`, ["text", "refusal"])
      : null;
    if (content === null && calls.length === 0) {
      throw bad(`${param} needs content or tool_calls`, `${param}.content`);
    }
    for (const call of calls) toolNames.set(call.id, call.function.name);
    return { role: "assistant", content, ...(calls.length ? { tool_calls: calls } : {}) };
  }
  // role === "tool"
  if (typeof message.tool_call_id !== "string" || !message.tool_call_id) {
    throw bad(`${param}.tool_call_id must be a non-empty string`, `${param}.tool_call_id`);
  }
  const content = textOfParts(message.content ?? "", `${param}.content`, ["text"]);
  const name = toolNames.get(message.tool_call_id);
  return { role: "tool", content, tool_call_id: message.tool_call_id, ...(name ? { name } : {}) };
}

export function optionalNumber(body: Json, key: string, min: number, max: number, integer = false): number | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw bad(`${key} must be ${integer ? "a whole number" : "a number"}`, key);
  }
  if (value < min || value > max) throw bad(`${key} must be between ${min} and ${max}`, key);
  return value;
}

export function optionalBoolean(body: Json, key: string): boolean | undefined {
  const value = body[key];
  if (!present(value)) return undefined;
  if (typeof value !== "boolean") throw bad(`${key} must be a boolean`, key);
  return value;
}

export function parseChatRequest(body: unknown): ChatRequest {
  if (!isObject(body)) throw bad("the request body must be a JSON object");
  if (present(body.model) && typeof body.model !== "string") throw bad("model must be a string", "model");
  const stream = optionalBoolean(body, "stream") ?? false;
  let includeUsage = false;
  if (present(body.stream_options)) {
    if (!isObject(body.stream_options)) throw bad("stream_options must be an object", "stream_options");
    const include = body.stream_options.include_usage;
    if (present(include) && typeof include !== "boolean") {
      throw bad("stream_options.include_usage must be a boolean", "stream_options.include_usage");
    }
    includeUsage = include === true;
  }
  if (present(body.n) && body.n !== 1) throw bad("n must be 1; this server returns a single choice", "n");
  const temperature = optionalNumber(body, "temperature", 0, 2);
  const maxTokens =
    optionalNumber(body, "max_completion_tokens", 1, Number.MAX_SAFE_INTEGER, true) ??
    optionalNumber(body, "max_tokens", 1, Number.MAX_SAFE_INTEGER, true);

  const messages = body.messages;
  if (!Array.isArray(messages)) throw bad("messages must be an array of messages", "messages");
  if (messages.length === 0) throw bad("messages must contain at least one message", "messages");

  const instructions: string[] = [];
  const converted: Message[] = [];
  const toolNames = new Map<string, string>();
  messages.forEach((message, i) => {
    const param = `messages[${i}]`;
    if (!isObject(message)) throw bad(`${param} must be an object`, param);
    if (typeof message.role !== "string" || !ROLES.includes(message.role)) {
      throw bad(`${param}.role must be one of system, developer, user, assistant, tool`, `${param}.role`);
    }
    if (message.role === "function") {
      throw bad(`${param}.role "function" is deprecated and not supported; use "tool" messages`, `${param}.role`);
    }
    const last = i === messages.length - 1;
    if (last && message.role !== "user") {
      throw bad(
        `the last message must be from the user (it is "${message.role}"); the agent answers the final user message`,
        `${param}.role`,
      );
    }
    if (message.role === "system" || message.role === "developer") {
      instructions.push(textOfParts(message.content, `${param}.content`, ["text"]));
    } else {
      converted.push(convertMessage(message, param, toolNames));
    }
  });
  const input = converted.pop()!;

  return {
    model: typeof body.model === "string" ? body.model : "",
    stream,
    includeUsage,
    instructions: instructions.filter((text) => text !== "").join("\n\n"),
    history: converted,
    input: input.content ?? "",
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  };
}
