// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references in config values are the subject of these tests
import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { McpManager, type McpServerSettings } from "../../src/tools/mcp/index.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { ToolsetCatalog } from "../../src/tools/toolsets.js";
import { startEverythingHttp } from "./fixtures/mcp-helpers.js";

function setup(servers: Record<string, McpServerSettings>, env?: NodeJS.ProcessEnv) {
  const registry = new ToolRegistry();
  const manager = new McpManager({
    servers,
    registry,
    toolsets: new ToolsetCatalog(registry),
    ...(env ? { env } : {}),
  });
  return { registry, manager };
}

test("server-everything over Streamable HTTP: tools register and answer; close ends the session", async (t) => {
  const server = await startEverythingHttp("streamableHttp");
  t.after(() => server.stop());
  const { registry, manager } = setup({ web: { url: server.url } });
  const [status] = await manager.start();
  assert.equal(status?.state, "connected", status?.error);
  assert.equal(status?.transport, "http");
  assert.equal(
    await registry.get("mcp_web_echo")!.handler(
      { message: "over http" },
      {
        cwd: ".",
        signal: new AbortController().signal,
      },
    ),
    "Echo: over http",
  );
  assert.equal(await manager.callTool("web", "get-sum", { a: 1, b: 2 }), "The sum of 1 and 2 is 3.");
  assert.match(await manager.callTool("web", "get-tiny-image", {}), /\[image: image\/png, /);
  await manager.close();
  assert.match(server.output(), /Received session termination request/);
  assert.deepEqual(registry.names(), []);
});

test("an HTTP server that only speaks the older SSE transport is reached through the fallback", async (t) => {
  const server = await startEverythingHttp("sse");
  t.after(() => server.stop());
  const { manager } = setup({ legacy: { url: server.url } });
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "connected", status?.error);
  assert.equal(status?.transport, "sse");
  assert.equal(await manager.callTool("legacy", "echo", { message: "via sse" }), "Echo: via sse");
});

test("headers get ${VAR} values; when both transports fail the status names both reasons", async (t) => {
  const seen: IncomingHttpHeaders[] = [];
  const http = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404, { "content-type": "text/plain" }).end("no MCP here");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => http.close(() => resolve())));
  const { port } = http.address() as AddressInfo;
  const { manager } = setup(
    {
      nowhere: {
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: "Bearer ${HERMES_TEST_TOKEN}", "X-Extra": "${HERMES_UNSET_VAR}" },
      },
    },
    { HERMES_TEST_TOKEN: "tok-123" },
  );
  t.after(() => manager.close());
  const [status] = await manager.start();
  assert.equal(status?.state, "failed");
  assert.match(status?.error ?? "", /Streamable HTTP failed \(.*404.*\); SSE failed too \(.*404/);
  assert.ok(seen.length >= 2);
  for (const headers of seen) assert.equal(headers.authorization, "Bearer tok-123");
  assert.deepEqual(status?.warnings, ["${HERMES_UNSET_VAR} is not set; it was replaced by an empty string"]);
});

test("an HTTP server that goes away gives an Error: result, then is reconnected when it is back", async (t) => {
  const first = await startEverythingHttp("streamableHttp");
  t.after(() => first.stop());
  const { manager } = setup({ web: { url: first.url, connect_timeout: 5 } });
  t.after(() => manager.close());
  await manager.start();
  await first.stop();
  const failed = await manager.callTool("web", "echo", { message: "anyone?" });
  assert.match(failed, /^Error: MCP server "web" went away during the call to "echo"/);
  assert.equal(manager.status()[0]?.state, "disconnected");

  const second = await startEverythingHttp("streamableHttp", Number(new URL(first.url).port));
  t.after(() => second.stop());
  assert.equal(await manager.callTool("web", "echo", { message: "back" }), "Echo: back");
  assert.equal(manager.status()[0]?.state, "connected");
});
