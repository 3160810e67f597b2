import type { Message } from "../../llm/types.js";

/** The text of a message's content; image parts are left out. */
export function contentText(content: Message["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Puts `block` in front of a message's content, whatever shape the content has. */
export function prependText(message: Message, block: string): Message {
  const { content } = message;
  if (Array.isArray(content)) return { ...message, content: [{ type: "text", text: block }, ...content] };
  return { ...message, content: content ? `${block}\n\n${content}` : block };
}
