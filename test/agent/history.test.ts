import assert from "node:assert/strict";
import { test } from "node:test";
import { historyProblems, repairHistory } from "../../src/agent/history.js";
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
