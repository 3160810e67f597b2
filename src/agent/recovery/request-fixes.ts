/**
 * Rewrites of a request that a recovery step may apply before retrying it. Each returns a new
 * request (the agent's history is never mutated) and whether anything changed, so a step that
 * would resend the same bytes can stand aside for the next one.
 */
import type { ContentPart, LlmRequest, Message } from "../../llm/types.js";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export interface Fixed {
  request: LlmRequest;
  changed: boolean;
}

/** Applies `fn` to every string inside plain objects and arrays, copying only what changes. */
function mapStrings(value: unknown, fn: (text: string) => string): unknown {
  if (typeof value === "string") return fn(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = mapStrings(item, fn);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const next = mapStrings(item, fn);
      if (next !== item) changed = true;
      out[key] = next;
    }
    return changed ? out : value;
  }
  return value;
}

/** Replaces lone UTF-16 surrogates (which no UTF-8 encoder can represent) with U+FFFD everywhere. */
export function sanitizeInvalidText(request: LlmRequest): Fixed {
  const next = mapStrings(request, (text) => text.replace(LONE_SURROGATE, "\uFFFD")) as LlmRequest;
  return { request: next, changed: next !== request };
}

/**
 * Drops provider reasoning artefacts (thinking blocks and their signatures, reasoning details,
 * encrypted reasoning items) from every message, or from those in `only`; the visible
 * reasoning text stays.
 */
export function stripReasoningContinuity(request: LlmRequest, only?: WeakSet<Message>): Fixed {
  let changed = false;
  const messages = request.messages.map((message) => {
    if (message.reasoningContinuity === undefined || (only && !only.has(message))) return message;
    changed = true;
    const { reasoningContinuity: _dropped, ...rest } = message;
    return rest;
  });
  return { request: changed ? { ...request, messages } : request, changed };
}

/** Lowers the request's output budget to at most `cap` tokens. */
export function capOutputTokens(request: LlmRequest, cap: number): Fixed {
  if (request.maxTokens !== undefined && request.maxTokens <= cap) return { request, changed: false };
  return { request: { ...request, maxTokens: cap }, changed: true };
}

/** What stands in a tool result for images a provider takes only as text. */
export function imagesLeftOutNote(count: number): string {
  return `[${count === 1 ? "an image" : `${count} images`} left out: this model takes only text in tool results]`;
}

/** Tool results made of parts become text: their text parts joined, and a note for the images. */
export function textOnlyToolResults(request: LlmRequest): Fixed {
  let changed = false;
  const messages = request.messages.map((message): Message => {
    if (message.role !== "tool" || !Array.isArray(message.content)) return message;
    changed = true;
    const parts: ContentPart[] = message.content;
    const texts = parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
    const images = parts.length - texts.length;
    if (images > 0) texts.push(imagesLeftOutNote(images));
    return { ...message, content: texts.join("\n") };
  });
  return { request: changed ? { ...request, messages } : request, changed };
}

function turnsReasoningOff(value: unknown): boolean {
  if (value === "none") return true;
  if (value === null || typeof value !== "object") return false;
  const fields = value as Record<string, unknown>;
  return fields.enabled === false || fields.effort === "none" || fields.type === "disabled";
}

/** The request without what turns reasoning off (effort `none`, `reasoning: {enabled: false}`, disabled thinking). */
export function withoutReasoningOff(request: LlmRequest): Fixed {
  let out = request;
  if (request.reasoningEffort === "none") {
    const { reasoningEffort: _dropped, ...rest } = out;
    out = rest;
  }
  const extra = request.extraBody;
  if (extra) {
    const kept = Object.fromEntries(
      Object.entries(extra).filter(
        ([key, value]) => !(["reasoning", "reasoning_effort", "thinking"].includes(key) && turnsReasoningOff(value)),
      ),
    );
    if (Object.keys(kept).length < Object.keys(extra).length) out = { ...out, extraBody: kept };
  }
  return { request: out, changed: out !== request };
}
