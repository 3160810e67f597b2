import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/llm/types.js";
import type { StoredMessage } from "../../src/state/session-store.js";

// Compile-time check (tsc runs over test/): the state layer's message twin must stay
// assignable to and from the llm layer's Message in both directions.
const toStored = (message: Message): StoredMessage => message;
const toLlm = (message: StoredMessage): Message => message;

test("StoredMessage and the llm Message type are interchangeable", () => {
  const message: Message = {
    role: "assistant",
    content: [{ type: "text", text: "hi" }],
    tool_calls: [{ id: "1", type: "function", function: { name: "x", arguments: "{}" } }],
    reasoningContinuity: { anthropicThinking: [{ type: "redacted_thinking", data: "d" }] },
    finish_reason: "stop",
  };
  assert.deepEqual(toLlm(toStored(message)), message);
});
