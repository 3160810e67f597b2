import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { type ClassifiedError, classifyApiError, LlmError, llmErrorFromResponse } from "../../src/llm/errors.js";

interface Case {
  id: string;
  input: { call: string; args: [unknown, Record<string, unknown>?] };
  expect: { fields?: Record<string, unknown>; fieldContains?: Record<string, string[]> };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/error-classifier.json", import.meta.url), "utf8"),
) as { cases: Case[] };

for (const c of fixture.cases) {
  test(`fixture ${c.id}`, () => {
    const [error, ctx] = c.input.args;
    const result = classifyApiError(error, ctx ?? {}) as unknown as Record<string, unknown>;
    for (const [field, expected] of Object.entries(c.expect.fields ?? {})) {
      assert.deepEqual(result[field], expected, `${field} of ${JSON.stringify(result)}`);
    }
    for (const [field, parts] of Object.entries(c.expect.fieldContains ?? {})) {
      for (const part of parts) assert.ok(String(result[field]).includes(part), `${field} should contain ${part}`);
    }
  });
}

const NOW_MS = Date.parse("2026-03-01T12:00:00Z");
const classify = (error: unknown, ctx: Record<string, unknown> = {}): ClassifiedError =>
  classifyApiError(error, { nowMs: NOW_MS, ...ctx });

test("an LlmError carries its status, body and headers into the classification", () => {
  const error = new LlmError("openrouter HTTP 429", {
    kind: "http",
    status: 429,
    body: { error: { message: "Rate limit exceeded", code: "rate_limit_exceeded" } },
    headers: { "retry-after": "17" },
    provider: "openrouter",
  });
  const result = classify(error);
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.statusCode, 429);
  assert.equal(result.retryAfterSeconds, 17);
  assert.equal(result.resetAt, NOW_MS / 1000 + 17);
  assert.equal(result.errorCode, "rate_limit_exceeded");
  assert.ok(result.message.includes("Rate limit exceeded"));
});

test("retry-after given as an HTTP date becomes seconds from now", () => {
  const headers = { "Retry-After": new Date(NOW_MS + 90_000).toUTCString() };
  const result = classify({ status: 503, message: "Service Unavailable", headers });
  assert.equal(result.reason, "overloaded");
  assert.equal(result.retryAfterSeconds, 90);
});

test("retry-after-ms is preferred over retry-after", () => {
  const result = classify({ status: 429, message: "slow", headers: { "retry-after-ms": "1500", "retry-after": "2" } });
  assert.equal(result.retryAfterSeconds, 1.5);
});

test("OpenAI reset headers pick the exhausted limit", () => {
  const headers = {
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "6m0s",
    "x-ratelimit-remaining-tokens": "5000",
    "x-ratelimit-reset-tokens": "20ms",
  };
  const result = classify({ status: 429, message: "Too Many Requests", headers });
  assert.equal(result.retryAfterSeconds, 360);
});

test("Anthropic reset headers (RFC 3339) give resetAt", () => {
  const reset = "2026-03-01T12:00:42Z";
  const headers = new Headers({
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": reset,
    "anthropic-ratelimit-tokens-remaining": "1000",
    "anthropic-ratelimit-tokens-reset": "2026-03-01T12:00:01Z",
  });
  const result = classify({ status: 429, message: "rate_limit_error", headers });
  assert.equal(result.resetAt, Date.parse(reset) / 1000);
  assert.equal(result.retryAfterSeconds, 42);
});

test("OpenRouter epoch-millisecond reset nested in the error metadata is read", () => {
  const resetMs = NOW_MS + 30_000;
  const body = {
    error: {
      message: "Rate limit exceeded: free-models-per-min.",
      code: 429,
      metadata: { headers: { "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": String(resetMs) } },
    },
  };
  const result = classify({ message: "Provider error", body });
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.statusCode, 429, "a numeric body code stands in for a missing status");
  assert.equal(result.retryAfterSeconds, 30);
});

test("rate-limit reset headers are ignored for errors that are not about quota", () => {
  const result = classify({ status: 500, message: "boom", headers: { "x-ratelimit-reset-requests": "1h" } });
  assert.equal(result.reason, "server_error");
  assert.equal(result.retryAfterSeconds, undefined);
});

test("'try again in 5 minutes' becomes a five-minute wait", () => {
  const result = classify({ status: 402, message: "usage limit exceeded. try again in 5 minutes" });
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.retryAfterSeconds, 300);
});

test("Google RetryInfo retryDelay is honoured", () => {
  const body = [
    {
      error: {
        code: 429,
        message: "Quota exceeded for metric generate_content_requests",
        status: "RESOURCE_EXHAUSTED",
        details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }],
      },
    },
  ];
  const result = classify({ message: "gemini failed", body });
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.retryAfterSeconds, 37);
});

