import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

test("an interactive session checkpoints before its edits and /rollback 1 in the session undoes them", async () => {
  const fake = await startFakeProvider({
    script: [
      { toolCalls: [{ name: "write_file", arguments: { path: "app.js", content: "changed\n" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "added.js", content: "new\n" } }] },
      { text: "edited" },
    ],
  });
  const home = tempDir("hermes-rollback-line-");
  const work = tempDir("hermes-rollback-line-project-");
  writeFileSync(join(home, "config.yaml"), `terminal:\n  cwd: ${work}\n`);
  writeFileSync(join(work, "app.js"), "original\n");
  try {
    const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "m"];
    const run = await runNode(["dist/cli/main.js", ...args], {
      env: { ...process.env, HERMES_HOME: home, HERMES_YOLO_MODE: "" },
      stdin: "edit the app\n/rollback\n/rollback 1\n",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /edited\n/);
    assert.match(run.stdout, / 1 {2}\S+ \S+ {2}turn 1 {2}1 file {2}\(before changes in turn 1\)/);
    assert.match(run.stdout, /Restored checkpoint 1: 1 file\(s\) restored, 1 removed\./);
    assert.equal(readFileSync(join(work, "app.js"), "utf8"), "original\n");
    assert.equal(existsSync(join(work, "added.js")), false);
  } finally {
    await fake.close();
  }
});
