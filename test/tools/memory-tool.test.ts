import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MemoryStore } from "../../src/state/memory-store.js";
import { registerMemoryTools } from "../../src/tools/builtin/memory.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const registry = new ToolRegistry();
registerMemoryTools(registry);

function setup() {
  const dir = tempDir("memory-tool");
  const store = new MemoryStore({ dir, memoryCharLimit: 200, userCharLimit: 100 });
  return { dir, store, ctx: makeContext(dir, { services: { memory: store } }) };
}

test("add, replace and remove go through the MemoryStore in ctx.services.memory", async () => {
  const { dir, ctx } = setup();
  const added = await callTool(registry, "memory", { action: "add", target: "user", content: "Prefers tabs" }, ctx);
  assert.equal(added.success, true);
  const replaced = await callTool(
    registry,
    "memory",
    { action: "replace", target: "user", old_text: "tabs", content: "Prefers spaces" },
    ctx,
  );
  assert.deepEqual(replaced.entries, ["Prefers spaces"]);
  assert.equal(readFileSync(join(dir, "USER.md"), "utf8"), "Prefers spaces\n");
  const removed = await callTool(registry, "memory", { action: "remove", target: "user", old_text: "spaces" }, ctx);
  assert.deepEqual(removed.entries, []);
});

test("store failures reach the model with the current entries", async () => {
  const { ctx } = setup();
  await callTool(registry, "memory", { action: "add", target: "memory", content: "fact A" }, ctx);
  const result = await callTool(registry, "memory", { action: "remove", target: "memory", old_text: "nope" }, ctx);
  assert.equal(result.success, false);
  assert.deepEqual(result.currentEntries, ["fact A"]);
});

test("missing arguments for an action are reported", async () => {
  const { ctx } = setup();
  const add = await callTool(registry, "memory", { action: "add", target: "memory" }, ctx);
  assert.match(String(add.error), /needs content/);
  const replace = await callTool(registry, "memory", { action: "replace", target: "memory", content: "x" }, ctx);
  assert.match(String(replace.error), /old_text/);
  const remove = await callTool(registry, "memory", { action: "remove", target: "memory" }, ctx);
  assert.match(String(remove.error), /old_text/);
});

test("without a memory service the tool says memory is off", async () => {
  const result = await callTool(
    registry,
    "memory",
    { action: "add", target: "memory", content: "x" },
    makeContext("/"),
  );
  assert.equal(result.success, false);
  assert.match(String(result.error), /turned off/);
});

test("an unknown target is rejected by the schema", () => {
  assert.throws(() => registry.get("memory")?.parameters.parse({ action: "add", target: "notes", content: "x" }));
});
