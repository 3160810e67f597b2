import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolRegistry } from "../../src/tools/registry.js";
import {
  effectiveSchemaBudget,
  publishTools,
  searchHiddenTools,
  TOOL_DESCRIBE,
  TOOL_SEARCH,
} from "../../src/tools/tool-search.js";
import { z } from "../../src/util/schema/index.js";
import { openTestRuntime } from "../helpers/test-runtime.js";

const filler = "Reads records from the remote catalogue service and formats them for display. ".repeat(4);

function registerFakeMcpTools(registry: ToolRegistry, calls: string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < 6; i++) {
    const name = `catalogue_tool_${i}`;
    names.push(name);
    registry.register({
      name,
      toolset: "mcp-catalogue",
      description: `${filler} Returns item ${i}.`,
      parameters: z.object({ id: z.string().describe("Item id") }),
      handler: async () => `item ${i}`,
    });
  }
  registry.register({
    name: "weather_lookup",
    toolset: "mcp-catalogue",
    description: "Look up the barometric pressure of a city. Returns hectopascals.",
    parameters: z.object({ city: z.string() }),
    handler: async (args) => {
      calls.push(args.city);
      return `pressure in ${args.city}: 1013 hPa`;
    },
  });
  names.push("weather_lookup");
  return names;
}

function smallRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register({
    name: "read_notes",
    toolset: "notes",
    description: "Returns the notes.",
    parameters: z.object({}),
    handler: async () => "notes",
  });
  return registry;
}

test("under the budget, or with no budget, every schema is sent and nothing is hidden", () => {
  const registry = smallRegistry();
  const mcp = registerFakeMcpTools(registry, []);
  const names = ["read_notes", ...mcp];
  for (const budget of [0, 100_000]) {
    const published = publishTools(registry, names, budget);
    assert.deepEqual(
      published.definitions.map((d) => d.function.name),
      names,
    );
    assert.deepEqual(published.hidden, []);
    assert.equal(registry.has(TOOL_SEARCH), false, "the search pair is not even registered");
  }
});

test("over the budget, MCP tools go behind tool_search (last registered first) and stay callable", () => {
  const registry = smallRegistry();
  const mcp = registerFakeMcpTools(registry, []);
  const names = ["read_notes", ...mcp];
  const published = publishTools(registry, names, 400);
  const sent = published.definitions.map((d) => d.function.name);
  assert.ok(sent.includes("read_notes"), "a tool that is not MCP or rarely used is never hidden");
  assert.equal(sent.at(-1), TOOL_SEARCH);
  assert.ok(!sent.includes(TOOL_DESCRIBE), "tool_search's matches carry the parameters: describe is not sent");
  assert.ok(published.callable.includes(TOOL_DESCRIBE), "but stays callable");
  assert.ok(published.hidden.some((d) => d.function.name === "weather_lookup"));
  assert.ok(JSON.stringify(published.definitions).length / 4 <= 400, "the published schemas fit the budget");
  for (const name of names) assert.ok(published.callable.includes(name), `${name} callable`);
  const searchDescription = published.definitions.find((d) => d.function.name === TOOL_SEARCH)?.function.description;
  assert.match(searchDescription ?? "", /weather_lookup/, "tool_search names what is hidden");
  // Hidden from the end: with a looser budget the first MCP tools are still sent.
  const looser = publishTools(registry, names, 700);
  assert.ok(looser.hidden.length < published.hidden.length);
  assert.equal(looser.hidden.at(-1)?.function.name, "weather_lookup");
  assert.deepEqual(JSON.stringify(publishTools(registry, names, 400)), JSON.stringify(published), "deterministic");
});

test("agents built one after another share what was published, until the registry changes", () => {
  const registry = smallRegistry();
  const mcp = registerFakeMcpTools(registry, []);
  const names = ["read_notes", ...mcp];
  publishTools(registry, names, 400); // registers the search pair, which is a change
  const first = publishTools(registry, names, 400);
  assert.equal(publishTools(registry, names, 400), first, "the same budget and tools: the same result");
  assert.notEqual(publishTools(registry, names, 700), first, "another budget is worked out anew");
  registry.register({
    name: "late_tool",
    toolset: "mcp-late",
    description: "Returns nothing.",
    parameters: z.object({}),
    handler: async () => "",
  });
  const after = publishTools(registry, [...names, "late_tool"], 400);
  assert.notEqual(after, first);
  assert.ok(after.callable.includes("late_tool"), "a tool registered since is published");
});

test("tool search ranks a name hit above a description hit and finds a tool by one word of its description", () => {
  const registry = smallRegistry();
  const mcp = registerFakeMcpTools(registry, []);
  const hidden = registry.definitions(mcp);
  assert.deepEqual(
    searchHiddenTools(hidden, "barometric").map((f) => f.name),
    ["weather_lookup"],
  );
  const ranked = searchHiddenTools(hidden, "weather records", 3).map((f) => f.name);
  assert.equal(ranked.length, 3);
  assert.equal(ranked[0], "weather_lookup");
  assert.deepEqual(searchHiddenTools(hidden, "submarine"), []);
});

