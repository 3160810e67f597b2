import assert from "node:assert/strict";
import { test } from "node:test";
import { registerTodoTools, TodoStore } from "../../src/tools/builtin/todo.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext } from "./tool-harness.js";

function setup() {
  const registry = new ToolRegistry();
  registerTodoTools(registry);
  return registry;
}

test("writing a list replaces it and returns it with a summary", async () => {
  const registry = setup();
  const ctx = makeContext("/", { sessionId: "s1" });
  await callTool(registry, "todo", { todos: [{ id: "old", content: "old task", status: "pending" }] }, ctx);
  const result = await callTool(
    registry,
    "todo",
    {
      todos: [
        { id: "1", content: "Read the code", status: "in_progress" },
        { id: "2", content: "Write tests", status: "pending" },
      ],
    },
    ctx,
  );
  assert.deepEqual(result.todos, [
    { id: "1", content: "Read the code", status: "in_progress" },
    { id: "2", content: "Write tests", status: "pending" },
  ]);
  assert.deepEqual(result.summary, { total: 2, pending: 1, in_progress: 1, completed: 0, cancelled: 0 });
});

test("merge updates items by id and appends new ones in order", async () => {
  const registry = setup();
  const ctx = makeContext("/", { sessionId: "s2" });
  await callTool(
    registry,
    "todo",
    {
      todos: [
        { id: "1", content: "A", status: "in_progress" },
        { id: "2", content: "B", status: "pending" },
      ],
    },
    ctx,
  );
  const result = await callTool(
    registry,
    "todo",
    {
      merge: true,
      todos: [
        { id: "1", status: "completed" },
        { id: 3, content: "C" },
        { id: "2", status: "cancelled" },
      ],
    },
    ctx,
  );
  assert.deepEqual(result.todos, [
    { id: "1", content: "A", status: "completed" },
    { id: "2", content: "B", status: "cancelled" },
    { id: "3", content: "C", status: "pending" },
  ]);
});

test("calling with no todos reads the list, kept per session", async () => {
  const registry = setup();
  await callTool(registry, "todo", { todos: [{ id: "1", content: "mine" }] }, makeContext("/", { sessionId: "a" }));
  const other = await callTool(registry, "todo", {}, makeContext("/", { sessionId: "b" }));
  assert.deepEqual(other.todos, []);
  const mine = await callTool(registry, "todo", {}, makeContext("/", { sessionId: "a" }));
  assert.deepEqual(mine.todos, [{ id: "1", content: "mine", status: "pending" }]);
});

test("a store passed in ctx.services.todo is used", async () => {
  const registry = setup();
  const store = new TodoStore();
  await callTool(
    registry,
    "todo",
    { todos: [{ id: "x", content: "shared" }] },
    makeContext("/", { services: { todo: store } }),
  );
  assert.deepEqual(store.list(), [{ id: "x", content: "shared", status: "pending" }]);
  assert.deepEqual(store.active(), store.list());
});

test("new items without content and unknown statuses are rejected", async () => {
  const registry = setup();
  const ctx = makeContext("/", { sessionId: "s3" });
  const result = await callTool(registry, "todo", { merge: true, todos: [{ id: "9", status: "pending" }] }, ctx);
  assert.match(String(result.error), /need content: id 9/);
  assert.throws(() => registry.get("todo")?.parameters.parse({ todos: [{ id: "1", content: "x", status: "done" }] }));
});

test("a repeated id in a replacement keeps one item with the last values", async () => {
  const store = new TodoStore();
  store.replace([
    { id: "1", content: "first", status: "pending" },
    { id: "2", content: "second" },
    { id: "1", status: "completed" },
  ]);
  assert.deepEqual(store.list(), [
    { id: "1", content: "first", status: "completed" },
    { id: "2", content: "second", status: "pending" },
  ]);
});
