/** Anthropic Messages: `POST .../v1/messages`, SSE events from `message_start` to `message_stop`. */
import type { Chunk, ErrorReply, ProtocolAdapter, ReplyContext } from "./protocol.js";
import { BROKEN_JSON, sseEvent } from "./sse.js";
import { argumentsAsValue, type PlannedTurn, splitPieces } from "./turn.js";

const STOP_REASONS = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens", content_filter: "refusal" };

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; arguments: string };

function blocks(turn: PlannedTurn, ctx: ReplyContext): Block[] {
  const list: Block[] = [];
  if (turn.reasoning) {
    const signature = turn.reasoningSignature ?? Buffer.from(ctx.newId("fake-signature-")).toString("base64");
    list.push({ type: "thinking", thinking: turn.reasoning, signature });
  }
  if (turn.text) list.push({ type: "text", text: turn.text });
  for (const call of turn.toolCalls) {
    list.push({ type: "tool_use", id: call.id ?? ctx.newId("toolu_"), name: call.name, arguments: call.arguments });
  }
  return list;
}

function usageObject(turn: PlannedTurn) {
  return {
    input_tokens: turn.usage.input,
    output_tokens: turn.usage.output,
    cache_creation_input_tokens: turn.usage.cacheWrite,
    cache_read_input_tokens: turn.usage.cacheRead,
  };
}

function messageShell(turn: PlannedTurn, ctx: ReplyContext) {
  return {
    id: ctx.newId("msg_"),
    type: "message",
    role: "assistant",
    model: ctx.model,
    content: [] as unknown[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: usageObject(turn),
  };
}

function jsonReply(turn: PlannedTurn, ctx: ReplyContext): unknown {
  const message = messageShell(turn, ctx);
  message.content = blocks(turn, ctx).map((block) =>
    block.type === "tool_use"
      ? { type: "tool_use", id: block.id, name: block.name, input: argumentsAsValue(block.arguments) }
      : block,
  );
  message.stop_reason = STOP_REASONS[turn.finish];
  return message;
}

function blockEvents(block: Block, index: number): Chunk[] {
  const delta = (payload: Record<string, unknown>) =>
    sseEvent("content_block_delta", { type: "content_block_delta", index, delta: payload });
  const start = (contentBlock: Record<string, unknown>) =>
    sseEvent("content_block_start", { type: "content_block_start", index, content_block: contentBlock });
  const chunks: Chunk[] = [];
  if (block.type === "thinking") {
    chunks.push(start({ type: "thinking", thinking: "", signature: "" }));
    for (const piece of splitPieces(block.thinking)) chunks.push(delta({ type: "thinking_delta", thinking: piece }));
    chunks.push(delta({ type: "signature_delta", signature: block.signature }));
  } else if (block.type === "text") {
    chunks.push(start({ type: "text", text: "" }));
    for (const piece of splitPieces(block.text)) chunks.push(delta({ type: "text_delta", text: piece }));
  } else {
    chunks.push(start({ type: "tool_use", id: block.id, name: block.name, input: {} }));
    for (const piece of splitPieces(block.arguments))
      chunks.push(delta({ type: "input_json_delta", partial_json: piece }));
  }
  chunks.push(sseEvent("content_block_stop", { type: "content_block_stop", index }));
  return chunks;
}

function streamChunks(turn: PlannedTurn, ctx: ReplyContext): Chunk[] {
  const shell = messageShell(turn, ctx);
  const startUsage = { ...shell.usage, output_tokens: Math.min(1, turn.usage.output) };
  return [
    sseEvent("message_start", { type: "message_start", message: { ...shell, usage: startUsage } }),
    sseEvent("ping", { type: "ping" }),
    ...blocks(turn, ctx).flatMap((block, index) => blockEvents(block, index)),
    sseEvent("message_delta", {
      type: "message_delta",
      delta: { stop_reason: STOP_REASONS[turn.finish], stop_sequence: null },
      usage: usageObject(turn),
    }),
    sseEvent("message_stop", { type: "message_stop" }),
  ];
}

function errorReply(status: number, message: string): ErrorReply {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { body: { type: "error", error: { type, message } }, headers: {} };
}

export const anthropicMessages: ProtocolAdapter = {
  protocol: "anthropic_messages",
  streamContentType: "text/event-stream; charset=utf-8",
  jsonReply,
  streamChunks,
  malformedChunk: () => sseEvent("content_block_delta", BROKEN_JSON),
  errorReply,
};