test("the model finds a hidden tool with tool_search and calls it by name in the same turn; the request prefix never changes", async () => {
  const calls: string[] = [];
  const t = await openTestRuntime({
    config: "agent:\n  tool_schema_budget: 1200\n",
    script: [
      { toolCalls: [{ name: "tool_search", arguments: { query: "barometric pressure" } }] },
      (req) => {
        const found = req.body.messages.at(-1).content as string;
        assert.match(found, /"name":"weather_lookup"/, "the search result carries the hidden tool");
        assert.match(found, /"parameters"/);
        return { toolCalls: [{ name: "weather_lookup", arguments: { city: "Oslo" } }] };
      },
      { text: "It is 1013 hPa in Oslo." },
      { toolCalls: [{ name: TOOL_DESCRIBE, arguments: { name: "nope" } }] },
      { text: "second turn done" },
    ],
  });
  try {
    registerFakeMcpTools(t.runtime.registry, calls);
    const agent = t.runtime.createAgent({ toolsets: ["file", "mcp-catalogue"] });
    const first = await agent.runConversation("What is the pressure in Oslo?");
    assert.equal(first.finalResponse, "It is 1013 hPa in Oslo.");
    assert.deepEqual(calls, ["Oslo"]);
    const second = await agent.runConversation("And describe nope");
    assert.equal(second.finalResponse, "second turn done");
    const describeResult = JSON.parse(agent.messages.filter((m) => m.role === "tool").at(-1)?.content as string);
    assert.match(describeResult.error, /no hidden tool named "nope"; hidden tools: .*weather_lookup/);

    const posts = t.fake.requests.filter((r) => r.method === "POST");
    assert.equal(posts.length, 5);
    const toolsBytes = posts.map((r) => JSON.stringify(r.body.tools));
    assert.equal(new Set(toolsBytes).size, 1, "the same tools array, byte for byte, on every request of both turns");
    const systems = posts.map((r) => r.body.messages[0].content);
    assert.equal(new Set(systems).size, 1, "the same system prompt on every request");
    const sent = posts[0]!.body.tools.map((d: { function: { name: string } }) => d.function.name);
    assert.ok(!sent.includes("weather_lookup"));
    assert.ok(sent.includes("read_file") && sent.includes(TOOL_SEARCH));
  } finally {
    await t.close();
  }
});

test("every built-in tool's description says what it returns", async () => {
  const t = await openTestRuntime({ config: "memory:\n  provider: local\n" });
  try {
    const agent = t.runtime.createAgent({ toolsets: ["hermes-cli"] });
    await agent.requestPreview();
    const specs = t.runtime.registry.all().filter((spec) => !spec.toolset.startsWith("mcp-"));
    assert.ok(specs.length >= 16, `expected the built-ins, got ${specs.map((s) => s.name).join(", ")}`);
    const silent = specs.filter((spec) => !/\bReturns\b/.test(spec.description)).map((spec) => spec.name);
    assert.deepEqual(silent, []);
  } finally {
    await t.close();
  }
});

test("tools.tool_search: on hides every hideable tool, off sends every schema, and the limits bound the results", async () => {
  const on = await openTestRuntime({
    config: "tools:\n  tool_search:\n    enabled: true\n    search_default_limit: 2\n    max_search_limit: 3\n",
    script: [
      { toolCalls: [{ name: "tool_search", arguments: { query: "catalogue records" } }] },
      { toolCalls: [{ name: "tool_search", arguments: { query: "catalogue records", limit: 10 } }] },
      { text: "done" },
    ],
  });
  try {
    registerFakeMcpTools(on.runtime.registry, []);
    const agent = on.runtime.createAgent({ toolsets: ["file", "mcp-catalogue"] });
    await agent.runConversation("find the catalogue tools");
    const results = agent.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content as string));
    assert.deepEqual(
      results.map((r) => r.matches.length),
      [2, 3],
      "the default limit, then a larger ask cut to the maximum",
    );
    const post = on.fake.requests.find((r) => r.method === "POST")!;
    const sent = post.body.tools.map((d: { function: { name: string } }) => d.function.name);
    assert.ok(!sent.some((name: string) => name.startsWith("catalogue_tool_")), "hidden although under the budget");
    const search = post.body.tools.find((d: { function: { name: string } }) => d.function.name === TOOL_SEARCH);
    assert.equal(search.function.parameters.properties.limit.maximum, 3);
    assert.equal(search.function.parameters.properties.limit.description, "Matches (default 2)");
  } finally {
    await on.close();
  }
  const off = await openTestRuntime({
    config: "agent:\n  tool_schema_budget: 100\ntools:\n  tool_search:\n    enabled: false\n",
    script: [{ text: "ok" }],
  });
  try {
    registerFakeMcpTools(off.runtime.registry, []);
    await off.runtime.createAgent({ toolsets: ["file", "mcp-catalogue"] }).runConversation("hi");
    const sent = off.fake.requests
      .find((r) => r.method === "POST")!
      .body.tools.map((d: { function: { name: string } }) => d.function.name);
    assert.ok(sent.includes("weather_lookup") && !sent.includes(TOOL_SEARCH), "every schema, no search tool");
  } finally {
    await off.close();
  }
});

test("tools.tool_search.threshold_pct caps the budget at a share of a known context window", () => {
  const auto = { enabled: "auto" as const, threshold_pct: 10 };
  assert.equal(effectiveSchemaBudget(3500, auto, 200_000), 3500, "10% of 200k is more than the budget");
  assert.equal(effectiveSchemaBudget(3500, auto, 8192), 819, "a small local model's window");
  assert.equal(effectiveSchemaBudget(3500, auto), 3500, "an unknown window leaves the budget");
  assert.equal(effectiveSchemaBudget(0, auto, 8192), 0, "a budget of 0 still turns hiding off");
  assert.equal(effectiveSchemaBudget(0, { ...auto, enabled: true }, 8192), 1);
  assert.equal(effectiveSchemaBudget(3500, { ...auto, enabled: false }, 8192), 0);
});
