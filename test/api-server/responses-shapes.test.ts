import assert from "node:assert/strict";
import { describe, test } from "node:test";
import OpenAI from "openai";
import { ApiError } from "../../src/api-server/errors.js";
import {
  buildResponseObject,
  parseResponsesRequest,
  ResponseStreamEvents,
  responseId,
  responseUsage,
} from "../../src/api-server/responses-shapes.js";
import type { Message, Usage } from "../../src/llm/types.js";

function rejects(body: unknown, param: string | null, message: RegExp): void {
  assert.throws(
    () => parseResponsesRequest(body),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
      assert.equal(error.status, 400);
      assert.equal(error.body.error.param, param);
      assert.match(error.body.error.message, message);
      return true;
    },
  );
}

/** Splits an SSE text into its named events, checking each event name matches its payload type. */
function events(text: string): Array<{ type: string; sequence_number: number } & Record<string, unknown>> {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine, ...rest] = block.split("\n");
      assert.equal(rest.length, 0);
      const name = eventLine!.replace(/^event: /, "");
      const payload = JSON.parse(dataLine!.replace(/^data: /, ""));
      assert.equal(payload.type, name);
      return payload;
    });
}

const usage: Usage = {
  inputTokens: 50,
  outputTokens: 20,
  cacheReadTokens: 40,
  cacheWriteTokens: 2,
  reasoningTokens: 5,
};
const userMsg = (content: unknown) => ({ role: "user", content });

