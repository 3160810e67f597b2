/**
 * Keeping the conversation history well-formed: input sanitizing, and the invariants every
 * request relies on (roles alternate; every tool result answers a call in the assistant
 * message before it; no call is left without a result).
 */
import type { Message } from "../llm/types.js";

const MEMORY_CONTEXT_BLOCK = /<memory-context>[\s\S]*?<\/memory-context>\s*/gi;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Replace lone surrogates (invalid UTF-16 from clipboards) and drop leaked memory-context blocks. */
export function sanitizeUserText(text: string): string {
  return text.replace(LONE_SURROGATE, "\uFFFD").replace(MEMORY_CONTEXT_BLOCK, "");
}

export function textOf(content: Message["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Problems with the history's shape, as readable strings; empty when it is well-formed. */
export function historyProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  let previous: Message | undefined;
  messages.forEach((message, i) => {
    if (message.role === "tool") {
      if (!message.tool_call_id || !open.has(message.tool_call_id)) {
        problems.push(`message ${i}: tool result ${message.tool_call_id ?? "(no id)"} answers no open tool call`);
      } else {
        open.delete(message.tool_call_id);
      }
    } else {
      if (open.size > 0) problems.push(`message ${i}: tool call(s) ${[...open].join(", ")} have no result`);
      open = new Set();
      if (previous && previous.role === message.role && message.role !== "system") {
        problems.push(`message ${i}: two ${message.role} messages in a row`);
      }
    }
    if (message.role === "assistant" && message.tool_calls) {
      open = new Set(message.tool_calls.map((call) => call.id));
    }
    previous = message;
  });
  if (open.size > 0) problems.push(`end: tool call(s) ${[...open].join(", ")} have no result`);
  return problems;
}

/**
 * Make a history safe to send: drop tool results that answer nothing, give unanswered calls a
 * placeholder result, and merge consecutive user messages. Returns a new array.
 */
export function repairHistory(messages: Message[], missingResult = "[no result: the call was interrupted]"): Message[] {
  const out: Message[] = [];
  let open: string[] = [];
  const closeOpenCalls = () => {
    for (const id of open) out.push({ role: "tool", tool_call_id: id, content: missingResult });
    open = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      const at = message.tool_call_id ? open.indexOf(message.tool_call_id) : -1;
      if (at < 0) continue;
      open.splice(at, 1);
      out.push(message);
      continue;
    }
    closeOpenCalls();
    const last = out[out.length - 1];
    if (message.role === "user" && last?.role === "user") {
      out[out.length - 1] = { ...last, content: `${textOf(last.content)}\n\n${textOf(message.content)}` };
      continue;
    }
    out.push(message);
    if (message.role === "assistant" && message.tool_calls?.length) open = message.tool_calls.map((c) => c.id);
  }
  closeOpenCalls();
  return out;
}
