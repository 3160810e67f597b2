import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collect } from "../../src/llm/normalize.js";
import { createAnthropicMessagesTransport } from "../../src/llm/transports/anthropic-messages.js";
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

function transport(extra: Parameters<typeof createAnthropicMessagesTransport>[0] = {}) {
  return createAnthropicMessagesTransport({
    baseUrl: fake.url,
    apiKey: "sk-ant-test",
    provider: "anthropic",
    ...extra,
  });
}

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: "claude-sonnet-4-5",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ],
    ...overrides,
  };
}

describe("anthropic messages: replies", () => {
  test("streams text with the API key and version headers", async () => {
    fake.push({ text: "Hello from Claude." });
    const events = await drain(transport().stream(request(), signal()));
    assert.equal(textOf(events), "Hello from Claude.");
    assert.deepEqual(events.at(-1), { type: "finish", reason: "stop" });
    const headers = fake.requests[0]?.headers ?? {};
    assert.equal(headers["x-api-key"], "sk-ant-test");
    assert.equal(headers["anthropic-version"], "2023-06-01");
    assert.equal(fake.requests[0]?.path, "/v1/messages");
  });

  test("streams thinking as reasoning and hands back the signed block before finish", async () => {
    fake.push({ reasoning: "let me think", reasoningSignature: "sig-123", text: "42" });
    const events = await drain(transport().stream(request({ reasoningEffort: "medium" }), signal()));
    const continuity = ofType(events, "reasoning_continuity");
    assert.deepEqual(continuity[0]?.continuity.anthropicThinking, [
      { type: "thinking", thinking: "let me think", signature: "sig-123" },
    ]);
    const types = events.map((e) => e.type);
    assert.ok(types.indexOf("reasoning_continuity") < types.indexOf("finish"));
    const reply = await collect(
      (async function* () {
        yield* events;
      })(),
    );
    assert.equal(reply.reasoning, "let me think");
    assert.equal(reply.text, "42");
    const body = fake.requests[0]?.body;
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 8192 });
    assert.match(fake.requests[0]?.headers["anthropic-beta"] ?? "", /interleaved-thinking/);
  });

  test("assembles several tool calls with their ids", async () => {
    fake.push({
      text: "Let me check.",
      toolCalls: [
        { id: "toolu_1", name: "get_weather", arguments: { city: "Paris" } },
        { id: "toolu_2", name: "get_time", arguments: { zone: "UTC" } },
      ],
    });
    const reply = await collect(transport().stream(request({ tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
    assert.equal(reply.finish, "tool_calls");
    assert.equal(reply.text, "Let me check.");
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ["toolu_1", "get_weather", { city: "Paris" }],
        ["toolu_2", "get_time", { zone: "UTC" }],
      ],
    );
  });

  test("reports usage with the cached parts added to the prompt total", async () => {
    fake.push({ text: "x", usage: { input: 10, output: 5, cacheRead: 1000, cacheWrite: 200 } });
    const reply = await collect(transport().stream(request(), signal()));
    assert.deepEqual(reply.usage, {
      inputTokens: 1210,
      outputTokens: 5,
      cacheReadTokens: 1000,
      cacheWriteTokens: 200,
      reasoningTokens: 0,
    });
  });

  test("agent.service_tier goes out as service_tier; without it the field is absent", async () => {
    await drain(transport().stream(request({ serviceTier: "standard_only" }), signal()));
    await drain(transport().stream(request(), signal()));
    assert.equal(fake.requests.at(-2)?.body.service_tier, "standard_only");
    assert.equal("service_tier" in (fake.requests.at(-1)?.body ?? {}), false);
  });

  test("maps max_tokens to length", async () => {
    fake.push({ text: "cut off", finish: "length" });
    assert.equal((await collect(transport().stream(request(), signal()))).finish, "length");
  });
});

describe("anthropic messages: faults", () => {
  test("an overloaded 529 keeps status, body and headers", async () => {
    fake.push({ fault: { kind: "status", status: 529, message: "Overloaded", headers: { "x-should-retry": "true" } } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 529);
    assert.deepEqual(error.body, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    assert.equal(error.headers?.["x-should-retry"], "true");
  });

  test("a dropped connection is a disconnect with no finish", async () => {
    fake.push({ text: "a long answer here", fault: { kind: "disconnect", afterChunks: 4 } });
    const { error, events } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "disconnect");
    assert.equal(ofType(events, "finish").length, 0);
  });

  test("a stream of only pings is stale", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1}}}\n\n');
      const timer = setInterval(() => res.write('event: ping\ndata: {"type":"ping"}\n\n'), 20);
      res.on("close", () => clearInterval(timer));
    });
    try {
      const t = createAnthropicMessagesTransport({ baseUrl: server.url, timeouts: { readMs: 1000, staleMs: 200 } });
      const { error } = await drainError(t.stream(request(), signal()));
      assert.equal(error.kind, "stale_stream");
    } finally {
      await server.close();
    }
  });

  test("a stall hits the read timeout", async () => {
    fake.push({ text: "never ends", fault: { kind: "stall", afterChunks: 3 } });
    const { error } = await drainError(transport({ timeouts: { readMs: 150 } }).stream(request(), signal()));
    assert.equal(error.kind, "timeout");
  });

  test("a malformed event is a malformed LlmError", async () => {
    fake.push({ text: "abc", fault: { kind: "malformed_chunk", afterChunks: 3 } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "malformed");
  });

  test("an error event mid-stream becomes an http error with the mapped status", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    });
    try {
      const t = createAnthropicMessagesTransport({ baseUrl: server.url });
      const { error } = await drainError(t.stream(request(), signal()));
      assert.equal(error.status, 529);
    } finally {
      await server.close();
    }
  });

  test("an abort rejects promptly and emits no finish", async () => {
    fake.push({ text: "one two three four five six", chunkDelayMs: 200 });
    await assertAbortIsPrompt((abort) => transport().stream(request(), abort));
  });
});

