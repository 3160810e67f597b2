/**
 * Phase 2 of compression: split the history into a protected head, a middle to summarize and
 * a protected tail, without ever separating an assistant's tool calls from their results.
 */
import type { Message } from "../../llm/types.js";
import { estimateMessageTokens } from "../../util/tokens.js";
import { splitSummaryMessage } from "./summary.js";

export interface BoundaryOptions {
  /** Messages kept after the system prompt at the start of the history. */
  protectFirstN: number;
  /** The tail keeps at least this many messages when they fit under the soft ceiling. */
  protectLastN: number;
  /** Tokens the tail aims for, counted from the end. */
  tailTokenBudget: number;
}

/** head = [0, headEnd), middle = [headEnd, tailStart), tail = [tailStart, length). */
export interface Boundaries {
  headEnd: number;
  tailStart: number;
}

/** The tail always keeps at least this many messages, whatever their size. */
export const MIN_TAIL_MESSAGES = 3;
/** The tail may overshoot its budget by this factor rather than stop inside a large message. */
export const TAIL_SOFT_CEILING = 1.5;

export function findBoundaries(messages: readonly Message[], options: BoundaryOptions): Boundaries {
  const headEnd = findHeadEnd(messages, options.protectFirstN);
  let tailStart = findTailStartByTokens(messages, headEnd, options);
  tailStart = alignBackwardToToolCall(messages, tailStart, headEnd);
  tailStart = includeLastUserMessage(messages, tailStart, headEnd);
  return { headEnd, tailStart: Math.max(tailStart, headEnd) };
}

/** The system prompt plus `protectFirstN` messages, pushed past any tool results that follow. */
function findHeadEnd(messages: readonly Message[], protectFirstN: number): number {
  const start = messages[0]?.role === "system" ? 1 : 0;
  let end = Math.min(messages.length, start + Math.max(0, protectFirstN));
  while (end < messages.length && messages[end]!.role === "tool") end++;
  return end;
}

function findTailStartByTokens(messages: readonly Message[], headEnd: number, options: BoundaryOptions): number {
  const budget = Math.max(0, options.tailTokenBudget);
  const ceiling = budget * TAIL_SOFT_CEILING;
  let tokens = 0;
  let cut = messages.length;
  for (let i = messages.length - 1; i >= headEnd; i--) {
    const size = estimateMessageTokens(messages[i]!);
    const kept = messages.length - cut;
    if (kept >= MIN_TAIL_MESSAGES) {
      if (tokens + size > ceiling) break;
      if (tokens >= budget && kept >= options.protectLastN) break;
    }
    tokens += size;
    cut = i;
  }
  return cut;
}

/** A tail that starts on tool results also takes the assistant message that made the calls. */
function alignBackwardToToolCall(messages: readonly Message[], cut: number, headEnd: number): number {
  while (cut > headEnd && cut < messages.length && messages[cut]!.role === "tool") cut--;
  return cut;
}

/**
 * The newest user message must stay verbatim: the summary is presented as background only, so
 * a request that ended up inside it would never be answered.
 */
function includeLastUserMessage(messages: readonly Message[], cut: number, headEnd: number): number {
  for (let i = messages.length - 1; i >= headEnd; i--) {
    if (messages[i]!.role === "user" && !isSummaryOnly(messages[i]!)) return Math.min(cut, i);
  }
  return cut;
}

/** An earlier compression's summary message is notes, not a request from the user. */
function isSummaryOnly(message: Message): boolean {
  const parts = splitSummaryMessage(message);
  return parts !== undefined && parts.rest === "";
}
