import assert from "node:assert/strict";
import { test } from "node:test";
import { prefixedModelFor } from "../../src/llm/error-model-ids.js";
import { classifyApiError } from "../../src/llm/errors.js";

import { v, verdict } from "./verdicts.js";

const RATE_LIMIT = v("rate_limit", true, false, true, true);
const FORMAT = v("format_error", false, false, false, true);
const SERVER = v("server_error", true, false, false, false);
const TIMEOUT = v("timeout", true, false, false, false);
const UNKNOWN = v("unknown", true, false, false, false);
const MODEL_NOT_FOUND = v("model_not_found", false, false, false, true);
const REASONING = v("reasoning_mandatory", true, false, false, false);
const GRAMMAR = v("llama_cpp_grammar_pattern", true, false, false, false);
const OVERLOADED = v("overloaded", true, false, false, false);
const plain = (message: string, name = "Error") => ({ name, message });
const LARGE = { approxTokens: 180_000, contextLength: 200_000, numMessages: 400 };

// ── 429 ────────────────────────────────────────────────────────────────

test("a 429 is a rate limit unless the server is overloaded or the balance is spent", () => {
  for (const message of [
    "Monthly quota reached.",
    "API key limit exceeded.",
    "usage limit reached",
    "Rate limit exceeded: too many requests",
    "Provider returned error",
  ]) {
    assert.deepEqual(verdict({ status: 429, message }), RATE_LIMIT, message);
  }
  assert.deepEqual(
    verdict({ status: 429, message: "refused", body: { error: { type: "usage_limit_reached" } } }),
    RATE_LIMIT,
  );
  assert.deepEqual(verdict({ status: 429, message: "The service may be temporarily overloaded" }), OVERLOADED);
  assert.deepEqual(verdict(plain("quota hit", "RateLimitError")), RATE_LIMIT);
  assert.equal(
    classifyApiError({
      status: 429,
      message: "You exceeded your current quota",
      body: { error: { code: "insufficient_quota" } },
    }).reason,
    "billing",
  );
});

test("the new reset signals also make a 402 or a bare usage limit temporary", () => {
  assert.deepEqual(verdict({ status: 402, message: "usage limit reached, available in an hour" }), RATE_LIMIT);
  assert.deepEqual(verdict({ status: 402, message: "quota exceeded for this window" }), RATE_LIMIT);
  assert.deepEqual(verdict(plain("usage limit of 60 per minute")), RATE_LIMIT);
  assert.deepEqual(verdict(plain("periodic usage limit")), RATE_LIMIT);
  assert.deepEqual(verdict(plain("quota: 0 requests remaining")), RATE_LIMIT);
  assert.deepEqual(verdict(plain("usage limit of 60 per second")), RATE_LIMIT);
});

// ── 400: reasoning, transcript and injected-parameter rejections ────────

const MANDATORY =
  "Error code: 400 - This request is not valid. Check the model name and other parameters. Additional info: Reasoning is mandatory for this endpoint and cannot be disabled.";

test("a route that will not run without reasoning asks for a retry, not a fallback", () => {
  assert.deepEqual(verdict({ status: 400, message: MANDATORY }, { provider: "nous" }), REASONING);
  const withParam = { status: 400, message: "Unrecognized request argument: reasoning is mandatory here" };
  assert.deepEqual(verdict(withParam), REASONING);
});

test("reasoning-mandatory wording counts only on a 400", () => {
  assert.deepEqual(verdict(plain("Reasoning is mandatory for this endpoint")), UNKNOWN);
  assert.deepEqual(verdict({ status: 422, message: "Reasoning is mandatory for this endpoint" }), FORMAT);
});

test("a template with no user turn is a malformed transcript, not a grammar failure", () => {
  const message =
    'Engine protocol applyPromptTemplate request returned 400: {"error":{"code":400,"message":"Unable to generate parser for this template. Automatic parser generation failed: {{- raise_exception(\'No user query found in messages\')';
  assert.deepEqual(verdict({ status: 400, message }, { ...LARGE, provider: "custom" }), FORMAT);
  assert.deepEqual(verdict({ status: 400, message: "Unable to generate parser for this template" }), GRAMMAR);
});