describe("anthropic messages: wire shape", () => {
  test("puts the system prompt top-level and caches tools, system and the last 2 turns", async () => {
    await drain(transport().stream(request({ messages: toolHistory(), tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
    const body = fake.requests[0]?.body;
    assert.deepEqual(body.system, [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } }]);
    assert.equal(body.tools[0].cache_control, undefined);
    assert.deepEqual(body.tools[1], {
      name: "get_time",
      description: "Current time in a zone.",
      input_schema: TIME_TOOL.function.parameters,
      cache_control: { type: "ephemeral" },
    });
    assert.equal((fake.requests[0]?.rawBody.match(/cache_control/g) ?? []).length, 4);
    assert.deepEqual(
      body.messages.map((m: { role: string }) => m.role),
      ["user", "assistant", "user"],
    );
  });

  test("defaults max_tokens per model and keeps it above the thinking budget", async () => {
    await drain(transport().stream(request({ model: "claude-haiku-4-5" }), signal()));
    await drain(
      transport().stream(request({ model: "claude-3-5-haiku", reasoningEffort: "high", maxTokens: 1000 }), signal()),
    );
    await drain(transport().stream(request({ temperature: 0.3 }), signal()));
    assert.equal(fake.requests[0]?.body.max_tokens, 64_000);
    assert.ok(fake.requests[1]!.body.max_tokens > 16_384);
    assert.equal(fake.requests[1]?.body.temperature, undefined);
    assert.equal(fake.requests[2]?.body.temperature, 0.3);
  });

  test("uses a 1h TTL when asked", async () => {
    await drain(transport().stream(request({ promptCache: { ttl: "1h" } }), signal()));
    assert.deepEqual(fake.requests[0]?.body.system[0].cache_control, { type: "ephemeral", ttl: "1h" });
  });

  test("merges tool results and the next user message into one user turn of blocks", async () => {
    await drain(transport().stream(request({ messages: toolHistory(), promptCache: false }), signal()));
    const [, assistant, user] = fake.requests[0]!.body.messages;
    assert.deepEqual(assistant.content, [
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "call_a", name: "get_weather", input: { city: "Paris" } },
      { type: "tool_use", id: "call_b", name: "get_time", input: { zone: "Asia/Tokyo" } },
    ]);
    assert.deepEqual(user.content, [
      { type: "tool_result", tool_use_id: "call_a", content: "sunny, 21C" },
      { type: "tool_result", tool_use_id: "call_b", content: "09:00" },
      { type: "text", text: "Thanks. Anything else?" },
    ]);
  });

  test("re-sends thinking blocks with their signatures on the assistant turn", async () => {
    const messages: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: null,
        reasoning: "hmm",
        reasoningContinuity: {
          anthropicThinking: [
            { type: "thinking", thinking: "hmm", signature: "sig-abc" },
            { type: "redacted_thinking", data: "opaque" },
          ],
        },
        tool_calls: [{ id: "t1", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }],
      },
      { role: "tool", tool_call_id: "t1", content: "rain" },
    ];
    await drain(transport().stream(request({ messages, promptCache: false }), signal()));
    const assistant = fake.requests[0]?.body.messages[1];
    assert.deepEqual(assistant.content.slice(0, 2), [
      { type: "thinking", thinking: "hmm", signature: "sig-abc" },
      { type: "redacted_thinking", data: "opaque" },
    ]);
    assert.equal(assistant.content[2].type, "tool_use");
  });

  test("turns data-URL images into base64 image blocks", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        ],
      },
    ];
    await drain(transport().stream(request({ messages, promptCache: false }), signal()));
    assert.deepEqual(fake.requests[0]?.body.messages[0].content, [
      { type: "text", text: "look" },
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.png" } },
    ]);
  });

  test("sends OAuth tokens as a bearer with the oauth beta", async () => {
    await drain(transport({ apiKey: "sk-ant-oat01-xyz" }).stream(request(), signal()));
    const headers = fake.requests[0]?.headers ?? {};
    assert.equal(headers.authorization, "Bearer sk-ant-oat01-xyz");
    assert.equal(headers["x-api-key"], undefined);
    assert.match(headers["anthropic-beta"] ?? "", /oauth-2025-04-20/);
  });

  test("works with a base URL that ends in /anthropic", async () => {
    const t = createAnthropicMessagesTransport({ baseUrl: `${fake.url}/anthropic`, apiKey: "k" });
    await drain(t.stream(request({ model: "MiniMax-M2" }), signal()));
    assert.equal(fake.requests[0]?.path, "/anthropic/v1/messages");
  });
});
