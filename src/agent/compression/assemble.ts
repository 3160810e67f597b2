/**
 * Phase 4 of compression: head + summary + tail, with the summary given whichever role keeps
 * user and assistant messages alternating, or folded into the first tail message when neither
 * role fits.
 */
import type { Message, Role } from "../../llm/types.js";
import { SUMMARY_END_MARKER, SUMMARY_PREFIX } from "./summary.js";
import { contentText, prependText } from "./text.js";

export const COMPACTION_SYSTEM_NOTE =
  "[Note: some earlier turns of this conversation were condensed into a summary to save context. " +
  "Your persistent memory (MEMORY.md, USER.md) is not affected and remains fully authoritative.]";

export interface AssemblyResult {
  messages: Message[];
  /** Where the summary ended up. */
  placement: "user" | "assistant" | "merged";
}

export function assembleCompressed(
  head: readonly Message[],
  summary: string,
  tail: readonly Message[],
): AssemblyResult {
  const messages = head.map((message, index) => (index === 0 ? withSystemNote(message) : message));
  // Right after the system prompt (or at the very start) only a user message is welcome.
  const last = messages.at(-1)?.role;
  const before = last === undefined || last === "system" ? "assistant" : last;
  const after = tail[0]?.role;
  const role = (["user", "assistant"] as const).find((r) => r !== before && r !== after);

  if (role === undefined && tail.length > 0) {
    const [first, ...rest] = tail;
    messages.push(prependText(first!, summaryBlock(summary, true)), ...rest);
    return { messages, placement: "merged" };
  }
  const summaryRole: Role = role ?? "user";
  messages.push({ role: summaryRole, content: summaryBlock(summary, summaryRole === "user") }, ...tail);
  return { messages, placement: summaryRole === "user" ? "user" : "assistant" };
}

/**
 * The text of a summary message. As a user message it ends with an explicit marker, so a
 * request quoted in the summary is not mistaken for a new one.
 */
export function summaryBlock(summary: string, withEndMarker: boolean): string {
  const text = `${SUMMARY_PREFIX}\n\n${summary}`;
  return withEndMarker ? `${text}\n\n${SUMMARY_END_MARKER}` : text;
}

function withSystemNote(message: Message): Message {
  if (message.role !== "system") return message;
  if (contentText(message.content).includes(COMPACTION_SYSTEM_NOTE)) return message;
  const { content } = message;
  if (Array.isArray(content))
    return { ...message, content: [...content, { type: "text", text: COMPACTION_SYSTEM_NOTE }] };
  return { ...message, content: content ? `${content}\n\n${COMPACTION_SYSTEM_NOTE}` : COMPACTION_SYSTEM_NOTE };
}
