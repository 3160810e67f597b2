// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references in config values are the subject of these tests
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { registerMcpCommands } from "../../src/cli/commands/mcp.js";
import { run, tempHome } from "../cli/commands/state-command-harness.js";
import { EVERYTHING_BIN, SILENT_SERVER } from "./fixtures/mcp-helpers.js";

const mcp = (home: string, ...args: string[]) => run(registerMcpCommands, home, ["mcp", ...args]);
const configOf = (home: string) => parse(readFileSync(join(home, "config.yaml"), "utf8"));

test("mcp list says how to add a server when none is configured", async () => {
  const home = tempHome();
  assert.match((await mcp(home, "list")).out, /No MCP servers configured\. Add one with `hermes mcp add/);
});

test("mcp add writes stdio and HTTP servers to config.yaml and mcp list shows them", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "# my settings\nagent:\n  max_turns: 40\n");
  const added = await mcp(
    home,
    "add",
    "files",
    "--command",
    "npx",
    "--env",
    "TOKEN=${GITHUB_TOKEN}",
    "--env",
    "MODE=fast",
    "--",
    "-y",
    "@modelcontextprotocol/server-filesystem",
    "/tmp/x y",
  );
  assert.match(added.out, /Added MCP server "files" to .*config\.yaml\. Check it with `hermes mcp test files`/);
  await mcp(
    home,
    "add",
    "web",
    "--url",
    "https://mcp.example.test/mcp",
    "--header",
    "Authorization=Bearer ${API_TOKEN}",
    "--disabled",
  );
  await mcp(home, "add", "plain", "--command", "node", "--timeout", "30", "--args", "server.js", "--", "--port=3");

  const written = readFileSync(join(home, "config.yaml"), "utf8");
  assert.match(written, /^# my settings/);
  const config = configOf(home);
  assert.equal(config.agent.max_turns, 40);
  assert.deepEqual(config.mcp_servers.files, {
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp/x y"],
    env: { TOKEN: "${GITHUB_TOKEN}", MODE: "fast" },
  });
  assert.deepEqual(config.mcp_servers.web, {
    url: "https://mcp.example.test/mcp",
    headers: { Authorization: "Bearer ${API_TOKEN}" },
    enabled: false,
  });
  assert.deepEqual(config.mcp_servers.plain, { command: "node", args: ["server.js", "--port=3"], timeout: 30 });

  const listed = (await mcp(home, "list")).out.trimEnd().split("\n");
  assert.deepEqual(listed, [
    "NAME   ENABLED  TRANSPORT  TARGET",
    'files  yes      stdio      npx -y @modelcontextprotocol/server-filesystem "/tmp/x y"',
    "web    no       http       https://mcp.example.test/mcp",
    "plain  yes      stdio      node server.js --port=3",
  ]);
});

test("mcp add refuses bad input with a usage error and leaves config.yaml alone", async () => {
  const home = tempHome();
  await assert.rejects(mcp(home, "add", "x"), /exactly one of --command .* or --url/);
  await assert.rejects(mcp(home, "add", "x", "--command", "a", "--url", "http://h/"), /exactly one of/);
  await assert.rejects(mcp(home, "add", "bad.name", "--command", "a"), /not a valid server name/);
  await assert.rejects(mcp(home, "add", "x", "--command", "a", "--env", "NOEQUALS"), /--env expects KEY=VALUE/);
  await assert.rejects(mcp(home, "add", "x", "--url", "not a url"), /--url must be a full URL/);
  await assert.rejects(mcp(home, "add", "x", "--url", "http://h/", "--env", "A=1"), /--env applies to --command/);
  await assert.rejects(mcp(home, "add", "x", "--command", "a", "--timeout", "0"), /--timeout must be a whole number/);
  assert.match((await mcp(home, "list")).out, /No MCP servers configured/);

  await mcp(home, "add", "x", "--command", "a");
  await assert.rejects(mcp(home, "add", "x", "--command", "b"), /already exists \(use --force/);
  await mcp(home, "add", "x", "--url", "http://127.0.0.1:1234/mcp", "--force");
  assert.deepEqual(configOf(home).mcp_servers.x, { url: "http://127.0.0.1:1234/mcp" });
});

test("mcp remove deletes a server and reports one that is not there", async () => {
  const home = tempHome();
  await mcp(home, "add", "a", "--command", "a");
  await mcp(home, "add", "b", "--command", "b");
  assert.match((await mcp(home, "remove", "a")).out, /Removed MCP server "a"/);
  assert.deepEqual(Object.keys(configOf(home).mcp_servers), ["b"]);
  const missing = await mcp(home, "rm", "a");
  assert.match(missing.err, /No MCP server named "a"/);
  assert.equal(missing.exitCode, 1);
});

test("mcp test connects, lists the tools under their registered names and prints timings", async () => {
  const home = tempHome();
  await mcp(home, "add", "everything", "--command", process.execPath, "--args", EVERYTHING_BIN, "stdio");
  writeFileSync(
    join(home, "config.yaml"),
    `${readFileSync(join(home, "config.yaml"), "utf8")}    tools:\n      exclude: [get-env]\n`,
  );
  const tested = await mcp(home, "test", "everything");
  assert.equal(tested.exitCode, undefined, tested.err);
  assert.match(tested.out, /Connected over stdio in \d+ ms; listed \d+ tools in \d+ ms\./);
  assert.match(tested.out, /\n {2}mcp_everything_echo +Echoes back the input/);
  assert.match(tested.out, /\n {2}mcp_everything_get-env +left out by tools\.include\/exclude/);
});

test("mcp test reports a server that does not answer and exits 1", async () => {
  const home = tempHome();
  await mcp(home, "add", "silent", "--command", process.execPath, "--args", SILENT_SERVER, "--connect-timeout", "1");
  const tested = await mcp(home, "test", "silent");
  assert.match(tested.err, /Could not use "silent": no answer to the MCP handshake within 1s/);
  assert.equal(tested.exitCode, 1);
  await assert.rejects(mcp(home, "test", "nope"), /no MCP server named "nope"/);
});
