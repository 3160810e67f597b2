// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references in config values are the subject of these tests
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { McpManager } from "../../src/tools/mcp/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { ToolsetCatalog } from "../../src/tools/toolsets.js";
import { everythingStdio, FILESYSTEM_BIN, pidAlive, tempDir } from "./fixtures/mcp-helpers.js";

function setup(servers: ConstructorParameters<typeof McpManager>[0]["servers"], env?: NodeJS.ProcessEnv) {
  const registry = new ToolRegistry();
  const toolsets = new ToolsetCatalog(registry);
  const manager = new McpManager({ servers, registry, toolsets, ...(env ? { env } : {}) });
  return { registry, toolsets, manager };
}

const ctx = { cwd: process.cwd(), signal: new AbortController().signal };

test("server-everything over stdio: tools register as mcp_everything_* and answer through the registry", async (t) => {
  const { registry, toolsets, manager } = setup({ everything: everythingStdio });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "connected");
  assert.equal(status?.transport, "stdio");
  assert.ok(registry.has("mcp_everything_echo"));
  assert.ok(registry.has("mcp_everything_get-sum"));
  assert.deepEqual(toolsets.resolve("mcp-everything").sort(), [...status!.tools].sort());

  const echo = registry.get("mcp_everything_echo")!;
  assert.equal(echo.toolset, "mcp-everything");
  assert.equal(await echo.handler({ message: "hello there" }, ctx), "Echo: hello there");
  const sum = registry.get("mcp_everything_get-sum")!;
  assert.equal(await sum.handler({ a: 2, b: 40 }, ctx), "The sum of 2 and 40 is 42.");

  const [def] = registry.definitions(["mcp_everything_get-sum"]);
  assert.deepEqual(def?.function.parameters, {
    type: "object",
    properties: {
      a: { type: "number", description: "First number" },
      b: { type: "number", description: "Second number" },
    },
    required: ["a", "b"],
  });
});

test("an image result is described with its type and size and passed on as a data URL", async (t) => {
  const { manager } = setup({ everything: everythingStdio });
  t.after(() => manager.close());
  await manager.start();
  const text = await manager.callTool("everything", "get-tiny-image", {});
  const lines = text.split("\n");
  assert.equal(lines[0], "Here's the image you requested:");
  assert.match(lines[1]!, /^\[image: image\/png, \d\.\d KB\]$/);
  assert.match(lines[2]!, /^data:image\/png;base64,iVBORw0KGgo/);
  assert.equal(lines[3], "The image above is the MCP logo.");
});

test("a server's own argument check failure comes back as an Error: result", async (t) => {
  const { registry, manager } = setup({ everything: everythingStdio });
  t.after(() => manager.close());
  await manager.start();
  const result = await registry.get("mcp_everything_get-sum")!.handler({ a: "two" }, ctx);
  assert.match(result, /^Error: .*get-sum/);
});

