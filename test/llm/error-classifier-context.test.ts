import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyApiError } from "../../src/llm/errors.js";

const vague400 = { status: 400, message: "Error", body: { error: { message: "Error" } } };

test("a vague 400 on a session filling most of its window is treated as an overflow", () => {
  assert.equal(
    classifyApiError(vague400, { approxTokens: 150_000, contextLength: 200_000 }).reason,
    "context_overflow",
  );
  assert.equal(
    classifyApiError(vague400, { approxTokens: 700_000, contextLength: 1_000_000 }).reason,
    "context_overflow",
  );
});

test("on a very large window, many messages alone do not make a vague 400 an overflow", () => {
  const onHugeWindow = classifyApiError(vague400, { approxTokens: 60_000, contextLength: 1_000_000, numMessages: 400 });
  assert.equal(onHugeWindow.reason, "format_error");
  assert.equal(onHugeWindow.shouldCompress, false);
});

test("with the window unknown, a long session still counts as large", () => {
  assert.equal(classifyApiError(vague400, { numMessages: 400 }).reason, "context_overflow");
  assert.equal(classifyApiError(vague400, { approxTokens: 130_000 }).reason, "context_overflow");
  assert.equal(classifyApiError(vague400, { approxTokens: 1000, numMessages: 10 }).reason, "format_error");
});
