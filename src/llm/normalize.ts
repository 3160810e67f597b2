/**
 * Protocol-independent helpers shared by the transports: finish-reason mapping, the inline
 * reasoning-tag splitter, deterministic tool-call ids, and `collect()` which turns an event
 * stream into one complete reply.
 */

import { nodeCrypto } from "../util/node-crypto.js";
import { LlmError } from "./errors.js";
import type { FinishReason, LlmEvent, ReasoningContinuity, ToolCall, Usage } from "./types.js";
import { emptyUsage } from "./types.js";

const FINISH_ALIASES: Record<string, FinishReason> = {
  stop: "stop",
  end_turn: "stop",
  stop_sequence: "stop",
  eos: "stop",
  completed: "stop",
  pause_turn: "stop",
  tool_calls: "tool_calls",
  tool_use: "tool_calls",
  function_call: "tool_calls",
  length: "length",
  max_tokens: "length",
  max_output_tokens: "length",
  model_length: "length",
  model_context_window_exceeded: "length",
  content_filter: "content_filter",
  content_filtered: "content_filter",
  refusal: "content_filter",
  safety: "content_filter",
  guardrail_intervened: "content_filter",
};

/**
 * Maps any provider's finish/stop reason to the internal four. A reply that carries tool calls
 * finishes with `tool_calls` even when the provider said `stop` (several compatible servers do).
 */
export function normalizeFinishReason(raw: string | null | undefined, hasToolCalls = false): FinishReason {
  const mapped = raw ? FINISH_ALIASES[raw.toLowerCase()] : undefined;
  if (hasToolCalls && (mapped === undefined || mapped === "stop")) return "tool_calls";
  return mapped ?? "stop";
}

/** A stable id for a tool call the provider sent without one. */
export function deterministicToolCallId(index: number, name: string, args: string): string {
  const hash = nodeCrypto().createHash("sha256").update(`${name}\u0000${args}`).digest("hex").slice(0, 12);
  return `call_${index}_${hash}`;
}

const REASONING_TAGS = ["think", "thinking", "reasoning", "REASONING_SCRATCHPAD"];
const OPEN_TAGS = REASONING_TAGS.map((t) => `<${t}>`);

export interface SplitPiece {
  kind: "text" | "reasoning";
  text: string;
}

/**
 * Splits streamed text into visible text and inline reasoning wrapped in `<think>`,
 * `<thinking>`, `<reasoning>` or `<REASONING_SCRATCHPAD>` tags. Tags may be cut across chunks:
 * any tail that could still become a tag is held back until the next chunk (or `flush`).
 */
export class ThinkTagSplitter {
  private pending = "";
  private closeTag: string | null = null;

  push(chunk: string): SplitPiece[] {
    this.pending += chunk;
    const out: SplitPiece[] = [];
    for (;;) {
      if (this.closeTag === null) {
        const found = findFirst(this.pending, OPEN_TAGS);
        if (found) {
          emit(out, "text", this.pending.slice(0, found.at));
          this.pending = this.pending.slice(found.at + found.tag.length);
          this.closeTag = `</${found.tag.slice(1)}`;
          continue;
        }
        const keep = heldBackLength(this.pending, OPEN_TAGS);
        emit(out, "text", this.pending.slice(0, this.pending.length - keep));
        this.pending = this.pending.slice(this.pending.length - keep);
        return out;
      }
      const at = this.pending.toLowerCase().indexOf(this.closeTag.toLowerCase());
      if (at >= 0) {
        emit(out, "reasoning", this.pending.slice(0, at));
        this.pending = this.pending.slice(at + this.closeTag.length);
        this.closeTag = null;
        continue;
      }
      const keep = heldBackLength(this.pending, [this.closeTag]);
      emit(out, "reasoning", this.pending.slice(0, this.pending.length - keep));
      this.pending = this.pending.slice(this.pending.length - keep);
      return out;
    }
  }

  /** Releases whatever is held back; an unclosed reasoning block stays reasoning. */
  flush(): SplitPiece[] {
    const out: SplitPiece[] = [];
    emit(out, this.closeTag === null ? "text" : "reasoning", this.pending);
    this.pending = "";
    return out;
  }
}

function emit(out: SplitPiece[], kind: SplitPiece["kind"], text: string): void {
  if (text.length === 0) return;
  const last = out[out.length - 1];
  if (last && last.kind === kind) last.text += text;
  else out.push({ kind, text });
}

function findFirst(text: string, tags: string[]): { at: number; tag: string } | undefined {
  const lower = text.toLowerCase();
  let best: { at: number; tag: string } | undefined;
  for (const tag of tags) {
    const at = lower.indexOf(tag.toLowerCase());
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, tag };
  }
  return best;
}

/** Length of the longest tail of `text` that is a proper prefix of one of `tags`. */
function heldBackLength(text: string, tags: string[]): number {
  const lower = text.toLowerCase();
  let keep = 0;
  for (const tag of tags) {
    const t = tag.toLowerCase();
    for (let n = Math.min(t.length - 1, lower.length); n > keep; n--) {
      if (lower.endsWith(t.slice(0, n))) {
        keep = n;
        break;
      }
    }
  }
  return keep;
}

export interface CollectedReply {
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  usage: Usage;
  finish: FinishReason;
  continuity?: ReasoningContinuity;
}

/**
 * Drains an event stream into one reply. A stream that ends without a `finish` event is an
 * error: a partial reply is never returned as if it were complete.
 */
export async function collect(events: AsyncIterable<LlmEvent>): Promise<CollectedReply> {
  let text = "";
  let reasoning = "";
  let usage = emptyUsage();
  let finish: FinishReason | undefined;
  let continuity: ReasoningContinuity | undefined;
  const calls = new Map<number, ToolCall>();
  for await (const event of events) {
    switch (event.type) {
      case "text_delta":
        text += event.text;
        break;
      case "reasoning_delta":
        reasoning += event.text;
        break;
      case "tool_call_start": {
        const call: ToolCall = { id: event.id, type: "function", function: { name: event.name, arguments: "" } };
        if (event.responseItemId) call.responseItemId = event.responseItemId;
        calls.set(event.index, call);
        break;
      }
      case "tool_call_delta": {
        const call = calls.get(event.index);
        if (call) call.function.arguments += event.argumentsDelta;
        break;
      }
      case "usage":
        usage = { ...event.usage };
        break;
      case "reasoning_continuity":
        continuity = { ...continuity, ...event.continuity };
        break;
      case "finish":
        finish = event.reason;
        break;
      default:
        break;
    }
  }
  if (finish === undefined) {
    throw new LlmError("The model's reply ended before it finished; the partial reply was discarded.", {
      kind: "disconnect",
    });
  }
  const toolCalls = [...calls.entries()].sort((a, b) => a[0] - b[0]).map(([, call]) => call);
  const reply: CollectedReply = { text, reasoning, toolCalls, usage, finish };
  if (continuity) reply.continuity = continuity;
  return reply;
}
