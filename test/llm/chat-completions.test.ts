import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collect } from "../../src/llm/normalize.js";
import { createChatCompletionsTransport } from "../../src/llm/transports/chat-completions.js";
import type { LlmRequest, Message } from "../../src/llm/types.js";
import {
  assertAbortIsPrompt,
  drain,
  drainError,
  ofType,
  reasoningOf,
  signal,
  startServer,
  suiteFakeProvider,
  TIME_TOOL,
  textOf,
  toolHistory,
  WEATHER_TOOL,
} from "./transport-helpers.js";

const fake = suiteFakeProvider();

const hello: Message[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "hi" },
];

function transport(extra: Parameters<typeof createChatCompletionsTransport>[0] = {}) {
  return createChatCompletionsTransport({ baseUrl: `${fake.url}/v1`, apiKey: "sk-test", provider: "fake", ...extra });
}

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return { model: "fake-model", messages: hello, ...overrides };
}

describe("chat completions: replies", () => {
  test("streams text and finishes with stop, sending the key as a bearer token", async () => {
    fake.push({ text: "Hello there, friend." });
    const events = await drain(transport().stream(request(), signal()));
    assert.equal(textOf(events), "Hello there, friend.");
    assert.deepEqual(events.at(-1), { type: "finish", reason: "stop" });
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer sk-test");
    assert.equal(fake.requests[0]?.body.stream, true);
    assert.deepEqual(fake.requests[0]?.body.stream_options, { include_usage: true });
  });

  test("sends stop sequences as stop, and none when the request has none", async () => {
    await drain(transport().stream(request({ stopSequences: ["END", "\n\n"] }), signal()));
    await drain(transport().stream(request({ stopSequences: [] }), signal()));
    assert.deepEqual(fake.requests[0]?.body.stop, ["END", "\n\n"]);
    assert.equal(fake.requests[1]?.body.stop, undefined);
  });

  test("streams reasoning_content and reasoning fields as reasoning deltas", async () => {
    fake.push(
      { reasoning: "thinking hard", text: "done" },
      { reasoning: "second", text: "ok", reasoningField: "reasoning" },
    );
    const first = await drain(transport().stream(request(), signal()));
    assert.equal(reasoningOf(first), "thinking hard");
    assert.equal(textOf(first), "done");
    const second = await drain(transport().stream(request(), signal()));
    assert.equal(reasoningOf(second), "second");
  });

  test("moves inline <think> text to reasoning", async () => {
    fake.push({ text: "<think>weigh options</think>The answer is 4." });
    const reply = await collect(transport().stream(request(), signal()));
    assert.equal(reply.reasoning, "weigh options");
    assert.equal(reply.text, "The answer is 4.");
  });

  test("assembles one and several tool calls, finishing with tool_calls", async () => {
    fake.push({
      toolCalls: [
        { id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
        { id: "call_2", name: "get_time", arguments: { zone: "Asia/Tokyo" } },
      ],
    });
    const events = await drain(transport().stream(request({ tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
    const reply = await collect(
      (async function* () {
        yield* events;
      })(),
    );
    assert.equal(reply.finish, "tool_calls");
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ["call_1", "get_weather", { city: "Paris" }],
        ["call_2", "get_time", { zone: "Asia/Tokyo" }],
      ],
    );
    assert.deepEqual(
      ofType(events, "tool_call_end").map((e) => e.index),
      [0, 1],
    );
  });

  test("gives id-less tool calls deterministic ids", async () => {
    const turn = { omitIds: true, toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] };
    fake.push(turn, turn);
    const a = await collect(transport().stream(request({ tools: [WEATHER_TOOL] }), signal()));
    const b = await collect(transport().stream(request({ tools: [WEATHER_TOOL] }), signal()));
    assert.match(a.toolCalls[0]!.id, /^call_0_[0-9a-f]{12}$/);
    assert.equal(a.toolCalls[0]!.id, b.toolCalls[0]!.id);
    assert.equal(a.toolCalls[0]!.function.arguments, '{"city":"Oslo"}');
  });

  test("reports usage with cache read and write counters", async () => {
    fake.push({ text: "x", usage: { input: 100, output: 7, cacheRead: 800, cacheWrite: 50, reasoning: 3 } });
    const reply = await collect(transport().stream(request(), signal()));
    assert.deepEqual(reply.usage, {
      inputTokens: 950,
      outputTokens: 7,
      cacheReadTokens: 800,
      cacheWriteTokens: 50,
      reasoningTokens: 3,
    });
  });

  test("maps length and content_filter finishes", async () => {
    fake.push({ text: "cut", finish: "length" }, { text: "", finish: "content_filter" });
    assert.equal((await collect(transport().stream(request(), signal()))).finish, "length");
    assert.equal((await collect(transport().stream(request(), signal()))).finish, "content_filter");
  });
});

describe("chat completions: faults", () => {
  test("a 429 becomes an http LlmError with status, parsed body and headers", async () => {
    fake.push({ fault: { kind: "status", status: 429, message: "slow down", headers: { "retry-after": "7" } } });
    const { error, events } = await drainError(transport().stream(request(), signal()));
    assert.equal(events.length, 0);
    assert.equal(error.kind, "http");
    assert.equal(error.status, 429);
    assert.equal((error.body as { error: { message: string } }).error.message, "slow down");
    assert.equal(error.headers?.["retry-after"], "7");
    assert.equal(error.provider, "fake");
  });

  test("a dropped connection mid-stream is a disconnect, with no finish", async () => {
    fake.push({ text: "one two three four five six", fault: { kind: "disconnect", afterChunks: 2 } });
    const { error, events } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "disconnect");
    assert.equal(ofType(events, "finish").length, 0);
  });

  test("a stalled stream hits the read timeout", async () => {
    fake.push({ text: "never finishes", fault: { kind: "stall", afterChunks: 2 } });
    const started = Date.now();
    const { error } = await drainError(
      transport({ timeouts: { readMs: 150, staleMs: 10_000 } }).stream(request(), signal()),
    );
    assert.equal(error.kind, "timeout");
    assert.ok(Date.now() - started < 5000);
  });

  test("a malformed chunk is skipped and the reply still completes", async () => {
    fake.push({ text: "abcdef", fault: { kind: "malformed_chunk", afterChunks: 2 } });
    const reply = await collect(transport().stream(request(), signal()));
    assert.equal(reply.text, "abcdef");
    assert.equal(reply.finish, "stop");
  });

  test("an abort rejects promptly and emits no finish", async () => {
    fake.push({ text: "a b c d e f g h i j", chunkDelayMs: 200 });
    await assertAbortIsPrompt((abort) => transport().stream(request(), abort));
  });

  test("a mid-stream error payload becomes an http LlmError", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n');
      res.end('data: {"error":{"message":"upstream overloaded","code":502}}\n\n');
    });
    try {
      const t = createChatCompletionsTransport({ baseUrl: server.url });
      const { error } = await drainError(t.stream(request(), signal()));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 502);
    } finally {
      await server.close();
    }
  });
});

