/**
 * Turns a scripted turn into the concrete reply every protocol renders: faults that change the
 * content are applied here, defaults are filled in, and usage counters are settled.
 */
import type { Fault, ScriptedTurn } from "./types.js";

export type FinishReason = NonNullable<ScriptedTurn["finish"]>;

export interface PlannedToolCall {
  /** The scripted id, if any; each protocol invents one in its own style otherwise. */
  id: string | undefined;
  name: string;
  /** The arguments exactly as they go on the wire (possibly broken JSON). */
  arguments: string;
}

export interface PlannedUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

export interface PlannedTurn {
  text: string;
  reasoning: string;
  reasoningSignature: string | undefined;
  toolCalls: PlannedToolCall[];
  finish: FinishReason;
  usage: PlannedUsage;
  omitIds: boolean;
  reasoningField: "reasoning_content" | "reasoning";
  fault: Fault | undefined;
  chunkDelayMs: number;
}

const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

export function planTurn(turn: ScriptedTurn, rawRequestBody: string): PlannedTurn {
  const fault = turn.fault;
  const empty = fault?.kind === "empty";
  const text = empty ? "" : (turn.text ?? "");
  const reasoning = empty ? "" : (turn.reasoning ?? "");
  const toolCalls = empty ? [] : (turn.toolCalls ?? []).map((call) => planToolCall(call, fault));
  const argumentChars = toolCalls.reduce((sum, call) => sum + call.arguments.length, 0);
  const reasoningTokens = turn.usage?.reasoning ?? estimateTokens(reasoning.length);
  return {
    text,
    reasoning,
    reasoningSignature: turn.reasoningSignature,
    toolCalls,
    finish: turn.finish ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    usage: {
      input: turn.usage?.input ?? Math.max(1, estimateTokens(rawRequestBody.length)),
      output: turn.usage?.output ?? estimateTokens(text.length + argumentChars) + reasoningTokens,
      cacheRead: turn.usage?.cacheRead ?? 0,
      cacheWrite: turn.usage?.cacheWrite ?? 0,
      reasoning: reasoningTokens,
    },
    omitIds: turn.omitIds ?? false,
    reasoningField: turn.reasoningField ?? "reasoning_content",
    fault,
    chunkDelayMs: turn.chunkDelayMs ?? 0,
  };
}

function planToolCall(call: NonNullable<ScriptedTurn["toolCalls"]>[number], fault: Fault | undefined): PlannedToolCall {
  const full = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
  const args = fault?.kind === "truncated_tool_json" ? full.slice(0, Math.floor(full.length / 2)) : full;
  return { id: call.id, name: call.name, arguments: args };
}

/** Splits text into at most `maxPieces` pieces of similar length, never inside a code point. */
export function splitPieces(text: string, maxPieces = 3): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const size = Math.ceil(points.length / maxPieces);
  const pieces: string[] = [];
  for (let start = 0; start < points.length; start += size) pieces.push(points.slice(start, start + size).join(""));
  return pieces;
}

/** Parses tool arguments for protocols that carry them as a JSON value; broken JSON stays a string. */
export function argumentsAsValue(args: string): unknown {
  if (args.trim() === "") return {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
