import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, streamText } from "ai";
import OpenAI from "openai";
import {
  type ChunkBase,
  chunk,
  completionId,
  completionObject,
  contentChunk,
  finalChunk,
  firstChunk,
  openAiUsage,
  reasoningChunk,
  SSE_DONE,
  sseData,
  usageChunk,
} from "../../src/api-server/chat-chunks.js";
import type { Message, Usage } from "../../src/llm/types.js";

const base: ChunkBase = { id: "chatcmpl-test", created: 1_700_000_000, model: "hermes-agent" };
const usage: Usage = {
  inputTokens: 120,
  outputTokens: 30,
  cacheReadTokens: 100,
  cacheWriteTokens: 0,
  reasoningTokens: 7,
};

/** A fetch that answers every request with `body`, so official clients parse our bytes offline. */
function replyWith(body: string, contentType: string): typeof fetch {
  return async () => new Response(body, { status: 200, headers: { "content-type": contentType } });
}

function streamBody(includeUsage: boolean): string {
  const parts = [
    sseData(firstChunk(base)),
    sseData(reasoningChunk(base, "let me ")),
    sseData(reasoningChunk(base, "think")),
    sseData(contentChunk(base, "Hello, ")),
    sseData(contentChunk(base, "world.")),
    sseData(finalChunk(base, "stop")),
    ...(includeUsage ? [sseData(usageChunk(base, usage))] : []),
    SSE_DONE,
  ];
  return parts.join("");
}

const turn: Message[] = [
  { role: "user", content: "hi" },
  { role: "assistant", content: null, reasoning: "plan", tool_calls: [] },
  { role: "tool", content: "r", tool_call_id: "c" },
  { role: "assistant", content: "Hello.", reasoning: "answer" },
];

describe("chat completion builders", () => {
  test("completion ids carry the chatcmpl- prefix and differ each time", () => {
    const a = completionId();
    assert.match(a, /^chatcmpl-[0-9a-f]{24}$/);
    assert.notEqual(a, completionId());
  });

  test("chunks repeat the base and carry one choice with its delta and finish reason", () => {
    assert.deepEqual(chunk(base, { content: "x" }, null), {
      id: "chatcmpl-test",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "hermes-agent",
      choices: [{ index: 0, delta: { content: "x" }, logprobs: null, finish_reason: null }],
    });
    assert.deepEqual(firstChunk(base).choices[0]?.delta, { role: "assistant", content: "" });
    assert.deepEqual(reasoningChunk(base, "r").choices[0]?.delta, { reasoning_content: "r" });
    assert.deepEqual(finalChunk(base).choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    assert.equal(finalChunk(base, "length").choices[0]?.finish_reason, "length");
  });

  test("usage maps to OpenAI's fields with cached and reasoning token details", () => {
    assert.deepEqual(openAiUsage(usage), {
      prompt_tokens: 120,
      completion_tokens: 30,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 7 },
    });
    assert.deepEqual(openAiUsage({ ...usage, cacheWriteTokens: 5 }).prompt_tokens_details, {
      cached_tokens: 100,
      cache_write_tokens: 5,
    });
  });

  test("the usage chunk has no choices", () => {
    const last = usageChunk(base, usage);
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.total_tokens, 150);
  });

  test("SSE framing is one data line per payload and a [DONE] sentinel", () => {
    assert.equal(sseData({ a: 1 }), 'data: {"a":1}\n\n');
    assert.equal(SSE_DONE, "data: [DONE]\n\n");
  });

  test("a completion object carries the answer, this turn's reasoning and the usage", () => {
    const body = completionObject(base, { finalResponse: "Hello.", usage, messages: turn });
    assert.equal(body.object, "chat.completion");
    assert.deepEqual(body.choices[0], {
      index: 0,
      message: { role: "assistant", content: "Hello.", refusal: null, reasoning_content: "plan\n\nanswer" },
      logprobs: null,
      finish_reason: "stop",
    });
    assert.equal(body.usage.prompt_tokens, 120);
    // Compile-time: our shapes are assignable to the official client's types.
    const typed: OpenAI.Chat.Completions.ChatCompletion = body;
    const typedChunk: OpenAI.Chat.Completions.ChatCompletionChunk = usageChunk(base, usage);
    assert.ok(typed && typedChunk);
  });

  test("a completion without reasoning has no reasoning_content, and an interrupted one finishes with length", () => {
    const plain = completionObject(base, { finalResponse: "ok", usage });
    assert.equal("reasoning_content" in plain.choices[0]!.message, false);
    const cut = completionObject(base, { finalResponse: "o", usage, interrupted: true });
    assert.equal(cut.choices[0]?.finish_reason, "length");
    const long = completionObject(base, {
      finalResponse: "o",
      usage,
      messages: [{ role: "assistant", content: "o", finish_reason: "length" }],
    });
    assert.equal(long.choices[0]?.finish_reason, "length");
  });
});

