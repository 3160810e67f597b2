import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyApiError, LlmError } from "../../src/llm/errors.js";

const vague400 = { status: 400, message: "Error", body: { error: { message: "Error" } } };
const reasonOf = (error: unknown, ctx: Record<string, number> = {}) => classifyApiError(error, ctx).reason;

test("a vague 400 is an overflow once the session passes 40% of its window", () => {
  assert.equal(reasonOf(vague400, { approxTokens: 100_000, contextLength: 200_000 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 400_001, contextLength: 1_000_000 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 400_000, contextLength: 1_000_000 }), "format_error");
});

test("on windows up to 256k, over 80k tokens or over 80 messages also count as large", () => {
  assert.equal(
    reasonOf(vague400, { approxTokens: 5000, contextLength: 200_000, numMessages: 100 }),
    "context_overflow",
  );
  assert.equal(reasonOf(vague400, { approxTokens: 5000, contextLength: 256_000, numMessages: 81 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 5000, contextLength: 256_000, numMessages: 80 }), "format_error");
  assert.equal(reasonOf(vague400, { approxTokens: 80_001, contextLength: 256_000 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 5000, contextLength: 256_001, numMessages: 81 }), "format_error");
});

test("without a window a vague 400 assumes 200k", () => {
  assert.equal(reasonOf({ status: 400, message: "Error" }, { approxTokens: 90_000 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 80_001 }), "context_overflow");
  assert.equal(reasonOf(vague400, { approxTokens: 80_000 }), "format_error");
  assert.equal(reasonOf(vague400, { approxTokens: 80_001, contextLength: 0 }), "context_overflow");
  assert.equal(reasonOf(vague400, { numMessages: 81 }), "context_overflow");
  assert.equal(reasonOf(vague400, {}), "format_error");
});

test("the overflow verdict on a vague 400 asks for compression", () => {
  const result = classifyApiError(vague400, { approxTokens: 100_000, contextLength: 200_000 });
  assert.deepEqual(
    [result.retryable, result.shouldCompress, result.shouldRotateCredential, result.shouldFallback],
    [true, true, false, false],
  );
});

test("a 400 is vague when the provider's message is under 30 characters", () => {
  const large = { approxTokens: 150_000, contextLength: 200_000 };
  const withBody = (message: string) => ({ status: 400, message: "wrapper", body: { error: { message } } });
  assert.equal(reasonOf(withBody("x".repeat(29)), large), "context_overflow");
  assert.equal(reasonOf(withBody("x".repeat(30)), large), "format_error");
  assert.equal(reasonOf(withBody(`  ${"x".repeat(28)}  `), large), "context_overflow");
  assert.equal(reasonOf({ status: 400, message: "Error", body: { message: "Error" } }, large), "context_overflow");
  assert.equal(reasonOf({ status: 400, message: "Bad Request" }, large), "context_overflow");
  assert.equal(reasonOf({ status: 400, message: "x".repeat(40), body: "short text" }, large), "context_overflow");
  assert.equal(
    reasonOf({ status: 400, message: "The provided request body is invalid: messages.3 has empty content" }, large),
    "format_error",
  );
});

const disconnect = { name: "Error", message: "server disconnected without sending complete message" };

test("a disconnect is an overflow past 60% of the window, or 120k tokens / 200 messages on small windows", () => {
  assert.equal(
    reasonOf(disconnect, { approxTokens: 5000, contextLength: 200_000, numMessages: 250 }),
    "context_overflow",
  );
  assert.equal(reasonOf(disconnect, { approxTokens: 5000, contextLength: 200_000, numMessages: 200 }), "timeout");
  assert.equal(reasonOf(disconnect, { approxTokens: 120_001, contextLength: 256_000 }), "context_overflow");
  assert.equal(reasonOf(disconnect, { approxTokens: 100_000, contextLength: 200_000 }), "timeout");
  assert.equal(reasonOf(disconnect, { approxTokens: 600_001, contextLength: 1_000_000 }), "context_overflow");
  assert.equal(reasonOf(disconnect, { approxTokens: 600_000, contextLength: 1_000_000, numMessages: 400 }), "timeout");
});

test("a disconnect without a window assumes 200k", () => {
  assert.equal(reasonOf(disconnect, { approxTokens: 120_001 }), "context_overflow");
  assert.equal(reasonOf(disconnect, { approxTokens: 120_000 }), "timeout");
  assert.equal(reasonOf(disconnect, { numMessages: 201 }), "context_overflow");
});

test("our own disconnect errors use the same bar", () => {
  const error = new LlmError("stream ended early", { kind: "disconnect" });
  assert.equal(reasonOf(error, { approxTokens: 5000, contextLength: 200_000, numMessages: 250 }), "context_overflow");
  assert.equal(reasonOf(error, { approxTokens: 100_000, contextLength: 200_000 }), "timeout");
});

test("the message is the body's own error message when there is one", () => {
  const nested = { status: 500, message: "outer", body: { error: { message: "Internal server error occurred" } } };
  assert.equal(classifyApiError(nested).message, "Internal server error occurred");
  const flat = { status: 400, message: "Error code: 400 - {...}", body: { message: "  bad field  " } };
  assert.equal(classifyApiError(flat).message, "bad field");
  const wrapped = {
    message: "Provider request failed",
    cause: { status: 402, body: { error: { message: "Pay up" } } },
  };
  assert.equal(classifyApiError(wrapped).message, "Pay up");
});

test("without a body message the error's own message is shown, cut at 500 characters", () => {
  assert.equal(
    classifyApiError({ status: 500, message: "plain failure", body: { message: 42 } }).message,
    "plain failure",
  );
  assert.equal(classifyApiError({ message: "y".repeat(600) }).message, "y".repeat(500));
  assert.equal(
    classifyApiError({ status: 400, body: { error: { message: "z".repeat(501) } } }).message,
    "z".repeat(500),
  );
  assert.equal(classifyApiError({ message: "" }).message, "Unknown error");
});
