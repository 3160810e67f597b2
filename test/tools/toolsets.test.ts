import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { z } from "zod";
import { ToolRegistry } from "../../src/tools/registry.js";
import { getToolset, resolveToolset, ToolsetCatalog, validateToolset } from "../../src/tools/toolsets.js";

interface Case {
  id: string;
  input: { call: string; args?: string[]; names?: string[] };
  expect: Record<string, unknown>;
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/toolsets.json", import.meta.url), "utf8"),
) as { cases: Case[] };

const calls: Record<string, (name: string) => unknown> = { getToolset, resolveToolset, validateToolset };

function evaluate(input: Case["input"]): unknown {
  if (input.call === "intersection") {
    const sets = (input.names ?? []).map((name) => new Set(resolveToolset(name)));
    const first = sets[0] ?? new Set<string>();
    return [...first].filter((tool) => sets.every((s) => s.has(tool)));
  }
  const fn = calls[input.call];
  assert.ok(fn, `unknown call ${input.call}`);
  return fn(input.args?.[0] ?? "");
}

describe("toolsets fixture (hermes-cases/toolsets.json)", () => {
  for (const c of fixture.cases) {
    test(c.id, () => {
      let value = evaluate(c.input);
      const e = c.expect;
      if (typeof e.at === "string") value = (value as Record<string, unknown>)[e.at];
      if ("isNull" in e) assert.equal(value ?? null, null);
      if ("returns" in e) assert.equal(value, e.returns);
      if ("equals" in e) assert.deepEqual(value, e.equals);
      if ("contains" in e)
        for (const item of e.contains as string[]) assert.ok((value as string[]).includes(item), item);
      if ("sameMembers" in e)
        assert.deepEqual([...(value as string[])].sort(), [...(e.sameMembers as string[])].sort());
      if ("minLength" in e) assert.ok((value as string[]).length >= (e.minLength as number));
      if ("intersectionMinLength" in e) assert.ok((value as string[]).length >= (e.intersectionMinLength as number));
    });
  }
});

describe("ToolsetCatalog", () => {
  test("resolves includes transitively and de-duplicates", () => {
    const catalog = new ToolsetCatalog();
    const tools = catalog.resolve("debugging");
    assert.equal(new Set(tools).size, tools.length);
    for (const tool of ["terminal", "process", "web_search", "read_file", "patch"])
      assert.ok(tools.includes(tool), tool);
  });

  test("terminates on include cycles", () => {
    const catalog = new ToolsetCatalog();
    catalog.registerCustomToolsets({
      a: { tools: ["one"], includes: ["b"] },
      b: { tools: ["two"], includes: ["c"] },
      c: { tools: ["one", "three"], includes: ["a", "c"] },
    });
    assert.deepEqual(catalog.resolve("a"), ["one", "three", "two"]);
    assert.deepEqual(catalog.resolve("c").sort(), ["one", "three", "two"]);
  });

  test("custom toolsets from config can include built-ins but cannot replace them", () => {
    const catalog = new ToolsetCatalog();
    const outcome = catalog.registerCustomToolsets({
      research: { description: "reading only", tools: ["read_file"], includes: ["web"] },
      web: { tools: ["terminal"] },
    });
    assert.deepEqual(outcome, { registered: ["research"], rejected: ["web"] });
    assert.deepEqual(catalog.resolve("research").sort(), ["read_file", "web_extract", "web_search"]);
    assert.deepEqual(catalog.resolve("web").sort(), ["web_extract", "web_search"]);
    assert.equal(catalog.get("research")?.description, "reading only");
    assert.ok(catalog.validate("research"));
  });

  test("MCP toolsets are added, resolved and removed", () => {
    const catalog = new ToolsetCatalog();
    catalog.registerToolset("mcp-github", { tools: ["mcp_github_list_issues", "mcp_github_create_issue"] });
    assert.ok(catalog.validate("mcp-github"));
    assert.deepEqual(catalog.resolve("mcp-github"), ["mcp_github_create_issue", "mcp_github_list_issues"]);
    assert.ok(catalog.resolve("*").includes("mcp_github_list_issues"));
    assert.ok(catalog.unregisterToolset("mcp-github"));
    assert.equal(catalog.get("mcp-github"), null);
    assert.throws(() => catalog.registerToolset("all", { tools: [] }));
  });

  test("tools registered under a toolset name are merged on read", () => {
    const registry = new ToolRegistry();
    const catalog = new ToolsetCatalog(registry);
    const handler = async () => "ok";
    registry.register({ name: "weather", toolset: "my-plugin", description: "d", parameters: z.object({}), handler });
    registry.register({ name: "web_archive", toolset: "web", description: "d", parameters: z.object({}), handler });
    assert.deepEqual(catalog.resolve("my-plugin"), ["weather"]);
    assert.ok(catalog.names().includes("my-plugin"));
    assert.ok(catalog.resolve("web").includes("web_archive"));
    assert.ok(catalog.resolve("debugging").includes("web_archive"));
    assert.ok(catalog.resolve("all").includes("weather"));
  });

  test("getToolset returns a copy that callers cannot use to change the table", () => {
    const copy = getToolset("web");
    copy?.tools.push("terminal");
    assert.deepEqual(resolveToolset("web").sort(), ["web_extract", "web_search"]);
  });

  test("platform toolsets differ where interaction is impossible", () => {
    assert.ok(resolveToolset("hermes-cli").includes("clarify"));
    assert.ok(!resolveToolset("hermes-api-server").includes("clarify"));
    assert.ok(!resolveToolset("hermes-webhook").includes("terminal"));
    assert.ok(resolveToolset("hermes-cron").includes("terminal"));
    assert.ok(resolveToolset("hermes-gateway").includes("send_message"));
  });
});
