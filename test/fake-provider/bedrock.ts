/** AWS Bedrock Converse: `POST /model/{id}/converse` (JSON) and `/converse-stream` (binary event stream). */
import { encodeEvent } from "./eventstream.js";
import type { Chunk, ErrorReply, ProtocolAdapter, ReplyContext } from "./protocol.js";
import { BROKEN_JSON } from "./sse.js";
import { argumentsAsValue, type PlannedTurn, splitPieces } from "./turn.js";

const STOP_REASONS = {
  stop: "end_turn",
  tool_calls: "tool_use",
  length: "max_tokens",
  content_filter: "content_filtered",
};

const ERROR_TYPES: Record<number, string> = {
  400: "ValidationException",
  403: "AccessDeniedException",
  404: "ResourceNotFoundException",
  408: "ModelTimeoutException",
  424: "ModelErrorException",
  429: "ThrottlingException",
  500: "InternalServerException",
  503: "ServiceUnavailableException",
};

function usageObject(turn: PlannedTurn) {
  const { input, output, cacheRead, cacheWrite } = turn.usage;
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output + cacheRead + cacheWrite,
    cacheReadInputTokens: cacheRead,
    cacheWriteInputTokens: cacheWrite,
  };
}

function signature(turn: PlannedTurn, ctx: ReplyContext): string {
  return turn.reasoningSignature ?? Buffer.from(ctx.newId("fake-signature-")).toString("base64");
}

function jsonReply(turn: PlannedTurn, ctx: ReplyContext): unknown {
  const content: unknown[] = [];
  if (turn.reasoning) {
    content.push({ reasoningContent: { reasoningText: { text: turn.reasoning, signature: signature(turn, ctx) } } });
  }
  if (turn.text) content.push({ text: turn.text });
  for (const call of turn.toolCalls) {
    const toolUseId = call.id ?? ctx.newId("tooluse_");
    content.push({ toolUse: { toolUseId, name: call.name, input: argumentsAsValue(call.arguments) } });
  }
  return {
    output: { message: { role: "assistant", content } },
    stopReason: STOP_REASONS[turn.finish],
    usage: usageObject(turn),
    metrics: { latencyMs: 1 },
  };
}

function streamChunks(turn: PlannedTurn, ctx: ReplyContext): Chunk[] {
  const chunks: Chunk[] = [encodeEvent("messageStart", { role: "assistant" })];
  let index = 0;
  const delta = (payload: unknown) => encodeEvent("contentBlockDelta", { contentBlockIndex: index, delta: payload });
  const stop = () => encodeEvent("contentBlockStop", { contentBlockIndex: index++ });
  if (turn.reasoning) {
    for (const text of splitPieces(turn.reasoning)) chunks.push(delta({ reasoningContent: { text } }));
    chunks.push(delta({ reasoningContent: { signature: signature(turn, ctx) } }), stop());
  }
  if (turn.text) {
    for (const text of splitPieces(turn.text)) chunks.push(delta({ text }));
    chunks.push(stop());
  }
  for (const call of turn.toolCalls) {
    const toolUse = { toolUseId: call.id ?? ctx.newId("tooluse_"), name: call.name };
    chunks.push(encodeEvent("contentBlockStart", { contentBlockIndex: index, start: { toolUse } }));
    for (const input of splitPieces(call.arguments)) chunks.push(delta({ toolUse: { input } }));
    chunks.push(stop());
  }
  chunks.push(encodeEvent("messageStop", { stopReason: STOP_REASONS[turn.finish] }));
  chunks.push(encodeEvent("metadata", { usage: usageObject(turn), metrics: { latencyMs: 1 } }));
  return chunks;
}

function errorReply(status: number, message: string): ErrorReply {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "InternalServerException" : "ValidationException");
  return {
    body: { message },
    headers: { "x-amzn-errortype": `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  };
}

export const bedrockConverse: ProtocolAdapter = {
  protocol: "bedrock_converse",
  streamContentType: "application/vnd.amazon.eventstream",
  jsonReply,
  streamChunks,
  malformedChunk: () => encodeEvent("contentBlockDelta", BROKEN_JSON),
  errorReply,
};
