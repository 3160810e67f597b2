/**
 * Turning an MCP `tools/call` result into the text the model reads. Text blocks are joined;
 * images, audio and resources become short notes (small images also as a data URL, which
 * vision tools accept); a result flagged `isError` becomes an "Error:" result.
 */

/** Images up to this many bytes are passed on as a data URL as well as described. */
export const INLINE_IMAGE_MAX_BYTES = 4096;

/** The parts of a content block this module reads; unknown block types are described by type. */
export interface McpContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  description?: string;
  size?: number;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

export interface McpCallResult {
  content?: McpContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** Size in bytes of base64 data without decoding it. */
export function base64Size(data: string): number {
  const clean = data.replace(/\s/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function describeImage(block: McpContentBlock): string {
  const mime = block.mimeType ?? "image";
  const size = base64Size(block.data ?? "");
  const note = `[image: ${mime}, ${formatBytes(size)}]`;
  if (block.data && size <= INLINE_IMAGE_MAX_BYTES) return `${note}\ndata:${mime};base64,${block.data}`;
  return `${note} (too large to include inline)`;
}

function describeResource(resource: NonNullable<McpContentBlock["resource"]>): string {
  const mime = resource.mimeType ? ` (${resource.mimeType})` : "";
  if (typeof resource.text === "string") return `[resource ${resource.uri}${mime}]\n${resource.text}`;
  const size = base64Size(resource.blob ?? "");
  return `[resource ${resource.uri}${mime}: ${formatBytes(size)} of binary data, not shown]`;
}

function describeLink(block: McpContentBlock): string {
  const parts = [`[resource link: ${block.name ?? block.uri ?? "unnamed"} <${block.uri ?? ""}>`];
  if (block.mimeType) parts.push(` (${block.mimeType})`);
  if (typeof block.size === "number") parts.push(`, ${formatBytes(block.size)}`);
  if (block.description) parts.push(` - ${block.description}`);
  return `${parts.join("")}]`;
}

export function describeBlock(block: McpContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "image":
      return describeImage(block);
    case "audio":
      return `[audio: ${block.mimeType ?? "audio"}, ${formatBytes(base64Size(block.data ?? ""))}, not shown]`;
    case "resource":
      return block.resource ? describeResource(block.resource) : "[resource without content]";
    case "resource_link":
      return describeLink(block);
    default:
      return `[${block.type} content, not shown]`;
  }
}

/** The text the model reads for one tool result. */
export function formatCallResult(result: McpCallResult): string {
  const parts = (result.content ?? []).map(describeBlock).filter((part) => part.length > 0);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const body = parts.join("\n");
  if (result.isError) return `Error: ${body || "the tool reported a failure without details"}`;
  return body || "(the tool returned no content)";
}
