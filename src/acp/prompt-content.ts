/**
 * An ACP prompt (text, images, embedded resources, resource links) as the user message the
 * agent runs with. The client is not trusted: sizes and types are checked here, and a prompt
 * that breaks a limit is refused as a whole rather than silently cut.
 */
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import type { ContentPart } from "../llm/types.js";

export const PROMPT_LIMITS = {
  /** Characters of text (typed text plus embedded text resources). */
  textChars: 2_000_000,
  /** Base64 characters of one image (about 7.5 MB decoded). */
  imageBase64Chars: 10_000_000,
  images: 16,
  blocks: 500,
} as const;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class PromptContentError extends Error {}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return "`".repeat(longest + 1);
}

function embeddedText(uri: string, text: string, mimeType?: string | null): string {
  const marker = fence(text);
  const type = mimeType ? ` (${mimeType})` : "";
  return `Content of ${uri}${type}:\n${marker}\n${text}\n${marker}`;
}

function imagePart(data: string, mimeType: string): ContentPart {
  if (!IMAGE_TYPES.has(mimeType)) throw new PromptContentError(`unsupported image type ${JSON.stringify(mimeType)}`);
  if (data.length > PROMPT_LIMITS.imageBase64Chars) {
    throw new PromptContentError(`an image is larger than ${PROMPT_LIMITS.imageBase64Chars} base64 characters`);
  }
  if (!BASE64.test(data)) throw new PromptContentError("an image's data is not base64");
  return { type: "image_url", image_url: { url: `data:${mimeType};base64,${data}` } };
}

function linkText(block: Extract<ContentBlock, { type: "resource_link" }>): string {
  const label = block.title ?? block.name;
  const size = typeof block.size === "number" ? `, ${block.size} bytes` : "";
  const path = block.uri.startsWith("file://") ? decodeURIComponent(new URL(block.uri).pathname) : block.uri;
  return `[Attached: ${label} — ${path}${size}; read it with the file tools if needed]`;
}

/** The agent's input for a prompt: plain text when there is no image, else text and image parts. */
export function promptInput(blocks: readonly ContentBlock[]): string | ContentPart[] {
  if (blocks.length > PROMPT_LIMITS.blocks) throw new PromptContentError(`more than ${PROMPT_LIMITS.blocks} blocks`);
  const parts: ContentPart[] = [];
  let chars = 0;
  let images = 0;
  const addText = (value: string) => {
    chars += value.length;
    if (chars > PROMPT_LIMITS.textChars) {
      throw new PromptContentError(`the prompt's text is longer than ${PROMPT_LIMITS.textChars} characters`);
    }
    const last = parts.at(-1);
    if (last?.type === "text") last.text += `\n\n${value}`;
    else parts.push({ type: "text", text: value });
  };
  const addImage = (data: string, mimeType: string) => {
    if (++images > PROMPT_LIMITS.images) throw new PromptContentError(`more than ${PROMPT_LIMITS.images} images`);
    parts.push(imagePart(data, mimeType));
  };
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        if (block.text) addText(block.text);
        break;
      case "image":
        addImage(block.data, block.mimeType);
        break;
      case "resource_link":
        addText(linkText(block));
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) addText(embeddedText(resource.uri, resource.text, resource.mimeType));
        else if (resource.mimeType && IMAGE_TYPES.has(resource.mimeType)) addImage(resource.blob, resource.mimeType);
        else addText(`[Attached binary resource ${resource.uri} (${resource.mimeType ?? "unknown type"}) not shown]`);
        break;
      }
      case "audio":
        throw new PromptContentError("audio prompts are not supported");
    }
  }
  if (parts.length === 0) throw new PromptContentError("the prompt is empty");
  return images === 0 ? parts.map((part) => (part.type === "text" ? part.text : "")).join("\n\n") : parts;
}