test("a JSON body given as text is parsed", () => {
  const result = classify({
    status: 400,
    body: '{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum"}}',
  });
  assert.equal(result.reason, "context_overflow");
  assert.equal(result.contextLimit, 200000);
});

test("context overflow reports how many output tokens still fit", () => {
  const message = "input length and `max_tokens` exceed context limit: 190000 + 32000 > 200000";
  const result = classify({ status: 400, message });
  assert.equal(result.reason, "context_overflow");
  assert.equal(result.availableOutputTokens, 10000);
  assert.equal(result.contextLimit, 200000);
});

test("an Anthropic SDK-style error (status plus nested body under `error`) classifies", () => {
  const result = classify({
    status: 529,
    message: "529 overloaded",
    error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  });
  assert.equal(result.reason, "overloaded");
  assert.equal(result.shouldRotateCredential, false);
});

test("transport failures wrapped by fetch ('fetch failed' with a cause code) are timeouts", () => {
  const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
  const result = classify(new TypeError("fetch failed", { cause }));
  assert.equal(result.reason, "timeout");
  assert.equal(result.errorCode, "ECONNREFUSED");
  assert.equal(result.retryable, true);
});

test("a TLS alert mid-stream is retried as a timeout even on a huge session", () => {
  const error = new LlmError("stream broke", {
    kind: "disconnect",
    cause: Object.assign(new Error("SSL alert: bad record mac"), {
      code: "ERR_SSL_DECRYPTION_FAILED_OR_BAD_RECORD_MAC",
    }),
  });
  const result = classify(error, { approxTokens: 190000, contextLength: 200000 });
  assert.equal(result.reason, "timeout");
  assert.equal(result.shouldCompress, false);
});

test("a disconnect on a small session is a timeout, not an overflow", () => {
  const error = new LlmError("The connection closed early", { kind: "disconnect" });
  assert.equal(classify(error, { approxTokens: 1000, contextLength: 200000 }).reason, "timeout");
  assert.equal(classify(error, { approxTokens: 150000, contextLength: 200000 }).reason, "context_overflow");
});

test("LlmError kinds map to their reasons", () => {
  assert.equal(classify(new LlmError("stalled", { kind: "stale_stream" })).reason, "timeout");
  assert.equal(classify(new LlmError("garbage chunk", { kind: "malformed" })).reason, "server_error");
  const aborted = classify(new LlmError("cancelled", { kind: "abort" }));
  assert.equal(aborted.reason, "aborted");
  assert.equal(aborted.retryable, false);
  assert.equal(aborted.shouldFallback, false);
});

test("a plain AbortError is not retried", () => {
  const error = new Error("The operation was aborted");
  error.name = "AbortError";
  assert.equal(classify(error).retryable, false);
});

test("Anthropic long-context tier gate is recognised", () => {
  const result = classify({ status: 429, message: "Extra usage is required for long context requests." });
  assert.equal(result.reason, "long_context_tier");
  assert.equal(result.shouldCompress, true);
});

test("OpenAI 429 insufficient_quota is billing, not a rate limit", () => {
  const body = {
    error: {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      code: "insufficient_quota",
    },
  };
  const result = classify({ status: 429, message: "429", body });
  assert.equal(result.reason, "billing");
  assert.equal(result.retryable, false);
});

test("a 401 from the fake provider's OpenAI body shape is auth, not a format error", () => {
  const body = { error: { message: "bad key", type: "invalid_request_error", code: "invalid_api_key" } };
  assert.equal(classify({ status: 401, message: "401", body }).reason, "auth");
});

test("llmErrorFromResponse keeps status, parsed body and lower-cased headers", async () => {
  const response = new Response(JSON.stringify({ error: { message: "slow down", type: "rate_limit_error" } }), {
    status: 429,
    headers: { "Retry-After": "3", "content-type": "application/json" },
  });
  const error = await llmErrorFromResponse(response, { provider: "anthropic", model: "claude" });
  assert.equal(error.kind, "http");
  assert.equal(error.status, 429);
  assert.equal(error.headers?.["retry-after"], "3");
  assert.ok(error.message.includes("slow down"));
  const result = classify(error);
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.retryAfterSeconds, 3);
});

test("a non-JSON error body is kept as text and still classifies", async () => {
  const response = new Response("<html>502 Bad Gateway</html>", { status: 502 });
  const error = await llmErrorFromResponse(response);
  assert.equal(error.body, "<html>502 Bad Gateway</html>");
  assert.equal(classify(error).reason, "server_error");
});

test("a cyclic cause chain does not hang", () => {
  const a: Record<string, unknown> = { message: "outer" };
  a.cause = { message: "inner", cause: a };
  assert.equal(classify(a).reason, "unknown");
});