describe("parseResponsesRequest", () => {
  test("a string input is the user turn, with stored and non-streamed defaults", () => {
    assert.deepEqual(parseResponsesRequest({ model: "m", input: "hi" }), {
      model: "m",
      input: "hi",
      history: [],
      instructions: "",
      store: true,
      stream: false,
    });
  });

  test("reads instructions, chaining, store, stream, max_output_tokens and temperature", () => {
    const request = parseResponsesRequest({
      input: "hi",
      instructions: "Be brief.",
      previous_response_id: "resp_1",
      store: false,
      stream: true,
      max_output_tokens: 64,
      temperature: 0.5,
    });
    assert.equal(request.instructions, "Be brief.");
    assert.equal(request.previousResponseId, "resp_1");
    assert.equal(request.store, false);
    assert.equal(request.stream, true);
    assert.equal(request.maxOutputTokens, 64);
    assert.equal(request.temperature, 0.5);
  });

  test("accepts a conversation as a string or as an object with an id", () => {
    assert.equal(parseResponsesRequest({ input: "hi", conversation: "conv_1" }).conversation, "conv_1");
    assert.equal(parseResponsesRequest({ input: "hi", conversation: { id: "conv_2" } }).conversation, "conv_2");
  });

  test("earlier items become history; system and developer items join the instructions", () => {
    const request = parseResponsesRequest({
      instructions: "Top.",
      input: [
        { role: "system", content: "Sys." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "weather?" }] },
        { type: "reasoning", id: "rs_1", summary: [] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "weather", arguments: "{}" },
        { type: "function_call", call_id: "call_2", name: "time", arguments: "{}" },
        { type: "function_call_output", call_id: "call_1", output: "sunny" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "noon" }] },
        { role: "developer", content: [{ type: "input_text", text: "Dev." }] },
        { type: "function_call", call_id: "call_3", name: "weather", arguments: '{"d":1}' },
        { type: "function_call_output", call_id: "call_3", output: "rain" },
        { role: "assistant", content: "Sunny now, rain tomorrow." },
        userMsg([
          { type: "input_text", text: "and this?" },
          { type: "input_image", image_url: "https://example.com/x.png", detail: "high" },
        ]),
      ],
    });
    assert.equal(request.instructions, "Top.\n\nSys.\n\nDev.");
    assert.deepEqual(request.history, [
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: "Checking.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: "{}" }, responseItemId: "fc_1" },
          { id: "call_2", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
      { role: "tool", content: "sunny", tool_call_id: "call_1", name: "weather" },
      { role: "tool", content: "noon", tool_call_id: "call_2", name: "time" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_3", type: "function", function: { name: "weather", arguments: '{"d":1}' } }],
      },
      { role: "tool", content: "rain", tool_call_id: "call_3", name: "weather" },
      { role: "assistant", content: "Sunny now, rain tomorrow." },
    ]);
    assert.deepEqual(request.input, [
      { type: "text", text: "and this?" },
      { type: "image_url", image_url: { url: "https://example.com/x.png", detail: "high" } },
    ]);
  });

  test("rejects a body that is not an object and malformed top-level fields", () => {
    rejects(null, null, /JSON object/);
    rejects({ input: "hi", model: 1 }, "model", /string/);
    rejects({ input: "hi", instructions: ["x"] }, "instructions", /string/);
    rejects({ input: "hi", store: "no" }, "store", /boolean/);
    rejects({ input: "hi", stream: 1 }, "stream", /boolean/);
    rejects({ input: "hi", max_output_tokens: 0 }, "max_output_tokens", /between 1/);
    rejects({ input: "hi", temperature: -1 }, "temperature", /between 0 and 2/);
    rejects({ input: "hi", previous_response_id: 7 }, "previous_response_id", /non-empty string/);
    rejects({ input: "hi", conversation: {} }, "conversation", /string id or an object with an id/);
  });

  test("rejects previous_response_id together with conversation", () => {
    rejects({ input: "hi", previous_response_id: "resp_1", conversation: "c" }, "conversation", /not both/);
  });

  test("rejects a missing or empty input", () => {
    rejects({}, "input", /input is required/);
    rejects({ input: 5 }, "input", /input is required/);
    rejects({ input: "" }, "input", /must not be empty/);
    rejects({ input: [] }, "input", /must not be an empty array/);
  });

  test("rejects an input whose last item is not a user message", () => {
    rejects(
      { input: [userMsg("a"), { role: "assistant", content: "b" }] },
      "input[1]",
      /last input item must be a user/,
    );
    rejects(
      { input: [{ type: "function_call_output", call_id: "c", output: "x" }] },
      "input[0]",
      /last input item must be a user/,
    );
  });

  test("rejects malformed items and unsupported item and part types", () => {
    rejects({ input: ["hi"] }, "input[0]", /must be an object/);
    rejects({ input: [{ type: "item_reference", id: "x" }, userMsg("hi")] }, "input[0].type", /not supported/);
    rejects({ input: [{ role: "tool", content: "x" }, userMsg("hi")] }, "input[0].role", /must be one of/);
    rejects(
      { input: [{ type: "function_call", call_id: "c", arguments: "{}" }, userMsg("hi")] },
      "input[0].name",
      /must be a string/,
    );
    rejects({ input: [{ type: "function_call_output", output: "x" }, userMsg("hi")] }, "input[0].call_id", /string/);
    rejects({ input: [userMsg([{ type: "input_file", file_id: "f" }])] }, "input[0].content[0].type", /"input_file"/);
    rejects(
      { input: [userMsg([{ type: "input_image", file_id: "f" }])] },
      "input[0].content[0].image_url",
      /file_id images are not supported/,
    );
    rejects({ input: [userMsg([])] }, "input[0].content", /non-empty array/);
    rejects(
      { input: [{ role: "assistant", content: [{ type: "input_image" }] }, userMsg("hi")] },
      "input[0].content[0].type",
      /output_text/,
    );
  });
});

const turn: Message[] = [
  {
    role: "assistant",
    content: "Let me look.",
    reasoning: "need data",
    tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":1}' } }],
  },
  { role: "tool", content: "42", tool_call_id: "call_1", name: "lookup" },
  { role: "assistant", content: [{ type: "text", text: "It is 42." }] },
];

