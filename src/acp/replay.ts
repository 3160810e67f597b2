/** A stored transcript as the `session/update`s an editor replays on `session/load`. */

import type { ContentBlock, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { isTurnNote } from "../agent/turn-checks.js";
import type { StoredContentPart, StoredMessage } from "../state/session-store.js";
import { toolKind, toolLocations, toolTitle } from "./tool-kinds.js";
import { planFromTodoResult, shownResult } from "./turn-updates.js";

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function blocksOf(content: StoredMessage["content"]): ContentBlock[] {
  if (content === null) return [];
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  return content.flatMap((part: StoredContentPart): ContentBlock[] => {
    if (part.type === "text") return part.text ? [{ type: "text", text: part.text }] : [];
    const match = DATA_URL.exec(part.image_url.url);
    return match ? [{ type: "image", mimeType: match[1]!, data: match[2]! }] : [];
  });
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export function replayUpdates(messages: readonly StoredMessage[], cwd: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "system") continue;
    if (message.role === "user") {
      // The agent's own notes to the model (verify, go ahead) are not the user's words.
      if (isTurnNote(message)) continue;
      for (const content of blocksOf(message.content)) updates.push({ sessionUpdate: "user_message_chunk", content });
      continue;
    }
    if (message.role === "assistant") {
      if (message.reasoning) {
        updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: message.reasoning } });
      }
      for (const content of blocksOf(message.content)) updates.push({ sessionUpdate: "agent_message_chunk", content });
      for (const call of message.tool_calls ?? []) {
        const args = parseArgs(call.function.arguments);
        toolNames.set(call.id, call.function.name);
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: call.id,
          title: toolTitle(call.function.name, args, ""),
          kind: toolKind(call.function.name),
          status: "in_progress",
          locations: toolLocations(call.function.name, args, cwd),
          rawInput: args,
        });
      }
      continue;
    }
    if (message.role === "tool" && message.tool_call_id) {
      const text = blocksOf(message.content)
        .map((block) => (block.type === "text" ? block.text : ""))
        .join("");
      updates.push({
        sessionUpdate: "tool_call_update",
        toolCallId: message.tool_call_id,
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: shownResult(text) } }],
      });
      if (toolNames.get(message.tool_call_id) === "todo") {
        const entries = planFromTodoResult(text);
        if (entries) updates.push({ sessionUpdate: "plan", entries });
      }
    }
  }
  return updates;
}
