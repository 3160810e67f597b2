import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setBedrockDefaults } from "../../src/llm/bedrock-defaults.js";
import { collect } from "../../src/llm/normalize.js";
import { createBedrockConverseTransport, regionFromBaseUrl } from "../../src/llm/transports/bedrock-converse.js";
import type { LlmRequest, Message } from "../../src/llm/types.js";
import { bedrockDefaultsFrom } from "../../src/runtime/bedrock-settings.js";
import { validateConfig } from "../../src/state/config-validate.js";
import {
  assertAbortIsPrompt,
  drain,
  drainError,
  ofType,
  signal,
  suiteFakeProvider,
  TIME_TOOL,
  textOf,
  toolHistory,
  WEATHER_TOOL,
} from "./transport-helpers.js";

const fake = suiteFakeProvider();

const MODEL = "anthropic.claude-sonnet-4-5-v1:0";

function transport(extra: Parameters<typeof createBedrockConverseTransport>[0] = {}) {
  return createBedrockConverseTransport({
    baseUrl: fake.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIDTEST", secretAccessKey: "secret" },
    ...extra,
  });
}

function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return {
    model: MODEL,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "hi" },
    ],
    ...overrides,
  };
}

describe("bedrock converse: replies", () => {
  test("streams text over the binary event stream, SigV4-signed", async () => {
    fake.push({ text: "Hello from Bedrock." });
    const events = await drain(transport().stream(request(), signal()));
    assert.equal(textOf(events), "Hello from Bedrock.");
    assert.deepEqual(events.at(-1), { type: "finish", reason: "stop" });
    const recorded = fake.requests[0]!;
    assert.equal(recorded.path, `/model/${encodeURIComponent(MODEL)}/converse-stream`);
    assert.match(recorded.headers.authorization ?? "", /^AWS4-HMAC-SHA256 Credential=AKIDTEST\//);
  });

  test("sends stop sequences in inferenceConfig, beside the other inference settings", async () => {
    await drain(transport().stream(request({ stopSequences: ["STOP"], maxTokens: 64 }), signal()));
    assert.deepEqual((fake.requests[0]!.body as { inferenceConfig?: unknown }).inferenceConfig, {
      maxTokens: 64,
      stopSequences: ["STOP"],
    });
  });

  test("sends a Bedrock API key as a bearer token", async () => {
    await drain(transport({ apiKey: "bedrock-api-key", credentials: undefined }).stream(request(), signal()));
    assert.equal(fake.requests[0]?.headers.authorization, "Bearer bedrock-api-key");
  });

  test("streams reasoning and returns signed thinking for continuity", async () => {
    fake.push({ reasoning: "consider", reasoningSignature: "sig-b", text: "ok" });
    const reply = await collect(transport().stream(request(), signal()));
    assert.equal(reply.reasoning, "consider");
    assert.deepEqual(reply.continuity?.anthropicThinking, [
      { type: "thinking", thinking: "consider", signature: "sig-b" },
    ]);
  });

  test("assembles several tool calls", async () => {
    fake.push({
      toolCalls: [
        { id: "tu_1", name: "get_weather", arguments: { city: "Cairo" } },
        { id: "tu_2", name: "get_time", arguments: { zone: "UTC" } },
      ],
    });
    const reply = await collect(transport().stream(request({ tools: [WEATHER_TOOL, TIME_TOOL] }), signal()));
    assert.equal(reply.finish, "tool_calls");
    assert.deepEqual(
      reply.toolCalls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments)]),
      [
        ["tu_1", "get_weather", { city: "Cairo" }],
        ["tu_2", "get_time", { zone: "UTC" }],
      ],
    );
  });

  test("reports usage with cache counters", async () => {
    fake.push({ text: "x", usage: { input: 20, output: 4, cacheRead: 300, cacheWrite: 30 } });
    const reply = await collect(transport().stream(request(), signal()));
    assert.deepEqual(reply.usage, {
      inputTokens: 350,
      outputTokens: 4,
      cacheReadTokens: 300,
      cacheWriteTokens: 30,
      reasoningTokens: 0,
    });
  });
});

describe("bedrock converse: faults", () => {
  test("a throttling 429 keeps its status", async () => {
    fake.push({ fault: { kind: "status", status: 429, message: "Too many requests" } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 429);
    assert.equal((error.body as { name: string }).name, "ThrottlingException");
  });

  test("a dropped connection is a disconnect", async () => {
    fake.push({ text: "several words of text", fault: { kind: "disconnect", afterChunks: 2 } });
    const { error, events } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "disconnect");
    assert.equal(ofType(events, "finish").length, 0);
  });

  test("a stall hits the read timeout", async () => {
    fake.push({ text: "stalls here", fault: { kind: "stall", afterChunks: 2 } });
    const { error } = await drainError(transport({ timeouts: { readMs: 200 } }).stream(request(), signal()));
    assert.equal(error.kind, "timeout");
  });

  test("a malformed event is a malformed LlmError", async () => {
    fake.push({ text: "abc", fault: { kind: "malformed_chunk", afterChunks: 2 } });
    const { error } = await drainError(transport().stream(request(), signal()));
    assert.equal(error.kind, "malformed");
  });

  test("an abort rejects promptly and emits no finish", async () => {
    fake.push({ text: "a b c d e f g h", chunkDelayMs: 200 });
    await assertAbortIsPrompt((abort) => transport().stream(request(), abort));
  });
});

