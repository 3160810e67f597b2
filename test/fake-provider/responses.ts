/** OpenAI Responses API: `POST /v1/responses`, SSE events named `response.*`. */
import { openaiErrorReply } from "./openai-error.js";
import type { Chunk, ProtocolAdapter, ReplyContext } from "./protocol.js";
import { BROKEN_JSON, sseEvent } from "./sse.js";
import { type PlannedTurn, splitPieces } from "./turn.js";

type Item = Record<string, unknown> & { id: string; type: string };

function wantsEncryptedReasoning(body: Record<string, unknown>): boolean {
  return Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content");
}

/** The finished output items, in the order they are streamed. */
function outputItems(turn: PlannedTurn, ctx: ReplyContext): Item[] {
  const items: Item[] = [];
  if (turn.reasoning) {
    const item: Item = {
      id: ctx.newId("rs_"),
      type: "reasoning",
      summary: [{ type: "summary_text", text: turn.reasoning }],
    };
    if (wantsEncryptedReasoning(ctx.body)) {
      item.encrypted_content = turn.reasoningSignature ?? Buffer.from(`encrypted:${turn.reasoning}`).toString("base64");
    }
    items.push(item);
  }
  if (turn.text) {
    items.push({
      id: ctx.newId("msg_"),
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [] }],
    });
  }
  for (const call of turn.toolCalls) {
    items.push({
      id: ctx.newId("fc_"),
      type: "function_call",
      status: "completed",
      call_id: call.id ?? ctx.newId("call_"),
      name: call.name,
      arguments: call.arguments,
    });
  }
  return items;
}

function responseObject(turn: PlannedTurn, ctx: ReplyContext, id: string, output: Item[] | null) {
  const { input, output: outputTokens, cacheRead, cacheWrite, reasoning } = turn.usage;
  const inputTokens = input + cacheRead + cacheWrite;
  const incompleteReason =
    turn.finish === "length" ? "max_output_tokens" : turn.finish === "content_filter" ? "content_filter" : null;
  const done = output !== null;
  return {
    id,
    object: "response",
    created_at: ctx.created,
    status: !done ? "in_progress" : incompleteReason ? "incomplete" : "completed",
    error: null,
    incomplete_details: done && incompleteReason ? { reason: incompleteReason } : null,
    instructions: null,
    model: ctx.model,
    output: output ?? [],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: done
      ? {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: cacheRead },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: reasoning },
          total_tokens: inputTokens + outputTokens,
        }
      : null,
  };
}

function jsonReply(turn: PlannedTurn, ctx: ReplyContext): unknown {
  return responseObject(turn, ctx, ctx.newId("resp_"), outputItems(turn, ctx));
}

/** The events that stream one output item, from `output_item.added` to `output_item.done`. */
function itemEvents(item: Item, outputIndex: number): Array<Record<string, unknown>> {
  const base = { item_id: item.id, output_index: outputIndex };
  const events: Array<Record<string, unknown>> = [];
  if (item.type === "reasoning") {
    const text = (item.summary as Array<{ text: string }>)[0]?.text ?? "";
    const part = { ...base, summary_index: 0 };
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: { ...item, summary: [] } });
    events.push({ type: "response.reasoning_summary_part.added", ...part, part: { type: "summary_text", text: "" } });
    for (const delta of splitPieces(text))
      events.push({ type: "response.reasoning_summary_text.delta", ...part, delta });
    events.push({ type: "response.reasoning_summary_text.done", ...part, text });
    events.push({ type: "response.reasoning_summary_part.done", ...part, part: { type: "summary_text", text } });
  } else if (item.type === "message") {
    const text = (item.content as Array<{ text: string }>)[0]?.text ?? "";
    const part = { ...base, content_index: 0 };
    const added = { ...item, status: "in_progress", content: [] };
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: added });
    events.push({
      type: "response.content_part.added",
      ...part,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of splitPieces(text))
      events.push({ type: "response.output_text.delta", ...part, delta, logprobs: [] });
    events.push({ type: "response.output_text.done", ...part, text, logprobs: [] });
    events.push({ type: "response.content_part.done", ...part, part: { type: "output_text", text, annotations: [] } });
  } else {
    const args = String(item.arguments);
    const added = { ...item, status: "in_progress", arguments: "" };
    events.push({ type: "response.output_item.added", output_index: outputIndex, item: added });
    for (const delta of splitPieces(args))
      events.push({ type: "response.function_call_arguments.delta", ...base, delta });
    events.push({ type: "response.function_call_arguments.done", ...base, name: item.name, arguments: args });
  }
  events.push({ type: "response.output_item.done", output_index: outputIndex, item });
  return events;
}

function streamChunks(turn: PlannedTurn, ctx: ReplyContext): Chunk[] {
  const id = ctx.newId("resp_");
  const items = outputItems(turn, ctx);
  const inProgress = responseObject(turn, ctx, id, null);
  const final = responseObject(turn, ctx, id, items);
  const events: Array<Record<string, unknown>> = [
    { type: "response.created", response: inProgress },
    { type: "response.in_progress", response: inProgress },
    ...items.flatMap((item, index) => itemEvents(item, index)),
    { type: final.status === "incomplete" ? "response.incomplete" : "response.completed", response: final },
  ];
  return events.map((event, sequence) => sseEvent(String(event.type), { ...event, sequence_number: sequence }));
}

export const responses: ProtocolAdapter = {
  protocol: "responses",
  streamContentType: "text/event-stream; charset=utf-8",
  jsonReply,
  streamChunks,
  malformedChunk: () => sseEvent("response.output_text.delta", BROKEN_JSON),
  errorReply: openaiErrorReply,
};
