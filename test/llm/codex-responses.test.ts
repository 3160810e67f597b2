import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collect } from "../../src/llm/normalize.js";
import { createCodexResponsesTransport } from "../../src/llm/transports/codex-responses.js";
import type { LlmRequest, Message } from "../../src/llm/types.js";
import {
  assertAbortIsPrompt,
  drain,
  drainError,
  ofType,
  signal,
  startServer,
  suiteFakeProvider,
  TIME_TOOL,
  textOf,
  toolHistory,
  WEATHER_TOOL,
} from "./transport-helpers.js";

const fake = suiteFakeProvider();

function transport(extra: Parameters<typeof createCodexResponsesTransport>[0] = {}) {
  return createCodexResponsesTransport({
    baseUrl: `${fake.url}/v1`,
    apiKey: "sk-codex",
    provider: "openai-codex",
    ...extra,
  });
}

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: "gpt-5-codex",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ],
    ...overrides,
  };
}

describe("codex responses: replies", () => {
  test("streams text and finishes with stop", async () => {
    fake.push({ text: "Hi from Responses." });
    const events = await drain(transport().stream(request(), signal()));
    assert.equal(textOf(events), "Hi from Responses.");
    assert.deepEqual(events.at(-1), { type: "finish", reason: "stop" });
    assert.equal(fake.requests[0]?.path, "/v1/responses");
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer sk-codex");
  });

  test("streams the reasoning summary and keeps the encrypted reasoning item for later turns", async () => {
    fake.push({ reasoning: "plan the answer", reasoningSignature: "ENCRYPTED==", text: "done" });
    const reply = await collect(transport().stream(request(), signal()));
    assert.equal(reply.reasoning, "plan the answer");
    const items = reply.continuity?.responsesItems as Array<Record<string, unknown>>;
    assert.equal(items.length, 1);
    assert.equal(items[0]?.type, "reasoning");
    assert.equal(items[0]?.encrypted_content, "ENCRYPTED==");
  });

  test("assembles tool calls with call_id as the id and the item id kept", async () => {
    fake.push({
      toolCalls: [
        { id: "call_w", name: "get_weather", arguments: { city: "Lima" } },
        { id: "call_t", name: "get_time", arguments: { zone: "UTC" } },
      ],
    });
    const reply = await collect(transport().stream(request({ tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
    assert.equal(reply.finish, "tool_calls");
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ["call_w", "get_weather", { city: "Lima" }],
        ["call_t", "get_time", { zone: "UTC" }],
      ],
    );
    assert.match(reply.toolCalls[0]!.responseItemId ?? "", /^fc_/);
  });

  test("reports usage with cached input tokens", async () => {
    fake.push({ text: "x", usage: { input: 40, output: 9, cacheRead: 600, reasoning: 4 } });
    const reply = await collect(transport().stream(request(), signal()));
    assert.deepEqual(reply.usage, {
      inputTokens: 640,
      outputTokens: 9,
      cacheReadTokens: 600,
      cacheWriteTokens: 0,
      reasoningTokens: 4,
    });
  });

  test("an incomplete response for max_output_tokens finishes with length", async () => {
    fake.push({ text: "partial", finish: "length" });
    assert.equal((await collect(transport().stream(request(), signal()))).finish, "length");
  });
});

describe("codex responses: faults", () => {
  test("a 401 keeps status, body and headers", async () => {
    fake.push({ fault: { kind: "status", status: 401, message: "bad key", headers: { "x-request-id": "req_1" } } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 401);
    assert.equal((error.body as { error: { code: string } }).error.code, "invalid_api_key");
    assert.equal(error.headers?.["x-request-id"], "req_1");
  });

  test("a dropped connection is a disconnect", async () => {
    fake.push({ text: "some words to stream", fault: { kind: "disconnect", afterChunks: 4 } });
    const { error, events } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "disconnect");
    assert.equal(ofType(events, "finish").length, 0);
  });

  test("a stall hits the read timeout", async () => {
    fake.push({ text: "stalls", fault: { kind: "stall", afterChunks: 2 } });
    const { error } = await drainError(transport({ timeouts: { readMs: 150 } }).stream(request(), signal()));
    assert.equal(error.kind, "timeout");
  });

  test("a malformed event is a malformed LlmError", async () => {
    fake.push({ text: "abc", fault: { kind: "malformed_chunk", afterChunks: 3 } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "malformed");
  });

  test("response.failed becomes an http error with a status from its code", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        `event: response.failed\ndata: ${JSON.stringify({
          type: "response.failed",
          response: { status: "failed", error: { code: "rate_limit_exceeded", message: "slow down" } },
        })}\n\n`,
      );
    });
    try {
      const { error } = await drainError(
        createCodexResponsesTransport({ baseUrl: server.url }).stream(request(), signal()),
      );
      assert.equal(error.kind, "http");
      assert.equal(error.status, 429);
    } finally {
      await server.close();
    }
  });

  test("an abort rejects promptly and emits no finish", async () => {
    fake.push({ text: "a b c d e f g", chunkDelayMs: 200 });
    await assertAbortIsPrompt((abort) => transport().stream(request(), abort));
  });
});

