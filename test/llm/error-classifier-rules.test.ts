import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyApiError } from "../../src/llm/errors.js";

import { v, verdict } from "./verdicts.js";

const OVERFLOW = v("context_overflow", true, true, false, false);
const FORMAT = v("format_error", false, false, false, true);
const BILLING = v("billing", false, false, true, true);
const RATE_LIMIT = v("rate_limit", true, false, true, true);
const TIMEOUT = v("timeout", true, false, false, false);
const AUTH = v("auth", false, false, true, true);
const MODEL_NOT_FOUND = v("model_not_found", false, false, false, true);
const PAYLOAD = v("payload_too_large", true, true, false, false);
const POLICY = v("content_policy_blocked", false, false, false, true);
const GRAMMAR = v("llama_cpp_grammar_pattern", true, false, false, false);
const plain = (message: string, name = "Error") => ({ name, message });

for (const message of [
  "超过最大长度限制",
  "请求的上下文长度过长",
  "The engine prompt length 1327246 exceeds the max_model_len 131072. Please reduce prompt.",
  "prompt length 200000 exceeds maximum model length 131072",
  "slot context: 4096 tokens, prompt 8192 tokens — not enough space",
  "request (9000 tokens) does not fit: n_ctx_slot = 8192",
  "truncating input to fit",
  "max input token count reached",
  "Your request exceeds the limit for this model",
  '{"error": {"code": "1210", "message": "tokens in request more than max tokens allowed"}}',
  "Input length 131393 exceeds the maximum allowed input length of 131040 tokens.",
  "input token count 250000 exceeds the maximum number of input tokens",
]) {
  test(`context overflow wording on a 400: ${message.slice(0, 48)}`, () => {
    assert.deepEqual(verdict({ status: 400, message }), OVERFLOW);
  });
}

test("the new overflow wording also works without a status", () => {
  assert.deepEqual(
    verdict(plain("Input length 131393 exceeds the maximum allowed input length of 131040 tokens.")),
    OVERFLOW,
  );
  assert.deepEqual(verdict(plain("vllm: max_model_len is 8192")), OVERFLOW);
});

for (const message of [
  "parse: error parsing grammar: unknown escape at \\d",
  "Unable to generate parser for this template",
  "json-schema-to-grammar failed to convert schema",
]) {
  test(`llama.cpp grammar failure on a 400: ${message}`, () => {
    assert.deepEqual(verdict({ status: 400, message }), GRAMMAR);
  });
}

test("grammar wording on a 500 is a server error, and a parser failure needs the template", () => {
  assert.deepEqual(
    verdict({ status: 500, message: "error parsing grammar" }),
    v("server_error", true, false, false, false),
  );
  assert.deepEqual(verdict({ status: 400, message: "Unable to generate parser" }), FORMAT);
});

test("the long context beta refused to a subscription is retried without compression", () => {
  const error = { status: 400, message: "The long context beta is not yet available for this subscription." };
  assert.deepEqual(verdict(error), v("oauth_long_context_beta_forbidden", true, false, false, false));
  assert.deepEqual(
    verdict({ status: 429, message: "The long context beta is not yet available for this subscription." }),
    RATE_LIMIT,
  );
});

test("tool content a provider cannot take as a list is its own reason", () => {
  const mimo = "Error code: 400 - {'error': {'code': '400', 'message': 'Param Incorrect', 'param': 'text is not set'}}";
  const expected = v("multimodal_tool_content_unsupported", true, false, false, false);
  assert.deepEqual(verdict({ status: 400, message: mimo }), expected);
  assert.deepEqual(verdict({ status: 400, message: "tool message content must be a string" }), expected);
  assert.deepEqual(verdict({ status: 400, message: "messages[3].content: expected string, got list" }), expected);
  assert.deepEqual(verdict(plain("tool_call.content must be string")), expected);
});

test("an encrypted reasoning item the provider cannot verify is retried, not a fallback", () => {
  const expected = v("invalid_encrypted_content", true, false, false, false);
  const body = { error: { code: "INVALID_ENCRYPTED_CONTENT", message: "Bad request" } };
  assert.deepEqual(verdict({ status: 400, message: "Error code: 400 - bad request", body }), expected);
  assert.deepEqual(verdict({ message: "failed", body }), expected);
  const wording = "The encrypted content for item rs_1 could not be verified.";
  assert.deepEqual(verdict({ status: 400, message: wording }), expected);
  assert.equal(classifyApiError({ status: 400, message: "x", body }).errorCode, "invalid_encrypted_content");
});

