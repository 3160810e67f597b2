import assert from "node:assert/strict";
import { test } from "node:test";
import {
  capOutputTokens,
  sanitizeInvalidText,
  stripReasoningContinuity,
  textOnlyToolResults,
  withoutReasoningOff,
} from "../../src/agent/recovery/request-fixes.js";
import type { LlmRequest, Message } from "../../src/llm/types.js";

const base: LlmRequest = {
  model: "m",
  messages: [
    { role: "user", content: [{ type: "text", text: "a\uDC00b" }] },
    {
      role: "assistant",
      content: null,
      reasoning: "visible",
      reasoningContinuity: { anthropicThinking: [{ type: "thinking", thinking: "t", signature: "s" }] },
      tool_calls: [{ id: "c1", type: "function", function: { name: "echo", arguments: '{"text":"x\uD800"}' } }],
    },
    { role: "tool", tool_call_id: "c1", content: "fine 😀" },
  ],
};

test("sanitizing replaces lone surrogates everywhere, keeps valid pairs, and copies instead of mutating", () => {
  const { request, changed } = sanitizeInvalidText(base);
  assert.equal(changed, true);
  const json = JSON.stringify(request);
  assert.doesNotMatch(json, /\\ud[89a-f][0-9a-f]{2}/i);
  assert.match(json, /a\uFFFDb/);
  assert.equal(request.messages[2], base.messages[2], "untouched messages are shared, not copied");
  assert.equal(request.messages[2]!.content, "fine 😀");
  assert.equal((base.messages[0]!.content as Array<{ text: string }>)[0]!.text, "a\uDC00b");
  assert.equal(sanitizeInvalidText(request).changed, false);
});

test("stripping reasoning continuity keeps the visible reasoning text", () => {
  const { request, changed } = stripReasoningContinuity(base);
  assert.equal(changed, true);
  assert.equal(request.messages[1]!.reasoningContinuity, undefined);
  assert.equal(request.messages[1]!.reasoning, "visible");
  assert.ok(base.messages[1]!.reasoningContinuity);
  assert.equal(stripReasoningContinuity(request).changed, false);
});

test("the output cap only ever lowers max_tokens", () => {
  assert.equal(capOutputTokens({ ...base, maxTokens: 100 }, 500).changed, false);
  assert.equal(capOutputTokens({ ...base, maxTokens: 1000 }, 500).request.maxTokens, 500);
  assert.equal(capOutputTokens(base, 500).request.maxTokens, 500);
});

test("stripping can be limited to given messages", () => {
  const only = new WeakSet<Message>();
  assert.equal(stripReasoningContinuity(base, only).changed, false);
  only.add(base.messages[1]!);
  const { request, changed } = stripReasoningContinuity(base, only);
  assert.equal(changed, true);
  assert.equal(request.messages[1]!.reasoningContinuity, undefined);
});

test("tool results made of parts become text with a note per image; other messages keep their parts", () => {
  const image = { type: "image_url" as const, image_url: { url: "data:image/png;base64,AA==" } };
  const request: LlmRequest = {
    model: "m",
    messages: [
      { role: "user", content: [{ type: "text", text: "see" }, image] },
      {
        role: "tool",
        tool_call_id: "a",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      { role: "tool", tool_call_id: "b", content: [image, image] },
      { role: "tool", tool_call_id: "c", content: "plain" },
    ],
  };
  const { request: out, changed } = textOnlyToolResults(request);
  assert.equal(changed, true);
  assert.equal(out.messages[0], request.messages[0]);
  assert.equal(out.messages[1]!.content, "one\ntwo");
  assert.equal(out.messages[2]!.content, "[2 images left out: this model takes only text in tool results]");
  assert.equal(out.messages[3], request.messages[3]);
  assert.equal(textOnlyToolResults(out).changed, false);
});

test("only what turns reasoning off is dropped", () => {
  const request: LlmRequest = {
    model: "m",
    messages: [],
    reasoningEffort: "none",
    extraBody: { reasoning: { enabled: false }, thinking: { type: "disabled" }, top_k: 4 },
  };
  const { request: out, changed } = withoutReasoningOff(request);
  assert.equal(changed, true);
  assert.equal(out.reasoningEffort, undefined);
  assert.deepEqual(out.extraBody, { top_k: 4 });
  assert.equal(request.reasoningEffort, "none", "the original request is not mutated");
  const kept: LlmRequest = {
    model: "m",
    messages: [],
    reasoningEffort: "low",
    extraBody: { reasoning: { effort: "low" } },
  };
  assert.equal(withoutReasoningOff(kept).changed, false);
  assert.equal(
    withoutReasoningOff({ model: "m", messages: [], extraBody: { reasoning_effort: "none" } }).request.extraBody!
      .reasoning_effort,
    undefined,
  );
});
