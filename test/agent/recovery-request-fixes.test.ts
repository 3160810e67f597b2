import assert from "node:assert/strict";
import { test } from "node:test";
import {
  capOutputTokens,
  sanitizeInvalidText,
  stripReasoningContinuity,
} from "../../src/agent/recovery/request-fixes.js";
import type { LlmRequest } from "../../src/llm/types.js";

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
