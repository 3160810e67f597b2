import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { McpManager, type McpServerSettings } from "../../src/tools/mcp/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { ToolsetCatalog } from "../../src/tools/toolsets.js";
import {
  everythingStdio,
  FIXTURE_SERVER,
  fixtureStdio,
  pidAlive,
  silentStdio,
  tempDir,
  waitForStatus,
} from "./fixtures/mcp-helpers.js";

function setup(servers: Record<string, McpServerSettings>) {
  const registry = new ToolRegistry();
  const toolsets = new ToolsetCatalog(registry);
  const manager = new McpManager({ servers, registry, toolsets });
  return { registry, toolsets, manager };
}

test("a server that never answers the handshake is cut off at connect_timeout while others register", async (t) => {
  const { registry, manager } = setup({
    // Two seconds leave a loaded machine time to start the server, so its stderr is in the error.
    silent: { ...silentStdio, connect_timeout: 2 },
    fixture: fixtureStdio,
  });
  t.after(() => manager.close());
  const started = performance.now();
  const all = await manager.start();
  const elapsed = performance.now() - started;
  assert.ok(elapsed >= 1950 && elapsed < 8000, `start took ${Math.round(elapsed)} ms`);
  const silent = all.find((s) => s.name === "silent")!;
  assert.equal(silent.state, "failed");
  assert.match(silent.error ?? "", /no answer to the MCP handshake within 2s/);
  assert.match(silent.error ?? "", /stderr: silent fixture: listening/);
  assert.deepEqual(silent.tools, []);
  assert.ok(registry.has("mcp_fixture_echo"));
  assert.match(await manager.callTool("silent", "anything", {}), /^Error: MCP server "silent" is unavailable/);
});

test("a command that does not exist is reported without delaying the rest", async (t) => {
  const { manager } = setup({ missing: { command: "/nonexistent/hermes-mcp-server" }, fixture: fixtureStdio });
  t.after(() => manager.close());
  const statuses = await manager.start();
  const missing = statuses.find((s) => s.name === "missing")!;
  assert.equal(missing.state, "failed");
  assert.match(missing.error ?? "", /command not found: \/nonexistent\/hermes-mcp-server/);
  assert.equal(statuses.find((s) => s.name === "fixture")?.state, "connected");
});

