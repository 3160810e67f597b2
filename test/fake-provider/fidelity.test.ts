/**
 * The fake provider must speak what the official clients expect: each test drives the real
 * `openai` / `@anthropic-ai/sdk` client against it and checks the parsed result.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  ThrottlingException,
} from "@aws-sdk/client-bedrock-runtime";
import OpenAI from "openai";
import { startFakeProvider } from "./server.js";
import type { FakeProvider, ScriptedTurn } from "./types.js";

const richTurn: ScriptedTurn = {
  reasoning: "The user wants the weather in two cities.",
  text: "Let me check both.",
  toolCalls: [
    { id: "call_paris", name: "get_weather", arguments: { city: "Paris" } },
    { id: "call_rome", name: "get_weather", arguments: { city: "Rome", unit: "celsius" } },
  ],
  usage: { input: 120, output: 40, cacheRead: 80, cacheWrite: 10, reasoning: 12 },
};

let fake: FakeProvider;
let openai: OpenAI;
let anthropic: Anthropic;
let bedrock: BedrockRuntimeClient;

before(async () => {
  fake = await startFakeProvider();
  openai = new OpenAI({ baseURL: `${fake.url}/v1`, apiKey: "sk-fake", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: fake.url, apiKey: "sk-ant-fake", maxRetries: 0 });
  bedrock = new BedrockRuntimeClient({
    endpoint: fake.url,
    region: "us-east-1",
    credentials: { accessKeyId: "AKIAFAKE", secretAccessKey: "fake-secret" },
    maxAttempts: 1,
  });
});
after(async () => {
  bedrock.destroy();
  await fake.close();
});

describe("openai chat completions", () => {
  test("raw stream carries reasoning, text, two parallel tool calls and usage", async () => {
    fake.setScript([richTurn]);
    const stream = await openai.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "weather?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = "";
    let text = "";
    const calls: Array<{ id?: string; name?: string; args: string }> = [];
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      const delta = choice.delta as typeof choice.delta & { reasoning_content?: string };
      reasoning += delta.reasoning_content ?? "";
      text += delta.content ?? "";
      for (const call of delta.tool_calls ?? []) {
        const slot = calls[call.index] ?? { args: "" };
        calls[call.index] = slot;
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name = call.function.name;
        slot.args += call.function?.arguments ?? "";
      }
      finish = choice.finish_reason ?? finish;
    }
    assert.equal(reasoning, richTurn.reasoning);
    assert.equal(text, richTurn.text);
    assert.deepEqual(calls, [
      { id: "call_paris", name: "get_weather", args: '{"city":"Paris"}' },
      { id: "call_rome", name: "get_weather", args: '{"city":"Rome","unit":"celsius"}' },
    ]);
    assert.equal(finish, "tool_calls");
    assert.equal(usage?.prompt_tokens, 210);
    assert.equal(usage?.completion_tokens, 40);
    assert.equal(usage?.prompt_tokens_details?.cached_tokens, 80);
    assert.equal(usage?.completion_tokens_details?.reasoning_tokens, 12);
  });

  test("the SDK stream helper assembles the final completion", async () => {
    fake.setScript([richTurn]);
    const stream = openai.chat.completions.stream({
      model: "fake-model",
      messages: [{ role: "user", content: "weather?" }],
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]?.message;
    assert.equal(message?.content, "Let me check both.");
    assert.deepEqual(
      message?.tool_calls?.map((call) => (call.type === "function" ? [call.id, call.function.arguments] : [])),
      [
        ["call_paris", '{"city":"Paris"}'],
        ["call_rome", '{"city":"Rome","unit":"celsius"}'],
      ],
    );
  });

  test("non-streaming reply parses with reasoning and tool calls", async () => {
    fake.setScript([richTurn]);
    const completion = await openai.chat.completions.create({
      model: "fake-model",
      messages: [{ role: "user", content: "weather?" }],
    });
    const choice = completion.choices[0]!;
    const message = choice.message as typeof choice.message & { reasoning_content?: string };
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(message.content, "Let me check both.");
    assert.equal(message.reasoning_content, richTurn.reasoning);
    assert.equal(message.tool_calls?.length, 2);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 80);
    assert.equal(completion.model, "fake-model");
  });

  test("an error status becomes the SDK's APIError with status, message and headers", async () => {
    fake.setScript([{ fault: { kind: "status", status: 429, message: "slow down", headers: { "retry-after": "7" } } }]);
    const error = await openai.chat.completions
      .create({ model: "fake-model", messages: [{ role: "user", content: "hi" }] })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    assert.ok(error instanceof OpenAI.RateLimitError);
    assert.equal(error.status, 429);
    assert.match(error.message, /slow down/);
    assert.equal(error.code, "rate_limit_exceeded");
    assert.equal(error.headers?.get("retry-after"), "7");
  });
});

describe("openai responses", () => {
  test("streamed function call accumulates into the final response", async () => {
    fake.setScript([
      { reasoning: "Need the weather.", toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] },
    ]);
    const stream = openai.responses.stream({ model: "fake-model", input: "weather in Oslo?" });
    const deltas: string[] = [];
    stream.on("response.function_call_arguments.delta", (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    assert.ok(deltas.length > 1, "arguments arrive in several deltas");
    const [reasoning, call] = response.output;
    assert.equal(reasoning?.type, "reasoning");
    assert.equal(call?.type, "function_call");
    if (call?.type !== "function_call") return;
    assert.match(call.id ?? "", /^fc_/);
    assert.match(call.call_id, /^call_/);
    assert.equal(call.name, "get_weather");
    assert.equal(call.arguments, '{"city":"Oslo"}');
    assert.equal(response.status, "completed");
    assert.ok(response.usage && response.usage.output_tokens_details.reasoning_tokens > 0);
  });

  test("raw stream events and a non-streaming reply carry text and usage", async () => {
    fake.setScript([{ text: "Hello there", usage: { input: 10, output: 3, cacheRead: 5 } }, { text: "Hello again" }]);
    const stream = await openai.responses.create({ model: "fake-model", input: "hi", stream: true });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") {
        assert.equal(event.response.usage?.input_tokens, 15);
        assert.equal(event.response.usage?.input_tokens_details.cached_tokens, 5);
      }
    }
    assert.equal(text, "Hello there");
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");
    const response = await openai.responses.create({ model: "fake-model", input: "hi" });
    assert.equal(response.output_text, "Hello again");
  });

  test("a length finish reports an incomplete response", async () => {
    fake.setScript([{ text: "cut sho", finish: "length" }]);
    const response = await openai.responses.create({ model: "fake-model", input: "hi" });
    assert.equal(response.status, "incomplete");
    assert.equal(response.incomplete_details?.reason, "max_output_tokens");
  });
});

describe("anthropic messages", () => {
  const turn: ScriptedTurn = {
    reasoning: "Think about the file first.",
    reasoningSignature: "c2lnbmF0dXJl",
    text: "Reading it now.",
    toolCalls: [{ id: "toolu_read", name: "read_file", arguments: { path: "a.txt" } }],
    usage: { input: 30, output: 20, cacheRead: 500, cacheWrite: 40 },
  };
  const params = {
    model: "claude-fake",
    max_tokens: 1024,
    messages: [{ role: "user" as const, content: "read a.txt" }],
  };

  test("stream helper assembles thinking with signature, text and tool_use", async () => {
    fake.setScript([turn]);
    const stream = anthropic.messages.stream(params);
    let thinking = "";
    stream.on("thinking", (delta) => {
      thinking += delta;
    });
    const message = await stream.finalMessage();
    assert.equal(thinking, turn.reasoning);
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: turn.reasoning, signature: "c2lnbmF0dXJl" },
      { type: "text", text: "Reading it now." },
      { type: "tool_use", id: "toolu_read", name: "read_file", input: { path: "a.txt" } },
    ]);
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.usage.input_tokens, 30);
    assert.equal(message.usage.output_tokens, 20);
    assert.equal(message.usage.cache_read_input_tokens, 500);
    assert.equal(message.usage.cache_creation_input_tokens, 40);
    const recorded = fake.requests.at(-1);
    assert.equal(recorded?.protocol, "anthropic_messages");
    assert.equal(recorded?.stream, true);
    assert.ok(recorded?.headers["anthropic-version"]);
  });

  test("non-streaming reply parses", async () => {
    fake.setScript([turn]);
    const message = await anthropic.messages.create(params);
    assert.equal(message.type, "message");
    assert.deepEqual(
      message.content.map((block) => block.type),
      ["thinking", "text", "tool_use"],
    );
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.usage.cache_read_input_tokens, 500);
  });

  test("a length finish maps to max_tokens", async () => {
    fake.setScript([{ text: "partial", finish: "length" }]);
    const message = await anthropic.messages.create(params);
    assert.equal(message.stop_reason, "max_tokens");
  });

  test("an error status becomes the SDK's APIError with the error type", async () => {
    fake.setScript([{ fault: { kind: "status", status: 529, message: "Overloaded" } }]);
    const error = await anthropic.messages.create(params).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error instanceof Anthropic.APIError);
    assert.equal(error.status, 529);
    assert.match(error.message, /Overloaded/);
    assert.deepEqual(error.error, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
  });
});

describe("bedrock converse", () => {
  const modelId = "anthropic.claude-fake-v1:0";
  const turn: ScriptedTurn = {
    reasoning: "Look at the directory.",
    text: "Listing files.",
    toolCalls: [{ id: "tooluse_ls", name: "list_dir", arguments: { path: "/tmp", depth: 2 } }],
    usage: { input: 50, output: 25, cacheRead: 300, cacheWrite: 20 },
  };
  const input = { modelId, messages: [{ role: "user" as const, content: [{ text: "list /tmp" }] }] };

  test("ConverseCommand parses text, reasoning, toolUse and usage", async () => {
    fake.setScript([turn]);
    const reply = await bedrock.send(new ConverseCommand(input));
    const content = reply.output?.message?.content ?? [];
    assert.equal(content[0]?.reasoningContent?.reasoningText?.text, turn.reasoning);
    assert.equal(content[1]?.text, "Listing files.");
    assert.deepEqual(content[2]?.toolUse, {
      toolUseId: "tooluse_ls",
      name: "list_dir",
      input: { path: "/tmp", depth: 2 },
    });
    assert.equal(reply.stopReason, "tool_use");
    assert.equal(reply.usage?.inputTokens, 50);
    assert.equal(reply.usage?.cacheReadInputTokens, 300);
    assert.equal(reply.usage?.cacheWriteInputTokens, 20);
    const recorded = fake.requests.at(-1);
    assert.equal(recorded?.protocol, "bedrock_converse");
    assert.equal(recorded?.stream, false);
    assert.match(recorded?.headers.authorization ?? "", /^AWS4-HMAC-SHA256/);
  });

  test("ConverseStreamCommand decodes the binary event stream", async () => {
    fake.setScript([turn]);
    const reply = await bedrock.send(new ConverseStreamCommand(input));
    let text = "";
    let reasoning = "";
    let signature = "";
    let toolInput = "";
    let toolStart: { toolUseId?: string; name?: string } | undefined;
    let stopReason: string | undefined;
    let outputTokens: number | undefined;
    for await (const event of reply.stream ?? []) {
      if (event.contentBlockStart?.start?.toolUse) toolStart = event.contentBlockStart.start.toolUse;
      const delta = event.contentBlockDelta?.delta;
      text += delta?.text ?? "";
      reasoning += delta?.reasoningContent?.text ?? "";
      signature += delta?.reasoningContent?.signature ?? "";
      toolInput += delta?.toolUse?.input ?? "";
      stopReason = event.messageStop?.stopReason ?? stopReason;
      outputTokens = event.metadata?.usage?.outputTokens ?? outputTokens;
    }
    assert.equal(text, "Listing files.");
    assert.equal(reasoning, turn.reasoning);
    assert.ok(signature.length > 0);
    assert.deepEqual(toolStart, { toolUseId: "tooluse_ls", name: "list_dir" });
    assert.deepEqual(JSON.parse(toolInput), { path: "/tmp", depth: 2 });
    assert.equal(stopReason, "tool_use");
    assert.equal(outputTokens, 25);
    assert.equal(fake.requests.at(-1)?.path, `/model/${encodeURIComponent(modelId)}/converse-stream`);
  });

  test("an error status becomes the modelled exception", async () => {
    fake.setScript([{ fault: { kind: "status", status: 429, message: "Too many requests" } }]);
    const error = await bedrock.send(new ConverseCommand(input)).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(error instanceof ThrottlingException);
    assert.equal(error.message, "Too many requests");
    assert.equal(error.$metadata.httpStatusCode, 429);
  });
});