describe("chat completions: parallel tool calls", () => {
  test("assembles interleaved argument deltas by index", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        chunk({
          tool_calls: [{ index: 0, id: "c0", type: "function", function: { name: "get_weather", arguments: "" } }],
        }),
      );
      res.write(
        chunk({
          tool_calls: [{ index: 1, id: "c1", type: "function", function: { name: "get_time", arguments: "" } }],
        }),
      );
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }));
      res.write(chunk({ tool_calls: [{ index: 1, function: { arguments: '{"zone":' } }] }));
      res.write(chunk({ tool_calls: [{ index: 1, function: { arguments: '"UTC"}' } }] }));
      res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '"Rome"}' } }] }));
      res.write(chunk({}, "tool_calls"));
      res.end("data: [DONE]\n\n");
    });
    try {
      const t = createChatCompletionsTransport({ baseUrl: server.url });
      const reply = await collect(t.stream(request({ tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
      assert.deepEqual(
        reply.toolCalls.map((c) => [c.id, c.function.name, c.function.arguments]),
        [
          ["c0", "get_weather", '{"city":"Rome"}'],
          ["c1", "get_time", '{"zone":"UTC"}'],
        ],
      );
    } finally {
      await server.close();
    }
  });

  test("treats a reused index with a new id as a new call", async () => {
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "get_weather", arguments: '{"city":"A"}' } }] }),
      );
      res.write(
        chunk({ tool_calls: [{ index: 0, id: "b", function: { name: "get_weather", arguments: '{"city":"B"}' } }] }),
      );
      res.end(chunk({}, "stop"));
    });
    try {
      const t = createChatCompletionsTransport({ baseUrl: server.url });
      const reply = await collect(t.stream(request(), signal()));
      assert.deepEqual(
        reply.toolCalls.map((c) => c.function.arguments),
        ['{"city":"A"}', '{"city":"B"}'],
      );
      assert.equal(
        reply.finish,
        "tool_calls",
        "a reply with tool calls finishes with tool_calls even if the server said stop",
      );
    } finally {
      await server.close();
    }
  });
});

