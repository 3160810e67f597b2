import assert from "node:assert/strict";
import { test } from "node:test";
import { registerClarifyTools } from "../../src/tools/builtin/clarify.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext } from "./tool-harness.js";

const registry = new ToolRegistry();
registerClarifyTools(registry);

test("asks through ctx.clarify and returns the user's answer", async () => {
  const asked: Array<[string, string[] | undefined]> = [];
  const ctx = makeContext("/", {
    clarify: async (question, choices) => {
      asked.push([question, choices]);
      return "Postgres";
    },
  });
  const result = await callTool(
    registry,
    "clarify",
    { question: "Which database?", choices: ["SQLite", "Postgres"] },
    ctx,
  );
  assert.deepEqual(asked, [["Which database?", ["SQLite", "Postgres"]]]);
  assert.deepEqual(result, {
    question: "Which database?",
    choices_offered: ["SQLite", "Postgres"],
    user_response: "Postgres",
  });
});

test("without a way to ask, tells the model to proceed on its own judgement", async () => {
  const result = await callTool(registry, "clarify", { question: "Which database?" }, makeContext("/"));
  assert.equal(result.user_response, null);
  assert.match(String(result.note), /best judgement/);
});

test("an unattended session is not asked even when a handler exists", async () => {
  let called = false;
  const ctx = makeContext("/", {
    interactive: false,
    clarify: async () => {
      called = true;
      return "x";
    },
  });
  const result = await callTool(registry, "clarify", { question: "Go on?" }, ctx);
  assert.equal(called, false);
  assert.match(String(result.note), /best judgement/);
});

test("a failing handler becomes a result, and an interrupt ends the wait", async () => {
  const failing = makeContext("/", {
    clarify: async () => {
      throw new Error("terminal closed");
    },
  });
  const failed = await callTool(registry, "clarify", { question: "Q?" }, failing);
  assert.match(String(failed.error), /terminal closed/);

  const controller = new AbortController();
  const waiting = makeContext("/", { signal: controller.signal, clarify: () => new Promise<string>(() => {}) });
  const pending = callTool(registry, "clarify", { question: "Q?" }, waiting);
  controller.abort();
  const interrupted = await pending;
  assert.match(String(interrupted.note), /interrupted/);
});

test("at most four choices, and never run in parallel", () => {
  const spec = registry.get("clarify");
  assert.throws(() => spec?.parameters.parse({ question: "q", choices: ["a", "b", "c", "d", "e"] }));
  assert.equal(spec?.parallelSafe, false);
});