describe("buildResponseObject", () => {
  test("response ids are resp_ followed by hex", () => {
    assert.match(responseId(), /^resp_[0-9a-f]{32}$/);
  });

  test("maps usage to input and output token details", () => {
    assert.deepEqual(responseUsage(usage), {
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 40, cache_write_tokens: 2 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 5 },
      total_tokens: 70,
    });
  });

  test("lists reasoning, text, tool calls, tool results and the answer in order, with derived ids", () => {
    const body = buildResponseObject({
      id: "resp_abc",
      model: "hermes-agent",
      createdAt: 1_700_000_000,
      status: "completed",
      newMessages: turn,
      instructions: "Be brief.",
      previousResponseId: "resp_prev",
      usage,
    });
    assert.deepEqual(body.output, [
      { type: "reasoning", id: "rs_abc_0", summary: [{ type: "summary_text", text: "need data" }] },
      {
        type: "message",
        id: "msg_abc_0",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Let me look.", annotations: [] }],
      },
      {
        type: "function_call",
        id: "fc_abc_0",
        call_id: "call_1",
        name: "lookup",
        arguments: '{"q":1}',
        status: "completed",
      },
      { type: "function_call_output", id: "fco_abc_0", call_id: "call_1", output: "42", status: "completed" },
      {
        type: "message",
        id: "msg_abc_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "It is 42.", annotations: [] }],
      },
    ]);
    assert.equal(body.object, "response");
    assert.equal(body.status, "completed");
    assert.equal(body.error, null);
    assert.equal(body.incomplete_details, null);
    assert.equal(body.instructions, "Be brief.");
    assert.equal(body.previous_response_id, "resp_prev");
    assert.equal(body.usage?.total_tokens, 70);
    assert.ok(body.completed_at! >= body.created_at);
    for (const key of ["metadata", "parallel_tool_calls", "temperature", "tool_choice", "tools", "top_p", "model"]) {
      assert.ok(key in body, `${key} is present`);
    }
  });

  test("a tool call keeps the Responses item id the model gave it", () => {
    const body = buildResponseObject({
      id: "resp_x",
      model: "m",
      createdAt: 1,
      status: "completed",
      newMessages: [
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "c", type: "function", function: { name: "f", arguments: "{}" }, responseItemId: "fc_up" },
          ],
        },
      ],
    });
    assert.equal(body.output[0]?.id, "fc_up");
  });

  test("failed and incomplete responses carry their error or reason, and in-progress ones no usage", () => {
    const failed = buildResponseObject({
      id: "resp_f",
      model: "m",
      createdAt: 1,
      status: "failed",
      error: { code: "server_error", message: "boom" },
    });
    assert.deepEqual(failed.error, { code: "server_error", message: "boom" });
    assert.equal(failed.completed_at, null);
    const incomplete = buildResponseObject({ id: "resp_i", model: "m", createdAt: 1, status: "incomplete" });
    assert.deepEqual(incomplete.incomplete_details, { reason: "max_output_tokens" });
    const pending = buildResponseObject({ id: "resp_p", model: "m", createdAt: 1, status: "in_progress" });
    assert.equal(pending.usage, null);
    assert.deepEqual(pending.output, []);
    assert.equal(pending.instructions, null);
  });
});

const init = { id: "resp_abc", model: "hermes-agent", createdAt: 1_700_000_000, previousResponseId: null };

function streamedText(stream: ResponseStreamEvents, messages: Message[], status: "completed" | "failed" = "completed") {
  const parts = [...stream.start(), stream.textDelta("It is "), stream.textDelta(""), stream.textDelta("42.")];
  const body = buildResponseObject({ ...init, status, newMessages: messages, usage });
  return { text: [...parts, ...stream.finish(body)].join(""), body };
}

