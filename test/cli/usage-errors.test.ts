import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { runNode } from "../helpers/run-node.js";

function hermes(args: string[], config?: string) {
  const home = mkdtempSync(join(tmpdir(), "hermes-usage-"));
  if (config) writeFileSync(join(home, "config.yaml"), config);
  return runNode(["dist/cli/main.js", ...args], { env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" } });
}

const local = ["--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"];

test("an unknown command says so and suggests the nearest one", async () => {
  const run = await hermes(["sesions", "list"]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /unknown command 'sesions' \(did you mean 'sessions'\?\)/);
  const far = await hermes(["frobnicate"]);
  assert.equal(far.code, 2);
  assert.match(far.stderr, /unknown command 'frobnicate'\. To ask the agent something, use hermes chat -q/);
});

test("-z together with -q is a usage error, not a silent choice between them", async () => {
  const run = await hermes(["-z", "one prompt", "-q", "another", ...local]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /-z TEXT is itself the prompt: give -z, or -q \/ --query-file, not both/);
});

test("a --query-file that does not exist is a usage error naming the path", async () => {
  const run = await hermes(["chat", "--query-file", "/no/such/prompt.txt", ...local]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /cannot read --query-file \/no\/such\/prompt\.txt/);
});

test("unknown toolsets are usage errors naming the source, the nearest name and the known ones", async () => {
  const flag = await hermes(["chat", "-q", "hi", "-t", "fle,web", ...local]);
  assert.equal(flag.code, 2);
  assert.match(flag.stderr, /unknown toolset "fle" \(did you mean "file"\?\) in --toolsets\. Known toolsets: web, /);
  const config = await hermes(["chat", "-q", "hi", ...local], "toolsets: [hermes-cli, terminl]\n");
  assert.equal(config.code, 2);
  assert.match(config.stderr, /unknown toolset "terminl" \(did you mean "terminal"\?\) in toolsets in config\.yaml/);
  const check = await hermes(["config", "check"], "toolsets: [hermes-cli, terminl]\n");
  assert.equal(check.code, 1);
  assert.match(check.stderr, /unknown toolset "terminl"/);
  const mcp = await hermes(
    ["config", "check"],
    "toolsets: [hermes-cli, mcp-files]\nmcp_servers:\n  files:\n    command: node\n",
  );
  assert.equal(mcp.code, 0, "a configured MCP server's toolset is known");
});

test("hermes help lists the guides, prints one by name, and suggests the nearest for a typo", async () => {
  const list = await hermes(["help"]);
  assert.equal(list.code, 0);
  assert.match(list.stdout, /Guides \(hermes help TOPIC\): .*providers/);
  const guide = await hermes(["help", "providers"]);
  assert.equal(guide.code, 0);
  assert.match(guide.stdout, /^# Providers, credentials and fallbacks/);
  const command = await hermes(["help", "sessions"]);
  assert.match(command.stdout, /^Usage: hermes sessions/);
  const typo = await hermes(["help", "provders"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /no help topic "provders" \(did you mean "providers"\?\)/);
});
