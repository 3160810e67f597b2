/**
 * mcp_discovery_timeout: a start waits that long for MCP servers, then goes on; a server that
 * was still starting is announced when ready and its tools are offered from the next turn.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";
import { FIXTURE_SERVER } from "../tools/fixtures/mcp-helpers.js";

const offeredTools = (body: Record<string, unknown>) =>
  ((body.tools ?? []) as Array<{ function: { name: string } }>).map((tool) => tool.function.name);

test("a server still starting after mcp_discovery_timeout does not hold up the first turn; its tools join the next", async () => {
  const gate = join(tempDir("hermes-mcp-gate-"), "gate");
  assert.equal(spawnSync("mkfifo", [gate]).status, 0);
  // The server starts only when the test opens the gate.
  const command = `read _ < ${gate}; exec ${process.execPath} ${FIXTURE_SERVER}`;
  let announceReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    announceReady = resolve;
  });
  const { runtime, fake, notices, close } = await openTestRuntime({
    config: `mcp_discovery_timeout: 0.2\nmcp_servers:\n  gated:\n    command: bash\n    args: ["-c", ${JSON.stringify(command)}]\n`,
    script: [{ text: "first" }, { text: "second" }],
    onNotice: (message) => {
      if (/MCP: gated ready/.test(message)) announceReady();
    },
  });
  try {
    assert.match(notices.join("\n"), /MCP: gated still starting; their tools join from the next turn once ready/);
    const agent = runtime.agentFor("chat", { interactive: true });
    await agent.runConversation("one");
    assert.ok(!offeredTools(fake.requests.at(-1)!.body).includes("mcp_gated_echo"));

    writeFileSync(gate, "go\n");
    await ready;
    await agent.runConversation("two");
    assert.ok(offeredTools(fake.requests.at(-1)!.body).includes("mcp_gated_echo"));
  } finally {
    await close();
  }
});

test("a one-shot run waits for its MCP servers in full: its single turn has their tools", async () => {
  const gate = join(tempDir("hermes-mcp-gate-"), "gate");
  assert.equal(spawnSync("mkfifo", [gate]).status, 0);
  const command = `read _ < ${gate}; exec ${process.execPath} ${FIXTURE_SERVER}`;
  const opening = openTestRuntime({
    config: `mcp_discovery_timeout: 0\nmcp_servers:\n  gated:\n    command: bash\n    args: ["-c", ${JSON.stringify(command)}]\n`,
    script: [{ text: "done" }],
    singleTurn: true,
  });
  // Opening the gate waits (off the main thread) for the server's shell to reach it.
  await writeFile(gate, "go\n");
  const { runtime, fake, notices, close } = await opening;
  try {
    assert.doesNotMatch(notices.join("\n"), /still starting/);
    await runtime.createAgent().runConversation("use it");
    assert.ok(offeredTools(fake.requests.at(-1)!.body).includes("mcp_gated_echo"));
  } finally {
    await close();
  }
});
