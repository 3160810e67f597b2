/**
 * Phase 5 of compression: repair tool-call pairing and role alternation after messages were
 * cut out. A tool result must answer a call of the assistant message right before its run of
 * results, and every call must get a result; providers reject histories that break either rule.
 */
import type { Message } from "../../llm/types.js";
import { contentText } from "./text.js";

export const MISSING_RESULT_TEXT = "[result not available: removed while condensing the conversation]";

export interface SanitizeResult {
  messages: Message[];
  removedResults: number;
  addedResults: number;
  mergedMessages: number;
}

export function sanitizeToolPairs(messages: readonly Message[]): SanitizeResult {
  const out: Message[] = [];
  let removedResults = 0;
  let addedResults = 0;
  let i = 0;
  while (i < messages.length) {
    const message = messages[i]!;
    i++;
    if (message.role === "tool") {
      removedResults++; // not preceded by a call that it answers
      continue;
    }
    out.push(message);
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;

    const pending = new Map(message.tool_calls.map((call) => [call.id, call.function.name]));
    let sawResults = false;
    while (i < messages.length && messages[i]!.role === "tool") {
      const result = messages[i]!;
      i++;
      sawResults = true;
      if (result.tool_call_id !== undefined && pending.delete(result.tool_call_id)) out.push(result);
      else removedResults++;
    }
    // A trailing call with no results yet is still being executed; leave it alone.
    const isTrailing = i >= messages.length && !sawResults;
    if (isTrailing) continue;
    for (const [id, name] of pending) {
      out.push({ role: "tool", tool_call_id: id, name, content: MISSING_RESULT_TEXT });
      addedResults++;
    }
  }
  const merged = mergeAdjacentSameRole(out);
  return { messages: merged.messages, removedResults, addedResults, mergedMessages: merged.merged };
}

/** Joins neighbouring user/user or assistant/assistant messages into one. */
function mergeAdjacentSameRole(messages: Message[]): { messages: Message[]; merged: number } {
  const out: Message[] = [];
  let merged = 0;
  for (const message of messages) {
    const previous = out.at(-1);
    const sameConversationalRole =
      previous !== undefined &&
      previous.role === message.role &&
      (message.role === "user" || message.role === "assistant") &&
      !previous.tool_calls?.length;
    if (!sameConversationalRole) {
      out.push(message);
      continue;
    }
    out[out.length - 1] = { ...message, content: joinContent(previous.content, message.content) };
    merged++;
  }
  return { messages: out, merged };
}

function joinContent(first: Message["content"], second: Message["content"]): Message["content"] {
  if (Array.isArray(first) || Array.isArray(second)) {
    const parts = (content: Message["content"]) =>
      Array.isArray(content) ? content : content ? [{ type: "text" as const, text: content }] : [];
    return [...parts(first), ...parts(second)];
  }
  return [contentText(first), contentText(second)].filter(Boolean).join("\n\n");
}
