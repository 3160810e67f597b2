/** OpenAI chat completions: `POST /v1/chat/completions`, SSE `data:` chunks ending with `[DONE]`. */
import { openaiErrorReply } from "./openai-error.js";
import type { Chunk, ProtocolAdapter, ReplyContext } from "./protocol.js";
import { BROKEN_JSON, sseData } from "./sse.js";
import { type PlannedTurn, splitPieces } from "./turn.js";

function usageObject(turn: PlannedTurn) {
  const { input, output, cacheRead, cacheWrite, reasoning } = turn.usage;
  const prompt = input + cacheRead + cacheWrite;
  return {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: { cached_tokens: cacheRead, cache_write_tokens: cacheWrite },
    completion_tokens_details: { reasoning_tokens: reasoning },
    // OpenRouter-style extra some compatible servers send for cache writes.
    cache_creation_input_tokens: cacheWrite,
  };
}

function callIds(turn: PlannedTurn, ctx: ReplyContext): Array<string | undefined> {
  return turn.toolCalls.map((call) => (turn.omitIds ? undefined : (call.id ?? ctx.newId("call_"))));
}

function jsonReply(turn: PlannedTurn, ctx: ReplyContext): unknown {
  const ids = callIds(turn, ctx);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: turn.text === "" && turn.toolCalls.length > 0 ? null : turn.text,
    refusal: null,
  };
  if (turn.reasoning) message[turn.reasoningField] = turn.reasoning;
  if (turn.toolCalls.length > 0) {
    message.tool_calls = turn.toolCalls.map((call, i) => ({
      ...(ids[i] === undefined ? {} : { id: ids[i] }),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: ctx.newId("chatcmpl-"),
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, finish_reason: turn.finish, logprobs: null }],
    usage: usageObject(turn),
  };
}

function streamChunks(turn: PlannedTurn, ctx: ReplyContext): Chunk[] {
  const id = ctx.newId("chatcmpl-");
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sseData({
      id,
      object: "chat.completion.chunk",
      created: ctx.created,
      model: ctx.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
  const chunks: Chunk[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitPieces(turn.reasoning)) chunks.push(chunk({ [turn.reasoningField]: piece }));
  for (const piece of splitPieces(turn.text)) chunks.push(chunk({ content: piece }));
  const ids = callIds(turn, ctx);
  turn.toolCalls.forEach((call, index) => {
    const head = { index, ...(ids[index] === undefined ? {} : { id: ids[index] }), type: "function" };
    chunks.push(chunk({ tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] }));
    for (const piece of splitPieces(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, turn.finish));
  const options = ctx.body.stream_options as { include_usage?: unknown } | undefined;
  if (options?.include_usage === true) {
    chunks.push(
      sseData({
        id,
        object: "chat.completion.chunk",
        created: ctx.created,
        model: ctx.model,
        choices: [],
        usage: usageObject(turn),
      }),
    );
  }
  chunks.push(sseData("[DONE]"));
  return chunks;
}

export const chatCompletions: ProtocolAdapter = {
  protocol: "chat_completions",
  streamContentType: "text/event-stream; charset=utf-8",
  jsonReply,
  streamChunks,
  malformedChunk: () => sseData(BROKEN_JSON),
  errorReply: openaiErrorReply,
};
