import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { oneLineBody } from "../../src/tools/mcp/connection.js";
import { runNode } from "../helpers/run-node.js";

const PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title><style>body { color: red }</style></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
`;

test("an HTML error page becomes its title; other bodies one trimmed line", () => {
  assert.equal(
    oneLineBody(`Error POSTing to endpoint: ${PAGE}`),
    "Error POSTing to endpoint: an HTML page: 502 Bad Gateway",
  );
  assert.equal(oneLineBody("<html><body><p>Service\n down</p></body></html>"), "an HTML page: Service down");
  assert.equal(oneLineBody("plain\n  text  error"), "plain text error");
});

test("mcp test against a server answering an HTML 502 page shows the status and one line", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const home = mkdtempSync(join(tmpdir(), "hermes-mcp-html-"));
  writeFileSync(join(home, "config.yaml"), `mcp_servers:\n  web:\n    url: http://127.0.0.1:${port}/mcp\n`);
  try {
    const run = await runNode(["dist/cli/main.js", "mcp", "test", "web"], {
      env: { ...process.env, HERMES_HOME: home },
    });
    assert.equal(run.code, 1);
    const failure = run.stderr.split("\n").filter((line) => line.includes("Could not use"));
    assert.equal(failure.length, 1);
    assert.match(failure[0]!, /HTTP 502: .*an HTML page: 502 Bad Gateway/);
    assert.doesNotMatch(run.stderr, /<html|<center>|DOCTYPE/);
  } finally {
    server.close();
  }
});