test("isError results and JSON-RPC errors become Error: results, and the server stays connected", async (t) => {
  const { manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  await manager.start();
  assert.equal(await manager.callTool("fx", "fail", {}), "Error: the widget is broken");
  const rejected = await manager.callTool("fx", "reject", {});
  assert.match(rejected, /^Error: MCP tool "reject" on server "fx" failed: .*the fixture rejects this call/);
  assert.equal(manager.status()[0]?.state, "connected");
  assert.equal(await manager.callTool("fx", "echo", { text: "still here" }), "echo: still here");
});

test("a call that outlives the per-call timeout gives an Error: result and the server keeps working", async (t) => {
  const { manager } = setup({ fx: { ...fixtureStdio, timeout: 1 } });
  t.after(() => manager.close());
  await manager.start();
  const started = performance.now();
  const result = await manager.callTool("fx", "stall", {});
  assert.match(result, /^Error: MCP tool "stall" on server "fx" did not finish within 1s \(timeout\)/);
  assert.ok(performance.now() - started < 5000);
  assert.equal(await manager.callTool("fx", "echo", { text: "after" }), "echo: after");
});

test("an interrupted call returns promptly with an Error: result", async (t) => {
  const { registry, manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  await manager.start();
  const controller = new AbortController();
  const pending = registry.get("mcp_fx_stall")!.handler({}, { cwd: process.cwd(), signal: controller.signal });
  controller.abort();
  assert.match(await pending, /^Error: MCP tool "stall" on server "fx" was interrupted/);
});

test("a server that crashes mid-call gives an Error: result, then restarts on the next call", async (t) => {
  const { registry, manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  const [status] = await manager.start();
  const firstPid = status?.pid;
  assert.ok(firstPid);
  const crashed = await registry
    .get("mcp_fx_crash")!
    .handler({}, { cwd: process.cwd(), signal: AbortSignal.timeout(10_000) });
  assert.match(crashed, /^Error: MCP server "fx" went away during the call to "crash" .*restarted on the next call/);
  assert.equal(manager.status()[0]?.state, "disconnected");
  assert.ok(registry.has("mcp_fx_echo"), "tools stay registered so the next call can restart the server");

  assert.equal(await manager.callTool("fx", "echo", { text: "back" }), "echo: back");
  const after = manager.status()[0]!;
  assert.equal(after.state, "connected");
  assert.notEqual(after.pid, firstPid);
  assert.equal(await manager.callTool("fx", "pid", {}), String(after.pid));
});

test("when the restart fails the call says so and the server stays down until a reload", async (t) => {
  const refuseFile = join(tempDir(), "refuse");
  const { manager } = setup({
    fx: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_REFUSE_FILE: refuseFile } },
  });
  t.after(() => manager.close());
  await manager.start();
  writeFileSync(refuseFile, "");
  assert.match(await manager.callTool("fx", "crash", {}), /^Error: MCP server "fx" went away/);
  const retry = await manager.callTool("fx", "echo", { text: "x" });
  assert.match(retry, /^Error: MCP server "fx" stopped and could not be restarted \(.*refusing to start/);
  assert.equal(manager.status()[0]?.state, "failed");
  assert.match(await manager.callTool("fx", "echo", { text: "x" }), /^Error: MCP server "fx" is unavailable/);
});

test("a server that dies between calls is marked disconnected and restarted by the next call", async (t) => {
  const { manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  const [status] = await manager.start();
  const down = waitForStatus(manager, "fx", (s) => s.state === "disconnected");
  process.kill(status!.pid!, "SIGKILL");
  assert.match((await down).error ?? "", /closed the connection/);
  assert.equal(await manager.callTool("fx", "echo", { text: "again" }), "echo: again");
});

test("tools/list_changed re-syncs the server's tools in the registry and its toolset", async (t) => {
  const { registry, toolsets, manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  await manager.start();
  assert.ok(!registry.has("mcp_fx_extra"));
  const grown = waitForStatus(manager, "fx", (s) => s.tools.includes("mcp_fx_extra"));
  assert.equal(await manager.callTool("fx", "grow", {}), "grown");
  await grown;
  assert.equal(
    await registry.get("mcp_fx_extra")!.handler({}, { cwd: ".", signal: new AbortController().signal }),
    "extra ran",
  );
  assert.ok(toolsets.resolve("mcp-fx").includes("mcp_fx_extra"));

  const shrunk = waitForStatus(manager, "fx", (s) => !s.tools.includes("mcp_fx_extra"));
  await manager.callTool("fx", "shrink", {});
  await shrunk;
  assert.ok(!registry.has("mcp_fx_extra"));
  assert.ok(!toolsets.resolve("mcp-fx").includes("mcp_fx_extra"));
});

test("a tool with an injection in its description is not registered and is reported; odd names are cleaned", async (t) => {
  const { registry, manager } = setup({ fx: fixtureStdio });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.ok(!registry.has("mcp_fx_poisoned"));
  assert.deepEqual(
    status?.blocked.map((b) => b.tool),
    ["poisoned"],
  );
  assert.match(status!.blocked[0]!.reason, /threat patterns/);
  assert.ok(registry.has("mcp_fx_dotted_name_tool"));
});

test("a healthy server's tools are usable while a slow one is still starting; close() then gives up at once", async () => {
  const { manager } = setup({ silent: { ...silentStdio, connect_timeout: 30 }, everything: everythingStdio });
  const everythingUp = waitForStatus(manager, "everything", (s) => s.tools.includes("mcp_everything_echo"));
  const starting = manager.start();
  const up = await everythingUp;
  assert.equal(await manager.callTool("everything", "echo", { message: "meanwhile" }), "Echo: meanwhile");
  const silent = manager.status().find((s) => s.name === "silent")!;
  assert.equal(silent.state, "connecting");
  assert.ok(silent.pid && pidAlive(silent.pid));
  const started = performance.now();
  await manager.close();
  assert.ok(performance.now() - started < 5000, "close did not wait for the 30 s handshake timeout");
  await starting;
  assert.equal(pidAlive(up.pid!), false);
  assert.equal(pidAlive(silent.pid), false);
});

test("a server's toolset is also reachable by the server's own name, unless another toolset has it", async (t) => {
  const { toolsets, manager } = setup({ fx: fixtureStdio, web: fixtureStdio });
  t.after(() => manager.close());
  await manager.start();
  assert.deepEqual(toolsets.resolve("fx").sort(), toolsets.resolve("mcp-fx").sort());
  assert.ok(toolsets.resolve("fx").length > 0);
  assert.ok(toolsets.resolve("web").includes("web_search"), "the built-in web toolset is not shadowed");
  assert.ok(!toolsets.resolve("web").some((name) => name.startsWith("mcp_web_")));
  await manager.close();
  assert.equal(toolsets.get("fx"), null);
});