test("OpenSSL 3 alert wording is a transport hiccup even on a large session", () => {
  const large = { approxTokens: 190_000, contextLength: 200_000, numMessages: 300 };
  assert.deepEqual(verdict(plain("ERR_SSL_SSL/TLS_ALERT_BAD_RECORD_MAC during streaming"), large), TIMEOUT);
  assert.deepEqual(verdict(plain("peer closed: SSLV3_ALERT_HANDSHAKE_FAILURE"), large), TIMEOUT);
  assert.deepEqual(verdict(plain("connection lost: tls_alert_internal_error"), large), TIMEOUT);
  assert.deepEqual(verdict(plain("[SSL: UNKNOWN] connection closed"), large), TIMEOUT);
  assert.deepEqual(verdict(plain("tlsv1 alert protocol version"), large), TIMEOUT);
});

test("a 5xx naming an unknown or unsupported parameter is a format error", () => {
  const unknown = { error: { message: "Unknown parameter: 'frequency_penalty'", code: "unknown_parameter" } };
  assert.deepEqual(verdict({ status: 502, message: "Unknown parameter: 'frequency_penalty'", body: unknown }), FORMAT);
  assert.deepEqual(verdict({ status: 500, message: "upstream said no", body: unknown }), FORMAT);
  const unsupported = { error: { message: "rejected", code: "unsupported_parameter" } };
  assert.deepEqual(verdict({ status: 503, message: "rejected", body: unsupported }), FORMAT);
  assert.deepEqual(verdict({ status: 500, message: "unrecognized request argument supplied: foo" }), FORMAT);
});

test("a 400 parameter complaint that names a context field is not an overflow", () => {
  assert.deepEqual(verdict({ status: 400, message: "Unknown parameter: 'context_length'" }), FORMAT);
  assert.deepEqual(verdict({ status: 400, message: "unsupported_parameter: context_window" }), FORMAT);
});

test("running out of extra usage is billing", () => {
  const text = "You're out of extra usage. Add more at claude.ai/settings/usage and keep going.";
  const body = { error: { type: "invalid_request_error", message: text } };
  assert.deepEqual(verdict({ status: 400, message: text, body }), BILLING);
  assert.deepEqual(verdict(plain(text)), BILLING);
  assert.deepEqual(verdict({ status: 429, message: text }), BILLING);
});

test("the long-context tier gate needs both extra usage and long context", () => {
  const tier = v("long_context_tier", true, true, false, false);
  assert.deepEqual(verdict({ status: 429, message: "Extra usage is required for long context requests" }), tier);
  assert.deepEqual(verdict({ status: 429, message: "You're out of extra usage for long-context requests" }), tier);
  assert.deepEqual(verdict({ status: 429, message: "long context requests are limited" }), RATE_LIMIT);
  assert.deepEqual(verdict({ status: 400, message: "Extra usage is required for long context requests" }), tier);
});

test("resource-exhausted spellings are rate limits, not billing", () => {
  for (const prefix of ["ResourceExhausted", "resource-exhausted", "RESOURCE_EXHAUSTED", "resource exhausted"]) {
    assert.deepEqual(verdict(plain(`${prefix}: Worker local total request limit reached (32/32)`)), RATE_LIMIT, prefix);
  }
});

test("a throttling message about too many tokens is a rate limit", () => {
  const message = "Throttling error: Too many tokens, please wait before trying again.";
  assert.deepEqual(verdict(plain(message), { provider: "bedrock" }), RATE_LIMIT);
  assert.deepEqual(verdict(plain("Too many tokens")), OVERFLOW);
});

test("other client errors are format errors", () => {
  for (const status of [405, 409, 410, 418, 451]) {
    assert.deepEqual(verdict({ status, message: "No" }), FORMAT, String(status));
  }
  assert.equal(
    classifyApiError({ status: 200, message: "loading", body: { error: { message: "loading" } } }).reason,
    "unknown",
  );
});

test("payload too large is recognised from text alone", () => {
  assert.deepEqual(verdict(plain("payload too large")), PAYLOAD);
  assert.deepEqual(verdict(plain("Error code: 413 - request rejected")), PAYLOAD);
  assert.deepEqual(verdict(plain("Request Entity Too Large")), PAYLOAD);
  assert.deepEqual(
    verdict(plain('{"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}')),
    PAYLOAD,
  );
  assert.equal(classifyApiError(plain("Error code: 4130")).reason, "unknown");
});