describe("chat completions: wire shape", () => {
  test("sends system as system for most models and as developer for gpt-5 / o-series / codex", async () => {
    for (const [model, role] of [
      ["fake-model", "system"],
      ["gpt-5.1", "developer"],
      ["openai/o3-mini", "developer"],
      ["gpt-5-codex", "developer"],
      ["gpt-4o", "system"],
    ] as const) {
      fake.requests.length = 0;
      await drain(transport().stream(request({ model }), signal()));
      assert.equal(fake.requests[0]?.body.messages[0].role, role, model);
    }
  });

  test("sends tool schemas, assistant tool calls and tool results in OpenAI shape", async () => {
    await drain(transport().stream(request({ messages: toolHistory(), tools: [WEATHER_TOOL] }), signal()));
    const body = fake.requests[0]?.body;
    assert.deepEqual(body.tools, [WEATHER_TOOL]);
    assert.deepEqual(
      body.messages.map((m: { role: string }) => m.role),
      ["system", "user", "assistant", "tool", "tool", "user"],
    );
    assert.deepEqual(body.messages[2].tool_calls[1], {
      id: "call_b",
      type: "function",
      function: { name: "get_time", arguments: '{"zone":"Asia/Tokyo"}' },
    });
    assert.deepEqual(body.messages[3], { role: "tool", tool_call_id: "call_a", content: "sunny, 21C" });
  });

  test("adds cache markers for Claude models when the provider accepts them: tools, system, last 2", async () => {
    const t = transport({ quirks: { supportsCacheControl: true } });
    await drain(
      t.stream(
        request({ model: "anthropic/claude-sonnet-4.5", messages: toolHistory(), tools: [WEATHER_TOOL] }),
        signal(),
      ),
    );
    const body = fake.requests[0]?.body;
    const marked = JSON.stringify(body).match(/cache_control/g) ?? [];
    assert.equal(marked.length, 4);
    assert.deepEqual(body.tools[0].cache_control, { type: "ephemeral" });
    assert.deepEqual(body.messages[0].content, [
      { type: "text", text: "You are terse.", cache_control: { type: "ephemeral" } },
    ]);
    assert.equal(body.messages[5].content[0].cache_control.type, "ephemeral");
    assert.equal(body.messages[4].content[0].cache_control.type, "ephemeral");
    assert.equal(typeof body.messages[3].content, "string");
  });

  test("sends no cache markers for non-Claude models or providers without support", async () => {
    await drain(transport({ quirks: { supportsCacheControl: true } }).stream(request({ model: "gpt-4o" }), signal()));
    await drain(transport().stream(request({ model: "claude-sonnet-4" }), signal()));
    for (const recorded of fake.requests) assert.doesNotMatch(recorded.rawBody, /cache_control/);
  });

  test("echoes OpenRouter reasoning_details when the provider wants them back", async () => {
    const details = [{ type: "reasoning.encrypted", data: "opaque", index: 0 }];
    const messages: Message[] = [
      ...hello,
      { role: "assistant", content: "yo", reasoningContinuity: { openrouterDetails: details } },
      { role: "user", content: "again" },
    ];
    await drain(transport({ quirks: { echoReasoningDetails: true } }).stream(request({ messages }), signal()));
    await drain(transport().stream(request({ messages }), signal()));
    assert.deepEqual(fake.requests[0]?.body.messages[2].reasoning_details, details);
    assert.equal(fake.requests[1]?.body.messages[2].reasoning_details, undefined);
  });

  test("applies temperature quirks and merges extraBody", async () => {
    await drain(transport({ quirks: { fixedTemperature: 0.5 } }).stream(request({ temperature: 1 }), signal()));
    await drain(transport({ quirks: { omitTemperature: true } }).stream(request({ temperature: 1 }), signal()));
    await drain(
      transport().stream(
        request({ model: "kimi-k2", temperature: 0.2, extraBody: { options: { num_ctx: 65536 } } }),
        signal(),
      ),
    );
    assert.equal(fake.requests[0]?.body.temperature, 0.5);
    assert.equal("temperature" in (fake.requests[1]?.body ?? {}), false);
    assert.equal("temperature" in (fake.requests[2]?.body ?? {}), false);
    assert.deepEqual(fake.requests[2]?.body.options, { num_ctx: 65536 });
  });

  test("applies output-cap, reasoning-effort, key-header and reasoning-echo quirks", async () => {
    const messages: Message[] = [...hello, { role: "assistant", content: "a", reasoning: "earlier thought" }];
    await drain(transport().stream(request({ maxTokens: 100, reasoningEffort: "low", messages }), signal()));
    await drain(
      transport({
        apiKey: "azure-key",
        quirks: {
          maxTokensField: "max_completion_tokens",
          reasoningStyle: "openrouter",
          apiKeyHeader: "api-key",
          echoReasoningContent: true,
        },
      }).stream(request({ maxTokens: 100, reasoningEffort: "low", messages }), signal()),
    );
    await drain(transport({ quirks: { omitMaxTokens: true } }).stream(request({ maxTokens: 100 }), signal()));
    const [plain, quirky, capless] = fake.requests.map((r) => r.body);
    assert.equal(plain.max_tokens, 100);
    assert.equal(plain.reasoning_effort, "low");
    assert.equal(plain.messages[2].reasoning_content, undefined);
    assert.equal(quirky.max_completion_tokens, 100);
    assert.equal(quirky.max_tokens, undefined);
    assert.deepEqual(quirky.reasoning, { effort: "low" });
    assert.equal(quirky.messages[2].reasoning_content, "earlier thought");
    assert.equal(fake.requests[1]?.headers["api-key"], "azure-key");
    assert.equal(fake.requests[1]?.headers.authorization, undefined);
    assert.equal("max_tokens" in capless, false);
  });

  test("passes image parts through as content parts", async () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
        ],
      },
    ];
    await drain(transport().stream(request({ messages }), signal()));
    assert.deepEqual(fake.requests[0]?.body.messages[0].content, messages[0]!.content);
  });
});