describe("ResponseStreamEvents", () => {
  test("emits OpenAI's event order for a text answer with increasing sequence numbers", () => {
    const { text, body } = streamedText(new ResponseStreamEvents(init), [{ role: "assistant", content: "It is 42." }]);
    const all = events(text);
    assert.deepEqual(
      all.map((e) => e.type),
      [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
      ],
    );
    assert.deepEqual(
      all.map((e) => e.sequence_number),
      all.map((_, i) => i),
    );
    const created = all[0]!.response as { status: string; output: unknown[]; usage: unknown };
    assert.equal(created.status, "in_progress");
    assert.deepEqual(created.output, []);
    assert.equal(created.usage, null);
    assert.deepEqual(all[2], {
      type: "response.output_item.added",
      sequence_number: 2,
      output_index: 0,
      item: { type: "message", id: "msg_abc_0", role: "assistant", status: "in_progress", content: [] },
    });
    assert.equal(all[6]!.text, "It is 42.");
    assert.deepEqual(all[8]!.item, body.output[0], "the streamed item is the final item");
    assert.deepEqual(all[9]!.response, body);
  });

  test("a reported tool call closes the open text and later text opens a new message item", () => {
    const stream = new ResponseStreamEvents(init);
    const call = { id: "call_1", type: "function" as const, function: { name: "lookup", arguments: "{}" } };
    const text = [
      ...stream.start(),
      stream.textDelta("Looking."),
      stream.toolCall(call),
      stream.toolResult("call_1", "42"),
      stream.textDelta("42."),
      ...stream.finish(buildResponseObject({ ...init, status: "completed" })),
    ].join("");
    const all = events(text);
    const items = all.filter((e) => e.type === "response.output_item.done").map((e) => [e.output_index, e.item]);
    assert.deepEqual(
      items.map(([index, item]) => [index, (item as { type: string }).type, (item as { id: string }).id]),
      [
        [0, "message", "msg_abc_0"],
        [1, "function_call", "fc_abc_0"],
        [2, "function_call_output", "fco_abc_0"],
        [3, "message", "msg_abc_1"],
      ],
    );
    assert.equal(all.at(-1)!.type, "response.completed");
  });

  test("a failed response closes its text as incomplete and ends with response.failed", () => {
    const { text } = streamedText(new ResponseStreamEvents(init), [], "failed");
    const all = events(text);
    const done = all.find((e) => e.type === "response.output_item.done")!;
    assert.equal((done.item as { status: string }).status, "incomplete");
    assert.equal(all.at(-1)!.type, "response.failed");
  });

  test("a response without text goes straight from in_progress to its terminal event", () => {
    const stream = new ResponseStreamEvents(init);
    const incomplete = buildResponseObject({ ...init, status: "incomplete" });
    const all = events([...stream.start(), ...stream.finish(incomplete)].join(""));
    assert.deepEqual(
      all.map((e) => e.type),
      ["response.created", "response.in_progress", "response.incomplete"],
    );
  });
});

function client(body: string, contentType: string): OpenAI {
  return new OpenAI({
    apiKey: "k",
    baseURL: "http://127.0.0.1:9/v1",
    maxRetries: 0,
    fetch: async () => new Response(body, { status: 200, headers: { "content-type": contentType } }),
  });
}

describe("Responses output through the official openai client", () => {
  test("responses.create with stream: true yields every event as sent", async () => {
    const { text } = streamedText(new ResponseStreamEvents(init), [{ role: "assistant", content: "It is 42." }]);
    const received: unknown[] = [];
    const stream = await client(text, "text/event-stream").responses.create({
      model: "hermes-agent",
      input: "hi",
      stream: true,
    });
    for await (const event of stream) received.push(event);
    assert.deepEqual(received, events(text));
  });

  test("the responses stream helper accumulates the events into the final response", async () => {
    const stream = new ResponseStreamEvents(init);
    const call = { id: "call_1", type: "function" as const, function: { name: "lookup", arguments: "{}" } };
    const body = buildResponseObject({ ...init, status: "completed", newMessages: turn, usage });
    const text = [
      ...stream.start(),
      stream.textDelta("Let me look."),
      stream.toolCall(call),
      stream.toolResult("call_1", "42"),
      stream.textDelta("It is 42."),
      ...stream.finish(body),
    ].join("");
    const helper = client(text, "text/event-stream").responses.stream({ model: "hermes-agent", input: "hi" });
    const deltas: string[] = [];
    helper.on("response.output_text.delta", (event) => deltas.push(event.snapshot));
    const final = await helper.finalResponse();
    assert.deepEqual(deltas, ["Let me look.", "It is 42."]);
    assert.equal(final.output_text, "Let me look.It is 42.");
    assert.equal(final.usage?.output_tokens_details.reasoning_tokens, 5);
    assert.equal(final.output.length, body.output.length);
  });

  test("a non-streamed response object comes back intact with output_text added by the client", async () => {
    const body = buildResponseObject({ ...init, status: "completed", newMessages: turn, usage });
    const response = await client(JSON.stringify(body), "application/json").responses.create({
      model: "hermes-agent",
      input: "hi",
    });
    const { output_text, ...rest } = response;
    assert.deepEqual(rest, body);
    assert.equal(output_text, "Let me look.It is 42.");
  });
});
