import assert from "node:assert/strict";
import { test } from "node:test";
import { historyProblems, repairHistory, sanitizeUserText, textOf } from "../../src/agent/history.js";
import type { Message } from "../../src/llm/types.js";

const call = (id: string) => ({ id, type: "function" as const, function: { name: "echo", arguments: "{}" } });
const user = (content: string): Message => ({ role: "user", content });
const asks = (...ids: string[]): Message => ({ role: "assistant", content: null, tool_calls: ids.map(call) });
const result = (id: string): Message => ({ role: "tool", tool_call_id: id, content: "ok" });
const says = (content: string): Message => ({ role: "assistant", content });

test("a well-formed history has no problems", () => {
  assert.deepEqual(
    historyProblems([user("hi"), asks("a", "b"), result("a"), result("b"), says("done"), user("more")]),
    [],
  );
  assert.deepEqual(historyProblems([]), []);
});

test("names two user or two assistant messages in a row", () => {
  assert.deepEqual(historyProblems([user("a"), user("b")]), ["message 1: two user messages in a row"]);
  assert.deepEqual(historyProblems([user("a"), says("x"), says("y")]), ["message 2: two assistant messages in a row"]);
});

test("names a tool call left without a result, in the middle and at the end", () => {
  assert.deepEqual(historyProblems([user("a"), asks("c1"), user("b")]), ["message 2: tool call(s) c1 have no result"]);
  assert.deepEqual(historyProblems([user("a"), asks("c1", "c2"), result("c1")]), [
    "end: tool call(s) c2 have no result",
  ]);
});

test("names a tool result that answers no open call, or a call already answered", () => {
  assert.deepEqual(historyProblems([user("a"), result("ghost")]), [
    "message 1: tool result ghost answers no open tool call",
  ]);
  assert.deepEqual(historyProblems([user("a"), asks("c1"), result("c1"), result("c1")]), [
    "message 3: tool result c1 answers no open tool call",
  ]);
  assert.deepEqual(historyProblems([user("a"), { role: "tool", content: "x" }]), [
    "message 1: tool result (no id) answers no open tool call",
  ]);
});

test("repairing stray results, unanswered calls and split user turns leaves nothing to find", () => {
  const broken = [user("a"), result("ghost"), user("b"), asks("c1", "c2"), result("c2"), says("x")];
  assert.ok(historyProblems(broken).length > 0);
  assert.deepEqual(historyProblems(repairHistory(broken)), [], JSON.stringify(repairHistory(broken)));
});

test("several unanswered calls are listed together, and consecutive system messages are allowed", () => {
  assert.deepEqual(historyProblems([user("a"), asks("c1", "c2"), user("b")]), [
    "message 2: tool call(s) c1, c2 have no result",
  ]);
  assert.deepEqual(historyProblems([user("a"), asks("c1", "c2")]), ["end: tool call(s) c1, c2 have no result"]);
  const system = (content: string): Message => ({ role: "system", content });
  assert.deepEqual(historyProblems([system("one"), system("two"), user("a")]), []);
  // A user message carrying tool_calls (malformed input) opens nothing.
  const odd = { role: "user", content: "a", tool_calls: [call("x")] } as Message;
  assert.deepEqual(historyProblems([odd, result("x")]), ["message 1: tool result x answers no open tool call"]);
});

test("repair gives each unanswered call a placeholder, drops stray results and merges user turns", () => {
  const repaired = repairHistory([user("a"), result("ghost"), user("b"), asks("c1", "c2"), result("c2"), says("x")]);
  assert.deepEqual(repaired, [
    user("a\n\nb"),
    asks("c1", "c2"),
    result("c2"),
    { role: "tool", tool_call_id: "c1", content: "[no result: the call was interrupted]" },
    says("x"),
  ]);
  assert.deepEqual(repairHistory([user("a"), asks("c9")], "cut"), [
    user("a"),
    asks("c9"),
    { role: "tool", tool_call_id: "c9", content: "cut" },
  ]);
  // An assistant message with an empty call list opens nothing.
  const empty: Message = { role: "assistant", content: "x", tool_calls: [] };
  assert.deepEqual(repairHistory([user("a"), empty, result("z")]), [user("a"), empty]);
  assert.deepEqual(repairHistory([]), []);
});

test("user text: lone surrogates become U+FFFD, pairs stay, leaked memory-context blocks go", () => {
  assert.equal(sanitizeUserText("a\uD800b"), "a\uFFFDb");
  assert.equal(sanitizeUserText("a\uDC00b"), "a\uFFFDb");
  assert.equal(sanitizeUserText("end\uD83D"), "end\uFFFD");
  assert.equal(sanitizeUserText("\uDE00start"), "\uFFFDstart");
  assert.equal(sanitizeUserText("smile \uD83D\uDE00 ok"), "smile \uD83D\uDE00 ok");
  assert.equal(
    sanitizeUserText(
      "keep <memory-context>secret\nnotes</memory-context>\n  this <MEMORY-CONTEXT>x</memory-context> too",
    ),
    "keep this too",
  );
  assert.equal(sanitizeUserText("<memory-context></memory-context>x"), "x");
  assert.equal(sanitizeUserText("plain text"), "plain text");
});

test("textOf joins text parts and skips the rest", () => {
  assert.equal(textOf(null), "");
  assert.equal(textOf("plain"), "plain");
  assert.equal(
    textOf([
      { type: "text", text: "a" },
      { type: "image_url", image_url: { url: "data:," } },
      { type: "text", text: "b" },
    ] as Message["content"]),
    "ab",
  );
});

test("repair keeps a result for any open call, drops one without an id, and ignores calls on a user message", () => {
  assert.deepEqual(repairHistory([user("a"), asks("c1", "c2"), result("c1"), result("c2")]), [
    user("a"),
    asks("c1", "c2"),
    result("c1"),
    result("c2"),
  ]);
  const noId: Message = { role: "tool", content: "orphan" };
  assert.deepEqual(repairHistory([user("a"), asks("c1", "c2"), noId, result("c1"), result("c2")]), [
    user("a"),
    asks("c1", "c2"),
    result("c1"),
    result("c2"),
  ]);
  const odd = { role: "user", content: "a", tool_calls: [call("x")] } as Message;
  assert.deepEqual(repairHistory([odd, result("x")]), [odd]);
});