test("resource links in a result become readable text", async (t) => {
  const { manager } = setup({ everything: everythingStdio });
  t.after(() => manager.close());
  await manager.start();
  const text = await manager.callTool("everything", "get-resource-links", { count: 2 });
  assert.match(text, /\[resource link: .+ <demo:\/\/resource\/dynamic\/(text|blob)\/1> \(text\/plain\)/);
  const embedded = await manager.callTool("everything", "get-resource-reference", {
    resourceType: "Text",
    resourceId: 3,
  });
  assert.match(embedded, /\[resource demo:\/\/resource\/dynamic\/text\/3 \(text\/plain\)\]\n/);
});

test("a stdio server sees only the safe environment plus its configured variables", async (t) => {
  const agentEnv = {
    PATH: process.env.PATH ?? "/usr/bin",
    HERMES_TEST_SECRET: "s3cret-value",
    OPENROUTER_API_KEY: "sk-or-should-not-leak",
  };
  const { manager } = setup(
    { everything: { ...everythingStdio, env: { GIVEN_TOKEN: "${HERMES_TEST_SECRET}", PLAIN: "yes" } } },
    agentEnv,
  );
  t.after(() => manager.close());
  await manager.start();
  const env = JSON.parse(await manager.callTool("everything", "get-env", {})) as Record<string, string>;
  assert.equal(env.GIVEN_TOKEN, "s3cret-value");
  assert.equal(env.PLAIN, "yes");
  assert.equal(env.PATH, agentEnv.PATH);
  assert.equal(env.OPENROUTER_API_KEY, undefined);
  assert.equal(env.HERMES_TEST_SECRET, undefined);
});

test("tools.include and tools.exclude decide which server tools register", async (t) => {
  const { registry, manager } = setup({
    only: { ...everythingStdio, tools: { include: ["echo", "get-sum"] } },
    except: { ...everythingStdio, tools: { exclude: ["get-env", "echo"] } },
  });
  t.after(() => manager.close());
  const statuses = await manager.start();
  const only = statuses.find((s) => s.name === "only")!;
  assert.deepEqual(only.tools.sort(), ["mcp_only_echo", "mcp_only_get-sum"]);
  assert.ok(only.filtered.includes("get-env"));
  const except = statuses.find((s) => s.name === "except")!;
  assert.ok(except.tools.includes("mcp_except_get-sum"));
  assert.ok(!registry.has("mcp_except_get-env"));
  assert.ok(!registry.has("mcp_except_echo"));
  assert.deepEqual(except.filtered.sort(), ["echo", "get-env"]);
});

test("server-filesystem over stdio reads a file from its allowed directory", async (t) => {
  const dir = tempDir();
  writeFileSync(join(dir, "notes.txt"), "the answer is 42\n");
  const { registry, manager } = setup({
    files: { command: process.execPath, args: [FILESYSTEM_BIN, dir] },
  });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "connected", status?.error);
  const read = registry.get("mcp_files_read_text_file");
  assert.ok(read, `registered: ${status?.tools.join(", ")}`);
  assert.equal(await read.handler({ path: join(dir, "notes.txt") }, ctx), "the answer is 42\n");
  const outside = await read.handler({ path: "/etc/hostname" }, ctx);
  assert.match(outside, /^Error: .*(denied|outside)/i);
});

test("disabled servers are not started and are listed as disabled", async (t) => {
  const { registry, manager } = setup({ off: { ...everythingStdio, enabled: false } });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "disabled");
  assert.deepEqual(manager.toolsetNames(), []);
  assert.equal(registry.names().length, 0);
});

test("close() stops every stdio child and removes the tools and toolsets", async () => {
  const { registry, toolsets, manager } = setup({ a: everythingStdio, b: everythingStdio });
  const statuses = await manager.start();
  const pids = statuses.map((s) => s.pid);
  assert.equal(pids.length, 2);
  for (const pid of pids) assert.ok(pid !== undefined && pidAlive(pid));
  await manager.close();
  for (const pid of pids) assert.equal(pidAlive(pid!), false, `server process ${pid} is still running`);
  assert.deepEqual(registry.names(), []);
  assert.equal(toolsets.get("mcp-a"), null);
  assert.match(await manager.callTool("a", "echo", { message: "x" }), /^Error: no MCP server named "a"/);
});

test("reload() restarts the servers with new settings", async (t) => {
  const { registry, manager } = setup({ first: everythingStdio });
  t.after(() => manager.close());
  await manager.start();
  assert.ok(registry.has("mcp_first_echo"));
  const statuses = await manager.reload({ second: { ...everythingStdio, tools: { include: ["echo"] } } });
  assert.deepEqual(
    statuses.map((s) => [s.name, s.state]),
    [["second", "connected"]],
  );
  assert.ok(!registry.has("mcp_first_echo"));
  assert.deepEqual(registry.names(), ["mcp_second_echo"]);
});
