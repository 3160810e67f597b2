import assert from "node:assert/strict";
import { test } from "node:test";
import { parseApprovalAnswer, parseClarifyAnswer, statusText, toolLine } from "../../src/cli/tui/format.js";

const usage = (over: Partial<Parameters<typeof statusText>[0]["usage"]> = {}) => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  apiCalls: 0,
  toolCalls: 0,
  turns: 0,
  cost: 0,
  ...over,
});

test("a tool line shows emoji, name, argument preview, then the duration (and ✗ on failure)", () => {
  assert.equal(toolLine({ emoji: "💻", name: "terminal", preview: "ls -la" }), "💻 terminal: ls -la …");
  assert.equal(
    toolLine({ emoji: "💻", name: "terminal", preview: "ls -la", durationMs: 1234 }),
    "💻 terminal: ls -la (1.2s)",
  );
  assert.equal(toolLine({ name: "patch", preview: "", durationMs: 50, failed: true }), "⚙️ patch (0.1s) ✗");
});

test("the status bar shows model, tokens, cost (with display.show_cost), context and state", () => {
  assert.equal(
    statusText({ model: "m", usage: usage(), busy: false, queued: 0, yolo: false }),
    "m · /help",
    "no usage numbers before the first turn",
  );
  const text = statusText({
    model: "anthropic/claude-opus-4.6",
    usage: usage({ inputTokens: 12_345, outputTokens: 678, turns: 2, cost: 0.1234 }),
    context: { tokens: 12_000, window: 200_000, percent: 6 },
    busy: true,
    queued: 2,
    yolo: true,
    showCost: true,
  });
  assert.equal(
    text,
    "anthropic/claude-opus-4.6 · 12k in / 678 out · $0.12 · ctx 6% · YOLO · 2 queued · working (Ctrl+C to stop)",
  );
  const unknownPrice = { model: "x", usage: usage({ turns: 1, cost: undefined }), busy: false, queued: 0, yolo: false };
  assert.match(statusText({ ...unknownPrice, showCost: true }), /· cost unknown ·/);
  assert.equal(statusText(unknownPrice), "x · 0 in / 0 out · /help", "no cost without display.show_cost");
});

test("typed answers to prompts: approval letters and clarify choice numbers", () => {
  assert.equal(parseApprovalAnswer("o"), "once");
  assert.equal(parseApprovalAnswer(" Session "), "session");
  assert.equal(parseApprovalAnswer("always"), "always");
  assert.equal(parseApprovalAnswer(""), "deny");
  assert.equal(parseApprovalAnswer("whatever"), "deny");
  assert.equal(parseClarifyAnswer("2", ["red", "blue"]), "blue");
  assert.equal(parseClarifyAnswer("9", ["red", "blue"]), "9");
  assert.equal(parseClarifyAnswer(" green ", ["red"]), "green");
});

test("the status bar names the permission mode, and yolo once", () => {
  const base = { model: "m", usage: usage(), busy: false, queued: 0, yolo: false };
  assert.equal(statusText({ ...base, mode: "plan" }), "m · plan mode · /help");
  assert.equal(statusText({ ...base, mode: "auto-edit" }), "m · auto-edit mode · /help");
  assert.equal(statusText({ ...base, mode: "yolo" }), "m · YOLO · /help");
  assert.equal(statusText({ ...base, mode: "ask", yolo: true }), "m · YOLO · /help");
});
