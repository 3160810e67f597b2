import assert from "node:assert/strict";
import { test } from "node:test";
import { registerSessionSearchTools } from "../../src/tools/builtin/session-search.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext } from "./tool-harness.js";

const registry = new ToolRegistry();
registerSessionSearchTools(registry);

test("calls ctx.services.sessionSearch with the query and limit and formats the hits", async () => {
  const calls: Array<[string, number]> = [];
  const sessionSearch = async (query: string, limit: number) => {
    calls.push([query, limit]);
    return [
      {
        sessionId: "s-1",
        title: "Fix the build",
        source: "cli",
        startedAt: 1_700_000_000,
        snippet: "the >>build<< broke",
      },
      { session_id: "s-2", started_at: "2024-05-01T10:00:00Z", content: "x".repeat(2000) },
    ];
  };
  const result = await callTool(
    registry,
    "session_search",
    { query: " build ", limit: 2 },
    makeContext("/", { services: { sessionSearch } }),
  );
  assert.deepEqual(calls, [["build", 2]]);
  assert.equal(result.count, 2);
  const [first, second] = result.results as Array<Record<string, unknown>>;
  assert.deepEqual(first, {
    session_id: "s-1",
    title: "Fix the build",
    source: "cli",
    when: "2023-11-14T22:13:20.000Z",
    snippet: "the >>build<< broke",
  });
  assert.equal(second?.session_id, "s-2");
  assert.ok(String(second?.snippet).length < 1600);
});

test("defaults to 3 results and reports when nothing matched", async () => {
  let seenLimit = 0;
  const sessionSearch = (_query: string, limit: number) => {
    seenLimit = limit;
    return [];
  };
  const result = await callTool(
    registry,
    "session_search",
    { query: "x" },
    makeContext("/", { services: { sessionSearch } }),
  );
  assert.equal(seenLimit, 3);
  assert.match(String(result.note), /No past session/);
});

test("a failing search and a missing service are error results", async () => {
  const failing = makeContext("/", {
    services: {
      sessionSearch: async () => {
        throw new Error("database locked");
      },
    },
  });
  const failed = await callTool(registry, "session_search", { query: "x" }, failing);
  assert.match(String(failed.error), /database locked/);
  const missing = await callTool(registry, "session_search", { query: "x" }, makeContext("/"));
  assert.match(String(missing.error), /not available/);
});
