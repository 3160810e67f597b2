/**
 * The objects `/v1/chat/completions` sends: a `chat.completion` for a plain request, and for a
 * streamed one a sequence of `chat.completion.chunk`s framed as server-sent events, ending
 * with `[DONE]`. Reasoning travels as `reasoning_content`, the field most OpenAI-compatible
 * clients read for it.
 */

import { randomBytes } from "node:crypto";
import { isTurnNote, lastUserMessageIndex } from "../agent/turn-checks.js";
import type { Message, Usage } from "../llm/types.js";

/** What every chunk of one completion repeats. */
export interface ChunkBase {
  id: string;
  /** Epoch seconds. */
  created: number;
  model: string;
}

export type ChatFinishReason = "stop" | "length";

export interface ChunkDelta {
  role?: "assistant";
  content?: string;
  reasoning_content?: string;
}

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens: number };
}

export interface ChatCompletionChunk extends ChunkBase {
  object: "chat.completion.chunk";
  choices: Array<{ index: 0; delta: ChunkDelta; logprobs: null; finish_reason: ChatFinishReason | null }>;
  usage?: OpenAiUsage;
}

export interface ChatCompletion extends ChunkBase {
  object: "chat.completion";
  choices: Array<{
    index: 0;
    message: { role: "assistant"; content: string; refusal: null; reasoning_content?: string };
    logprobs: null;
    finish_reason: ChatFinishReason;
  }>;
  usage: OpenAiUsage;
}

/** The part of an agent run a completion reports (a `RunResult` fits). */
export interface CompletionOutcome {
  finalResponse: string;
  usage: Usage;
  interrupted?: boolean;
  /** The conversation after the run; reasoning is read from what followed the last user message. */
  messages?: readonly Message[];
}

export const SSE_DONE = "data: [DONE]\n\n";

export function sseData(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

export function completionId(): string {
  return `chatcmpl-${randomBytes(12).toString("hex")}`;
}

/** Our usage in OpenAI's words; our `inputTokens` already counts cached tokens, as `prompt_tokens` does. */
export function openAiUsage(usage: Usage): OpenAiUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      ...(usage.cacheWriteTokens ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

export function chunk(base: ChunkBase, delta: ChunkDelta, finishReason: ChatFinishReason | null): ChatCompletionChunk {
  return {
    id: base.id,
    object: "chat.completion.chunk",
    created: base.created,
    model: base.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function firstChunk(base: ChunkBase): ChatCompletionChunk {
  return chunk(base, { role: "assistant", content: "" }, null);
}

export function contentChunk(base: ChunkBase, text: string): ChatCompletionChunk {
  return chunk(base, { content: text }, null);
}

export function reasoningChunk(base: ChunkBase, text: string): ChatCompletionChunk {
  return chunk(base, { reasoning_content: text }, null);
}

export function finalChunk(base: ChunkBase, finishReason: ChatFinishReason = "stop"): ChatCompletionChunk {
  return chunk(base, {}, finishReason);
}

/** The chunk `stream_options.include_usage` asks for: no choices, only usage. */
export function usageChunk(base: ChunkBase, usage: Usage): ChatCompletionChunk {
  return {
    id: base.id,
    object: "chat.completion.chunk",
    created: base.created,
    model: base.model,
    choices: [],
    usage: openAiUsage(usage),
  };
}

function turnMessages(messages: readonly Message[]): readonly Message[] {
  const index = lastUserMessageIndex(messages);
  return index < 0 ? messages : messages.slice(index + 1).filter((message) => !isTurnNote(message));
}

function finishReasonOf(outcome: CompletionOutcome, turn: readonly Message[]): ChatFinishReason {
  if (outcome.interrupted) return "length";
  const last = turn.findLast((m) => m.role === "assistant");
  return last?.finish_reason === "length" ? "length" : "stop";
}

export function completionObject(base: ChunkBase, outcome: CompletionOutcome): ChatCompletion {
  const turn = turnMessages(outcome.messages ?? []);
  const reasoning = turn
    .filter((m) => m.role === "assistant" && m.reasoning)
    .map((m) => m.reasoning)
    .join("\n\n");
  return {
    id: base.id,
    object: "chat.completion",
    created: base.created,
    model: base.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: outcome.finalResponse,
          refusal: null,
          ...(reasoning ? { reasoning_content: reasoning } : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(outcome, turn),
      },
    ],
    usage: openAiUsage(outcome.usage),
  };
}
