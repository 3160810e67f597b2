import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  estimateCost,
  priceFor,
  usageFromAnthropic,
  usageFromBedrock,
  usageFromChatCompletions,
  usageFromResponses,
} from "../../src/llm/usage.js";

describe("usage normalisation", () => {
  test("chat completions: prompt includes cache; DeepSeek's hit counter is a cache read", () => {
    assert.deepEqual(
      usageFromChatCompletions({
        prompt_tokens: 100,
        completion_tokens: 10,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 4 },
      }),
      { inputTokens: 100, outputTokens: 10, cacheReadTokens: 60, cacheWriteTokens: 0, reasoningTokens: 4 },
    );
    assert.equal(usageFromChatCompletions({ prompt_tokens: 50, prompt_cache_hit_tokens: 30 }).cacheReadTokens, 30);
  });

  test("anthropic and bedrock add the cached parts back into the prompt total", () => {
    const expected = {
      inputTokens: 111,
      outputTokens: 5,
      cacheReadTokens: 100,
      cacheWriteTokens: 10,
      reasoningTokens: 0,
    };
    assert.deepEqual(
      usageFromAnthropic({
        input_tokens: 1,
        output_tokens: 5,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 10,
      }),
      expected,
    );
    assert.deepEqual(
      usageFromBedrock({ inputTokens: 1, outputTokens: 5, cacheReadInputTokens: 100, cacheWriteInputTokens: 10 }),
      expected,
    );
  });

  test("responses reads the nested details", () => {
    assert.deepEqual(
      usageFromResponses({
        input_tokens: 10,
        output_tokens: 3,
        input_tokens_details: { cached_tokens: 8 },
        output_tokens_details: { reasoning_tokens: 2 },
      }),
      { inputTokens: 10, outputTokens: 3, cacheReadTokens: 8, cacheWriteTokens: 0, reasoningTokens: 2 },
    );
  });
});

describe("estimateCost", () => {
  test("prices uncached input, cache reads, cache writes and output separately", () => {
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 100_000,
      cacheReadTokens: 500_000,
      cacheWriteTokens: 100_000,
      reasoningTokens: 0,
    };
    // Sonnet 4.x: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    const expected = 0.4 * 3 + 0.5 * 0.3 + 0.1 * 3.75 + 0.1 * 15;
    const cost = estimateCost("anthropic/claude-sonnet-4.5", usage);
    assert.ok(cost !== undefined && Math.abs(cost - expected) < 1e-9, String(cost));
  });

  test("picks the longest matching price prefix and reports unknown models as undefined", () => {
    assert.equal(priceFor("gpt-4.1-mini-2025-04-14")?.input, 0.4);
    assert.equal(priceFor("gpt-4.1")?.input, 2);
    assert.equal(priceFor("claude-opus-4-1")?.input, 15);
    assert.equal(priceFor("claude-opus-4-5")?.input, 5);
    const zero = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    assert.equal(estimateCost("my-local-model", zero), undefined);
  });
});
