import assert from "node:assert/strict";
import { test } from "node:test";
import { replayUpdates } from "../../src/acp/replay.js";
import { INTENT_NUDGE, lastUserMessageIndex } from "../../src/agent/turn-checks.js";
import { newMessagesOf } from "../../src/api-server/responses-chain.js";
import { formatHistory } from "../../src/cli/slash/session-commands.js";
import type { Message } from "../../src/llm/types.js";

/** A turn in which the agent sent the model back to work once with a note of its own. */
const turn: Message[] = [
  { role: "user", content: "earlier question" },
  { role: "assistant", content: "earlier answer" },
  { role: "user", content: "fix the parser" },
  { role: "assistant", content: "I'll run the tests now." },
  { role: "user", content: INTENT_NUDGE },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "terminal", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "c1", content: "ok" },
  { role: "assistant", content: "All tests pass." },
];

test("/undo, /retry and a cut-off retry find the user's own message, not the agent's note after it", () => {
  assert.equal(lastUserMessageIndex(turn), 2);
  assert.equal(lastUserMessageIndex([{ role: "assistant", content: "hi" }]), -1);
});

test("the API's view of a turn's new messages leaves the agent's notes out", () => {
  const added = newMessagesOf(turn);
  assert.equal(added.length, 4);
  assert.ok(added.every((m) => m.role !== "user"));
  assert.equal(added.at(-1)?.content, "All tests pass.");
});

test("an editor replaying the session and /history do not show the note as the user's words", () => {
  const said = replayUpdates(turn as never, "/w")
    .filter((u) => u.sessionUpdate === "user_message_chunk")
    .map((u) => (u as { content: { text: string } }).content.text);
  assert.deepEqual(said, ["earlier question", "fix the parser"]);
  const lines = formatHistory(turn);
  assert.ok(lines.includes("you: fix the parser"));
  assert.ok(lines.some((line) => line.startsWith("(note to the model) [System: ")));
  assert.ok(!lines.some((line) => line.startsWith("you: [System: ")));
});
