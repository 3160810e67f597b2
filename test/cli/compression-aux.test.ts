import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";

function run(args: string[], home: string): Promise<NodeRun> {
  return runNode(["dist/cli/main.js", ...args], { env: { ...process.env, HERMES_HOME: home } });
}

test("hermes chat compresses a full context with the configured auxiliary model", async () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-aux-"));
  const aux = await startFakeProvider({
    fallback: { text: "## Goal\nprint numbers\n## Progress\nprinted many lines" },
  });
  let calls = 0;
  const main = await startFakeProvider({
    fallback: () =>
      ++calls <= 6
        ? { toolCalls: [{ name: "terminal", arguments: { command: `seq 1 1500 # round ${calls}` } }] }
        : { text: "all done" },
  });
  try {
    writeFileSync(
      join(home, "config.yaml"),
      [
        "model:",
        "  context_length: 9000",
        "  min_context_length: 0",
        "compression:",
        "  protect_last_n: 4",
        "auxiliary:",
        "  compression:",
        "    provider: custom",
        "    model: aux-model",
        `    base_url: ${aux.url}/v1`,
        "",
      ].join("\n"),
    );
    const result = await run(
      [
        "chat",
        "-q",
        "print numbers",
        "-t",
        "terminal",
        "--yolo",
        "--provider",
        "custom",
        "--base-url",
        `${main.url}/v1`,
        "--api-key",
        "k",
        "--model",
        "main-model",
      ],
      home,
    );
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "all done\n");
    const summaryRequests = aux.requests.filter((r) => r.method === "POST");
    assert.ok(summaryRequests.length >= 1, "the auxiliary model wrote the summary");
    assert.equal(summaryRequests[0]!.body.model, "aux-model");
    const last = main.requests.filter((r) => r.method === "POST").at(-1)!;
    assert.match(JSON.stringify(last.body.messages), /printed many lines/, "the summary replaced the middle turns");
  } finally {
    await main.close();
    await aux.close();
    rmSync(home, { recursive: true, force: true });
  }
});