describe("chat completion output through the official clients", () => {
  test("the openai client iterates the stream with content, reasoning_content and usage", async () => {
    const client = new OpenAI({
      apiKey: "k",
      baseURL: "http://127.0.0.1:9/v1",
      maxRetries: 0,
      fetch: replyWith(streamBody(true), "text/event-stream"),
    });
    const stream = await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let reasoning = "";
    let finish: string | null = null;
    let seenUsage: unknown;
    for await (const part of stream) {
      assert.equal(part.object, "chat.completion.chunk");
      const choice = part.choices[0];
      const delta = choice?.delta as { content?: string; reasoning_content?: string } | undefined;
      content += delta?.content ?? "";
      reasoning += delta?.reasoning_content ?? "";
      finish = choice?.finish_reason ?? finish;
      if (part.usage) seenUsage = part.usage;
    }
    assert.equal(content, "Hello, world.");
    assert.equal(reasoning, "let me think");
    assert.equal(finish, "stop");
    assert.deepEqual(seenUsage, openAiUsage(usage));
  });

  test("the openai stream helper accumulates the chunks into a final completion", async () => {
    const client = new OpenAI({
      apiKey: "k",
      baseURL: "http://127.0.0.1:9/v1",
      maxRetries: 0,
      fetch: replyWith(streamBody(true), "text/event-stream"),
    });
    const runner = client.chat.completions.stream({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hi" }],
    });
    const final = await runner.finalChatCompletion();
    assert.equal(final.choices[0]?.message.content, "Hello, world.");
    assert.equal(final.choices[0]?.finish_reason, "stop");
  });

  test("the openai client returns the non-streamed completion intact", async () => {
    const body = completionObject(base, { finalResponse: "Hello.", usage, messages: turn });
    const client = new OpenAI({
      apiKey: "k",
      baseURL: "http://127.0.0.1:9/v1",
      maxRetries: 0,
      fetch: replyWith(JSON.stringify(body), "application/json"),
    });
    const completion = await client.chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.deepEqual(completion, body);
  });

  test("the AI SDK streams the text and reasoning with usage and no error part", async () => {
    const provider = createOpenAICompatible({
      name: "hermes",
      baseURL: "http://127.0.0.1:9/v1",
      includeUsage: true,
      fetch: replyWith(streamBody(true), "text/event-stream"),
    });
    const result = streamText({ model: provider.chatModel("hermes-agent"), prompt: "hi" });
    const kinds: string[] = [];
    let text = "";
    let reasoning = "";
    for await (const part of result.fullStream) {
      kinds.push(part.type);
      if (part.type === "error") assert.fail(`the AI SDK reported an error: ${String(part.error)}`);
      if (part.type === "text-delta") text += part.text;
      if (part.type === "reasoning-delta") reasoning += part.text;
    }
    assert.equal(text, "Hello, world.");
    assert.equal(reasoning, "let me think");
    assert.ok(kinds.includes("finish"));
    assert.equal(await result.finishReason, "stop");
    const total = await result.totalUsage;
    assert.equal(total.inputTokens, 120);
    assert.equal(total.outputTokens, 30);
  });

  test("the AI SDK streams a reply that has no usage chunk", async () => {
    const provider = createOpenAICompatible({
      name: "hermes",
      baseURL: "http://127.0.0.1:9/v1",
      fetch: replyWith(streamBody(false), "text/event-stream"),
    });
    const result = streamText({ model: provider.chatModel("hermes-agent"), prompt: "hi" });
    const kinds: string[] = [];
    for await (const part of result.fullStream) kinds.push(part.type);
    assert.equal(kinds.includes("error"), false);
    assert.equal(await result.text, "Hello, world.");
  });

  test("the AI SDK reads a non-streamed completion's text, reasoning and usage", async () => {
    const body = completionObject(base, { finalResponse: "Hello.", usage, messages: turn });
    const provider = createOpenAICompatible({
      name: "hermes",
      baseURL: "http://127.0.0.1:9/v1",
      fetch: replyWith(JSON.stringify(body), "application/json"),
    });
    const result = await generateText({ model: provider.chatModel("hermes-agent"), prompt: "hi" });
    assert.equal(result.text, "Hello.");
    assert.equal(result.reasoningText, "plan\n\nanswer");
    assert.equal(result.finishReason, "stop");
    assert.equal(result.usage.inputTokens, 120);
  });
});
