/**
 * Rough token estimates (about four characters per token). Good enough to decide when to
 * compress and how much to keep; the provider's usage report is the truth when available.
 */

const CHARS_PER_TOKEN = 4;
/** Images are billed by size, not by the length of their URL or base64 payload. */
export const IMAGE_TOKEN_ESTIMATE = 1_000;

/** The parts of a chat message that cost tokens (structurally compatible with the history type). */
export interface TokenCountable {
  content?: string | ReadonlyArray<{ type: string; text?: string }> | null;
  tool_calls?: ReadonlyArray<{ function: { name: string; arguments: string } }>;
  reasoning?: string;
}

export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function messageChars(message: TokenCountable): number {
  let chars = 0;
  const { content } = message;
  if (typeof content === "string") chars += content.length;
  else if (Array.isArray(content)) {
    for (const part of content) {
      chars += part.type === "text" ? (part.text ?? "").length : IMAGE_TOKEN_ESTIMATE * CHARS_PER_TOKEN;
    }
  }
  for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  if (message.reasoning) chars += message.reasoning.length;
  return chars;
}

export function estimateMessageTokens(message: TokenCountable): number {
  return Math.ceil(messageChars(message) / CHARS_PER_TOKEN);
}

export function estimateTokens(messages: readonly TokenCountable[]): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}