test("a malformed transcript is format_error even when it mentions size", () => {
  for (const message of [
    "No user query found in messages after truncating input",
    "all messages must have non-empty content; prompt is too long",
    "messages must have non-empty text; context length 9000",
    "text content blocks must be non-empty (too many tokens?)",
    "content field is required; maximum context reached",
    "messages: at least one message is required (context window)",
  ]) {
    assert.deepEqual(verdict({ status: 400, message }, LARGE), FORMAT, message);
  }
  const coded = { error: { code: "INVALID_REQUEST_BODY", message: "prompt is too long" } };
  assert.deepEqual(verdict({ status: 400, message: "rejected", body: coded }), FORMAT);
});

const RETENTION = "prompt_cache_retention is not supported on this model";

test("a route that never sends prompt_cache_retention retries when told it is unsupported", () => {
  const body = { message: RETENTION, type: "invalid_request_error", param: "prompt_cache_retention" };
  assert.deepEqual(verdict({ status: 400, message: RETENTION, body }, { provider: "openai-codex" }), SERVER);
  assert.deepEqual(verdict({ status: 400, message: RETENTION }), SERVER);
  for (const message of [
    "Unsupported parameter: prompt_cache_retention",
    "Unknown field prompt_cache_retention",
    "Unrecognized request argument supplied: prompt_cache_retention",
  ]) {
    assert.deepEqual(verdict({ status: 400, message }, { provider: "openai-codex" }), SERVER, message);
  }
});

test("routes that do send prompt_cache_retention keep its rejection a format error", () => {
  for (const provider of ["meta", "muse-spark", "msl", "model-api", "bedrock", "Mantle"]) {
    assert.deepEqual(verdict({ status: 400, message: RETENTION }, { provider }), FORMAT, provider);
  }
});

test("prompt_cache_retention without a rejection word is not excused", () => {
  const message = "prompt_cache_retention must be one of in_memory or 24h";
  assert.deepEqual(verdict({ status: 400, message }, { provider: "openai-codex" }), FORMAT);
  assert.deepEqual(verdict({ status: 400, message: "max_tokens is not supported" }), FORMAT);
});

test("a 5xx rejecting an injected parameter is a server error, not a request error", () => {
  const message = "Unknown parameter: 'prompt_cache_retention'";
  assert.deepEqual(verdict({ status: 500, message }, { provider: "openai-codex" }), SERVER);
  assert.deepEqual(verdict({ status: 500, message }, { provider: "bedrock" }), FORMAT);
  assert.deepEqual(verdict({ status: 502, message: "Unknown parameter: 'frequency_penalty'" }), FORMAT);
});

// ── 404 with a model id missing its vendor ──────────────────────────────

test("a bare NVIDIA id the catalogue knows with a vendor is a missing model", () => {
  const err = { status: 404, message: "404 page not found" };
  assert.deepEqual(verdict(err, { provider: "nvidia", model: "nemotron-3-ultra-550b-a55b" }), MODEL_NOT_FOUND);
  assert.deepEqual(verdict(err, { provider: "nim", model: "glm-5.3" }), MODEL_NOT_FOUND);
  assert.deepEqual(verdict(err, { provider: " NVIDIA-NIM ", model: " Kimi-K2.6 " }), MODEL_NOT_FOUND);
});

test("a 404 for a prefixed, unknown or other provider's id stays unknown", () => {
  const err = { status: 404, message: "404 page not found" };
  assert.deepEqual(verdict(err, { provider: "nvidia", model: "nvidia/nemotron-3-ultra-550b-a55b" }), UNKNOWN);
  assert.deepEqual(verdict(err, { provider: "nvidia", model: "my-local-nim" }), UNKNOWN);
  assert.deepEqual(verdict(err, { provider: "openrouter", model: "nemotron-3-ultra-550b-a55b" }), UNKNOWN);
  assert.deepEqual(verdict(err, { provider: "nvidia" }), UNKNOWN);
  assert.deepEqual(verdict(err), UNKNOWN);
});