describe("codex responses: wire shape", () => {
  test("agent.service_tier goes out as service_tier", async () => {
    await drain(transport().stream(request({ serviceTier: "flex" }), signal()));
    assert.equal(fake.requests.at(-1)?.body.service_tier, "flex");
  });

  test("sends the system prompt as instructions, stateless, asking for encrypted reasoning", async () => {
    await drain(transport().stream(request({ tools: [WEATHER_TOOL], reasoningEffort: "high" }), signal()));
    const body = fake.requests[0]?.body;
    assert.equal(body.instructions, "Be brief.");
    assert.equal(body.store, false);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
    assert.deepEqual(body.reasoning, { summary: "auto", effort: "high" });
    assert.deepEqual(body.input, [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }]);
    assert.deepEqual(body.tools, [
      {
        type: "function",
        name: "get_weather",
        description: "Current weather for a city.",
        parameters: WEATHER_TOOL.function.parameters,
        strict: false,
      },
    ]);
  });

  test("sends later system messages with the developer role for GPT-5 models", async () => {
    const messages: Message[] = [
      { role: "system", content: "Base." },
      { role: "user", content: "q" },
      { role: "system", content: "Note: budget low." },
    ];
    await drain(transport().stream(request({ messages }), signal()));
    await drain(transport().stream(request({ messages, model: "gpt-4.1" }), signal()));
    assert.equal(fake.requests[0]?.body.input[1].role, "developer");
    assert.equal(fake.requests[1]?.body.input[1].role, "system");
  });

  test("turns tool calls and results into function_call and function_call_output items", async () => {
    const history = toolHistory();
    const assistant = history[2]!;
    assistant.tool_calls![0]!.responseItemId = "fc_123";
    assistant.reasoningContinuity = {
      responsesItems: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ENC" }],
    };
    await drain(transport().stream(request({ messages: history }), signal()));
    const input = fake.requests[0]?.body.input as Array<Record<string, unknown>>;
    assert.deepEqual(
      input.map((i) => i.type),
      [
        "message",
        "reasoning",
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
        "message",
      ],
    );
    assert.deepEqual(input[1], { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "ENC" });
    assert.deepEqual(input[2], {
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Checking." }],
    });
    assert.deepEqual(input[3], {
      type: "function_call",
      call_id: "call_a",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      id: "fc_123",
    });
    assert.deepEqual(input[5], { type: "function_call_output", call_id: "call_a", output: "sunny, 21C" });
  });

  test("sends the output cap unless the provider rejects it, and no temperature to reasoning models", async () => {
    await drain(transport().stream(request({ maxTokens: 300, temperature: 0.2 }), signal()));
    await drain(transport({ quirks: { omitMaxTokens: true } }).stream(request({ maxTokens: 300 }), signal()));
    await drain(transport().stream(request({ model: "gpt-4.1", temperature: 0.2 }), signal()));
    assert.equal(fake.requests[0]?.body.max_output_tokens, 300);
    assert.equal(fake.requests[0]?.body.temperature, undefined);
    assert.equal(fake.requests[1]?.body.max_output_tokens, undefined);
    assert.equal(fake.requests[2]?.body.temperature, 0.2);
    assert.equal(fake.requests[2]?.body.include, undefined, "non-reasoning models get no reasoning include");
  });

  test("sends images as input_image parts", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "low" } }],
      },
    ];
    await drain(transport().stream(request({ messages }), signal()));
    assert.deepEqual(fake.requests[0]?.body.input[0].content, [
      { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "low" },
    ]);
  });
});