test("more body codes are recognised", () => {
  const withCode = (code: string) => ({
    message: "Provider returned an error",
    body: { error: { code, message: "x" } },
  });
  assert.deepEqual(verdict(withCode("max_tokens_exceeded")), OVERFLOW);
  assert.deepEqual(verdict(withCode("model_not_available")), MODEL_NOT_FOUND);
  assert.deepEqual(verdict(withCode("invalid_model")), MODEL_NOT_FOUND);
  for (const code of [
    "no_usable_credits",
    "balance_depleted",
    "model_not_supported_on_free_tier",
    "billing_not_active",
  ]) {
    assert.deepEqual(verdict(withCode(code)), BILLING, code);
  }
  assert.deepEqual(verdict(withCode("throttled")), RATE_LIMIT);
});

test("more billing, auth and model wording is recognised", () => {
  assert.deepEqual(verdict(plain("credits exhausted for this key")), BILLING);
  assert.deepEqual(verdict(plain("Your credits have been exhausted")), BILLING);
  assert.deepEqual(verdict(plain("You have run out of funds")), BILLING);
  assert.deepEqual(verdict(plain("no usable credits on this account")), BILLING);
  assert.deepEqual(verdict(plain("access denied")), AUTH);
  assert.deepEqual(verdict(plain("unsupported model: foo")), MODEL_NOT_FOUND);
  assert.deepEqual(verdict({ status: 400, message: "unsupported model: foo" }), MODEL_NOT_FOUND);
});

test("a missing Grok subscription is auth that keeps the credential", () => {
  const expected = v("auth", false, false, false, true);
  const message = "You have either run out of available resources or do not have an active Grok subscription";
  assert.deepEqual(verdict(plain(message)), expected);
  assert.deepEqual(verdict({ status: 429, message }), expected);
  assert.deepEqual(verdict(plain("out of available resources on grok-4")), expected);
});

test("a RateLimitError without a status counts as a 429", () => {
  const result = classifyApiError(plain("request refused", "RateLimitError"));
  assert.equal(result.reason, "rate_limit");
  assert.equal(result.statusCode, 429);
  const wrapped = classifyApiError({ name: "Error", message: "x", cause: plain("request refused", "RateLimitError") });
  assert.equal(wrapped.statusCode, undefined);
  assert.equal(classifyApiError({ name: "RateLimitError", message: "x", status: 503 }).statusCode, 503);
});

test("edited reasoning blocks in the latest turn are a thinking-signature failure", () => {
  const expected = v("thinking_signature", true, false, false, false);
  const edited =
    "messages.3.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified.";
  assert.deepEqual(verdict({ status: 400, message: edited }), expected);
  assert.deepEqual(verdict({ status: 400, message: "thinking blocks must remain as they were" }), expected);
  assert.deepEqual(verdict({ status: 400, message: "this field cannot be modified" }), FORMAT);
  assert.deepEqual(verdict({ status: 400, message: "invalid signature" }), FORMAT);
});

test("verbatim safety refusals win under any status", () => {
  assert.deepEqual(verdict({ status: 500, message: "Request blocked: content_filter" }), POLICY);
  assert.deepEqual(verdict({ status: 429, message: "Your request violates our usage policies" }), POLICY);
  assert.deepEqual(verdict({ status: 401, message: "Your request was flagged by our system" }), POLICY);
  assert.deepEqual(verdict({ status: 500, message: "ResponsibleAIPolicyViolation" }), POLICY);
  assert.deepEqual(
    verdict({ status: 500, message: "usage policy moderation" }),
    v("server_error", true, false, false, false),
  );
});

test("transient faults leave the switch to another route to the retries", () => {
  assert.deepEqual(
    verdict({ status: 500, message: "Internal Server Error" }),
    v("server_error", true, false, false, false),
  );
  assert.deepEqual(
    verdict({ status: 503, message: "Service Unavailable" }),
    v("overloaded", true, false, false, false),
  );
  assert.deepEqual(verdict(plain("Read timed out", "ReadTimeout")), TIMEOUT);
});

test("a generic 401 or 403 is auth that rotates the key and falls back", () => {
  assert.deepEqual(verdict({ status: 403, message: "Forbidden" }), AUTH);
  assert.deepEqual(verdict({ status: 401, message: "Unauthorized" }), AUTH);
  assert.deepEqual(verdict({ status: 403, message: "Key limit exceeded for this key" }), BILLING);
});
