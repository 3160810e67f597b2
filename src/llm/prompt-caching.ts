/**
 * Anthropic prompt-cache breakpoints. Anthropic honours at most four `cache_control` markers
 * per request; they go on the tool definitions (the last tool), the system prompt, and the
 * most recent messages: without tools that is system + last 3 messages, with tools it is
 * tools + system + last 2. Markers sit on content parts, never on the message envelope.
 * Works on native Anthropic requests (top-level `system`) and on chat-completions requests
 * sent to Anthropic models through an aggregator (system as the first message).
 */

export type CacheTtl = "5m" | "1h";

export interface CacheMarker {
  type: "ephemeral";
  ttl?: "1h";
}

export const MAX_CACHE_BREAKPOINTS = 4;

export function cacheMarker(ttl: CacheTtl = "5m"): CacheMarker {
  return ttl === "1h" ? { type: "ephemeral", ttl: "1h" } : { type: "ephemeral" };
}

interface WireMessage {
  role: string;
  content?: unknown;
}

export interface CacheableRequest {
  system?: unknown;
  messages: WireMessage[];
  tools?: Array<Record<string, unknown>> | undefined;
}

const UNMARKABLE_BLOCKS = new Set(["thinking", "redacted_thinking"]);
const SYSTEM_ROLES = new Set(["system", "developer"]);

function markBlocks(blocks: unknown[], marker: CacheMarker): boolean {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i] as Record<string, unknown> | undefined;
    if (!block || typeof block !== "object") continue;
    if (UNMARKABLE_BLOCKS.has(String(block.type))) continue;
    if (block.type === "text" && block.text === "") continue;
    block.cache_control = { ...marker };
    return true;
  }
  return false;
}

/** Puts the marker on the last markable content part, turning string content into one text part. */
function markContent(holder: { content?: unknown }, marker: CacheMarker): boolean {
  const content = holder.content;
  if (typeof content === "string") {
    if (content === "") return false;
    holder.content = [{ type: "text", text: content, cache_control: { ...marker } }];
    return true;
  }
  return Array.isArray(content) ? markBlocks(content, marker) : false;
}

/** Adds cache breakpoints to `request` in place and returns it. */
export function applyCacheMarkers<T extends CacheableRequest>(request: T, options: { ttl?: CacheTtl } = {}): T {
  const marker = cacheMarker(options.ttl);
  let budget = MAX_CACHE_BREAKPOINTS;
  const lastTool = request.tools?.[request.tools.length - 1];
  if (lastTool) {
    lastTool.cache_control = { ...marker };
    budget--;
  }
  if (request.system !== undefined) {
    const holder = { content: request.system };
    if (markContent(holder, marker)) {
      request.system = holder.content;
      budget--;
    }
  } else {
    const first = request.messages[0];
    if (first && SYSTEM_ROLES.has(first.role) && markContent(first, marker)) budget--;
  }
  for (let i = request.messages.length - 1; i >= 0 && budget > 0; i--) {
    const message = request.messages[i]!;
    if (SYSTEM_ROLES.has(message.role)) continue;
    if (markContent(message, marker)) budget--;
  }
  return request;
}
