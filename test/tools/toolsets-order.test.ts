import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { ToolRegistry } from "../../src/tools/registry.js";
import { getToolset, resolveToolset, resolveToolsets, ToolsetCatalog } from "../../src/tools/toolsets.js";

const handler = async () => "ok";

function catalogWith(tools: Array<[name: string, toolset: string]>): ToolsetCatalog {
  const registry = new ToolRegistry();
  for (const [name, toolset] of tools) {
    registry.register({ name, toolset, description: "d", parameters: z.object({}), handler });
  }
  return new ToolsetCatalog(registry);
}

test("a resolved toolset lists its tools alphabetically", () => {
  assert.deepEqual(resolveToolset("debugging"), [
    "patch",
    "process",
    "read_file",
    "search_files",
    "terminal",
    "web_extract",
    "web_search",
    "write_file",
  ]);
  assert.deepEqual(resolveToolset("terminal"), ["process", "terminal"]);
});

test("every tool (all / *) comes back sorted", () => {
  for (const name of ["all", "*"]) {
    const tools = resolveToolset(name);
    assert.deepEqual(tools, [...tools].sort());
    assert.ok(tools.length > 10);
  }
});

test("the union of several toolsets is sorted", () => {
  assert.deepEqual(resolveToolsets(["web", "terminal"]), ["process", "terminal", "web_extract", "web_search"]);
});

test("a static toolset read without registry additions keeps its declared order", () => {
  assert.deepEqual(getToolset("terminal")?.tools, ["terminal", "process"]);
  assert.deepEqual(getToolset("web")?.tools, ["web_search", "web_extract"]);
});

test("registry tools are merged in sorted order, for plugin-only and built-in toolsets", () => {
  const catalog = catalogWith([
    ["plugin_b", "plugin_example"],
    ["plugin_a", "plugin_example"],
    ["web_archive", "web"],
  ]);
  assert.deepEqual(catalog.resolve("plugin_example"), ["plugin_a", "plugin_b"]);
  assert.deepEqual(catalog.get("plugin_example")?.tools, ["plugin_a", "plugin_b"]);
  assert.deepEqual(catalog.get("web")?.tools, ["web_archive", "web_extract", "web_search"]);
  assert.deepEqual(catalog.resolve("web"), ["web_archive", "web_extract", "web_search"]);
  assert.deepEqual(catalog.get("terminal")?.tools, ["terminal", "process"]);
});

test("a registry tool already listed by the toolset is not repeated", () => {
  const catalog = catalogWith([["web_search", "web"]]);
  assert.deepEqual(catalog.get("web")?.tools, ["web_extract", "web_search"]);
});

test("resolveInDeclaredOrder keeps the definition order for listings", () => {
  const catalog = catalogWith([["web_archive", "web"]]);
  assert.deepEqual(catalog.resolveInDeclaredOrder("terminal"), ["terminal", "process"]);
  assert.deepEqual(catalog.resolveInDeclaredOrder("debugging"), [
    "terminal",
    "process",
    "web_archive",
    "web_extract",
    "web_search",
    "read_file",
    "write_file",
    "patch",
    "search_files",
  ]);
  assert.deepEqual(catalog.resolveInDeclaredOrder("nonexistent"), []);
  assert.deepEqual(new Set(catalog.resolveInDeclaredOrder("*")), new Set(catalog.resolve("*")));
});