test("the catalogue lookup names the prefixed id", () => {
  assert.equal(prefixedModelFor("nvidia", "nemotron-3-super-120b-a12b"), "nvidia/nemotron-3-super-120b-a12b");
  assert.equal(prefixedModelFor("nvidia", "minimax-m3"), "minimaxai/minimax-m3");
  assert.equal(prefixedModelFor("nvidia", "nvidia/nemotron-3-super-120b-a12b"), undefined);
  assert.equal(prefixedModelFor("nvidia", "nemotron"), undefined);
  assert.equal(prefixedModelFor("nvidia", "   "), undefined);
  assert.equal(prefixedModelFor("constructor", "glm-5.3"), undefined);
  assert.equal(prefixedModelFor(undefined, "glm-5.3"), undefined);
  assert.equal(prefixedModelFor("nvidia", undefined), undefined);
});

// ── status-less failures ─────────────────────────────────────────────────

test("a connection that was never made is a timeout, whatever the session's size", () => {
  for (const message of [
    "connect ECONNREFUSED 127.0.0.1:11434",
    "getaddrinfo failed",
    "getaddrinfo ENOTFOUND api.example.com",
    "[Errno -3] Temporary failure in name resolution",
    "[Errno 8] nodename nor servname provided, or not known",
    "getaddrinfo EAI_AGAIN openrouter.ai",
    "Name or service not known",
    "No route to host",
    "[Errno 101] Network is unreachable",
    "network unreachable",
    "TypeError: Failed to fetch",
    "upstream connect error or disconnect/reset before headers",
  ]) {
    assert.deepEqual(verdict(plain(message, "RuntimeError")), TIMEOUT, message);
    assert.deepEqual(verdict(plain(message, "RuntimeError"), LARGE), TIMEOUT, message);
  }
});

test("an upstream that answered with an error is still a server error", () => {
  assert.deepEqual(verdict(plain("upstream error from the provider")), SERVER);
});

test("a gateway reporting that it could not connect upstream is a timeout", () => {
  assert.deepEqual(verdict(plain("upstream error: connection refused")), TIMEOUT);
  assert.deepEqual(verdict(plain("upstream error: fetch failed")), TIMEOUT);
});

const STALE =
  "Provider has been unresponsive (no response received) for 6 consecutive stale attempts — aborting this call to avoid an indefinite stall. Switch models or start a new session, then retry.";

test("a stale-call breaker's give-up is a timeout that goes straight to the fallback", () => {
  const expected = v("timeout", false, false, false, true);
  assert.deepEqual(verdict(plain(STALE, "RuntimeError"), { provider: "openrouter", ...LARGE }), expected);
  assert.deepEqual(verdict(plain("aborting this call after 6 consecutive stale attempts")), expected);
});

test("the breaker needs both of its phrases and no HTTP status", () => {
  assert.deepEqual(verdict(plain("6 consecutive stale attempts so far")), UNKNOWN);
  assert.deepEqual(verdict(plain("aborting this call")), UNKNOWN);
  assert.deepEqual(verdict({ status: 408, message: STALE }), TIMEOUT);
});

test("a plain-text stream error reporting failed validation is a format error", () => {
  const body = {
    error: {
      code: "provider_stream_non_json_data",
      message: "request validation failed: unsupported reasoning_effort",
    },
  };
  assert.deepEqual(verdict({ message: "Provider stream returned non-JSON SSE data", body }), FORMAT);
  const other = { error: { code: "provider_stream_non_json_data", message: "upstream sent HTML" } };
  assert.deepEqual(verdict({ message: "Provider stream returned non-JSON SSE data", body: other }), UNKNOWN);
  const otherCode = { error: { code: "stream_error", message: "request validation failed: bad effort" } };
  assert.deepEqual(verdict({ message: "stream failed", body: otherCode }), UNKNOWN);
});