describe("bedrock converse: wire shape", () => {
  test("sends system blocks, toolConfig, toolUse and merged toolResult turns", async () => {
    await drain(
      transport().stream(request({ messages: toolHistory(), tools: [WEATHER_TOOL], maxTokens: 500 }), signal()),
    );
    const body = fake.requests[0]?.body;
    assert.deepEqual(body.system, [{ text: "You are terse." }]);
    assert.deepEqual(body.inferenceConfig, { maxTokens: 500 });
    assert.deepEqual(body.toolConfig.tools[0], {
      toolSpec: {
        name: "get_weather",
        description: "Current weather for a city.",
        inputSchema: { json: WEATHER_TOOL.function.parameters },
      },
    });
    assert.deepEqual(
      body.messages.map((m: { role: string }) => m.role),
      ["user", "assistant", "user"],
    );
    assert.deepEqual(body.messages[1].content[1], {
      toolUse: { toolUseId: "call_a", name: "get_weather", input: { city: "Paris" } },
    });
    assert.deepEqual(body.messages[2].content[0], {
      toolResult: { toolUseId: "call_a", content: [{ text: "sunny, 21C" }] },
    });
    assert.deepEqual(body.messages[2].content[2], { text: "Thanks. Anything else?" });
  });

  test("re-sends signed reasoning and converts data-URL images to bytes", async () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K" } }] },
      {
        role: "assistant",
        content: "seen",
        reasoningContinuity: { anthropicThinking: [{ type: "thinking", thinking: "look", signature: "sig" }] },
      },
      { role: "user", content: "and?" },
    ];
    await drain(transport().stream(request({ messages }), signal()));
    const body = fake.requests[0]?.body;
    assert.deepEqual(body.messages[0].content[0], {
      image: { format: "png", source: { bytes: Buffer.from("iVBORw0K", "base64").toString("base64") } },
    });
    assert.deepEqual(body.messages[1].content[0], {
      reasoningContent: { reasoningText: { text: "look", signature: "sig" } },
    });
  });

  test("reads the region from a bedrock-runtime base URL", () => {
    assert.equal(regionFromBaseUrl("https://bedrock-runtime.eu-west-3.amazonaws.com"), "eu-west-3");
    assert.equal(regionFromBaseUrl("http://127.0.0.1:9"), undefined);
  });
});

describe("bedrock converse: config.yaml's bedrock section", () => {
  test("bedrock.region signs for that region before AWS_REGION; a guardrail goes with every request", async () => {
    const savedRegion = process.env.AWS_REGION;
    process.env.AWS_REGION = "us-west-2";
    setBedrockDefaults({
      region: "eu-central-1",
      guardrail: { identifier: "gr-abc123", version: "DRAFT", streamProcessingMode: "sync", trace: "enabled" },
    });
    try {
      fake.push({ text: "guarded" });
      const events = await drain(transport({ region: undefined }).stream(request(), signal()));
      assert.equal(textOf(events), "guarded");
      const recorded = fake.requests[0]!;
      assert.match(
        recorded.headers.authorization ?? "",
        /Credential=AKIDTEST\/\d{8}\/eu-central-1\/bedrock\/aws4_request/,
      );
      assert.deepEqual((recorded.body as { guardrailConfig?: unknown }).guardrailConfig, {
        guardrailIdentifier: "gr-abc123",
        guardrailVersion: "DRAFT",
        streamProcessingMode: "sync",
        trace: "enabled",
      });
    } finally {
      setBedrockDefaults({});
      if (savedRegion === undefined) delete process.env.AWS_REGION;
      else process.env.AWS_REGION = savedRegion;
    }
  });

  test("without them: no guardrail, and AWS_REGION decides", async () => {
    const savedRegion = process.env.AWS_REGION;
    process.env.AWS_REGION = "ap-south-1";
    try {
      await drain(transport({ region: undefined }).stream(request(), signal()));
      const recorded = fake.requests[0]!;
      assert.match(recorded.headers.authorization ?? "", /\/ap-south-1\/bedrock\/aws4_request/);
      assert.equal((recorded.body as { guardrailConfig?: unknown }).guardrailConfig, undefined);
    } finally {
      if (savedRegion === undefined) delete process.env.AWS_REGION;
      else process.env.AWS_REGION = savedRegion;
    }
  });

  test("a guardrail without its version is a config error naming what to set; the section maps onto the transport's settings", () => {
    assert.throws(
      () => validateConfig({ bedrock: { guardrail: { guardrail_identifier: "gr-abc123" } } }),
      /bedrock\.guardrail must be given a guardrail_version \(a version number, or DRAFT\) when guardrail_identifier is set/,
    );
    const { config } = validateConfig({
      bedrock: { region: " eu-west-1 ", guardrail: { guardrail_identifier: "gr-1", guardrail_version: "3" } },
    });
    assert.deepEqual(bedrockDefaultsFrom(config.bedrock), {
      region: "eu-west-1",
      guardrail: { identifier: "gr-1", version: "3", streamProcessingMode: "async", trace: "disabled" },
    });
    assert.deepEqual(bedrockDefaultsFrom(validateConfig({}).config.bedrock), {});
  });
});
