import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkpointsFor, parseRollback, type RollbackRequest, runRollback } from "../../src/cli/checkpoint-view.js";
import { registerCheckpointsCommands } from "../../src/cli/commands/checkpoints.js";
import type { HermesRuntime } from "../../src/runtime/runtime.js";
import { run } from "../cli/commands/state-command-harness.js";
import type { ScriptStep } from "../fake-provider/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { tempDir } from "../state/temp-dir.js";

const BINARY = Buffer.from([0, 255, 1, 254, 10, 13, 10, 0, 128]);

/** A runtime whose commands and relative paths work in a fresh project directory (not a git repository). */
async function open(script: ScriptStep[], config = "") {
  const work = tempDir("hermes-rollback-project-");
  const opened = await openTestRuntime({ script, config: `terminal:\n  cwd: ${work}\n${config}` });
  return { ...opened, work };
}

async function rollback(runtime: HermesRuntime, work: string, args: string): Promise<string> {
  const request = parseRollback(args) as RollbackRequest;
  assert.equal(typeof request, "object", `"/rollback ${args}" parses`);
  return runRollback(request, await checkpointsFor(runtime.home, runtime.config, work));
}

test("edits over two turns and a modifying command are undone by /rollback: exact bytes back, a deleted file re-created, a new file removed, a hand edit kept", async () => {
  const { runtime, fake, work } = await open([
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A2\n" } }] },
    { toolCalls: [{ name: "patch", arguments: { path: "c.txt", old_string: "C1", new_string: "C2" } }] },
    { text: "turn one done" },
    { toolCalls: [{ name: "write_file", arguments: { path: "new.txt", content: "N\n" } }] },
    { toolCalls: [{ name: "terminal", arguments: { command: "rm b.bin" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "A3\n" } }] },
    { text: "turn two done" },
  ]);
  try {
    writeFileSync(join(work, "a.txt"), "A1\n");
    writeFileSync(join(work, "b.bin"), BINARY);
    writeFileSync(join(work, "c.txt"), "C1\n");
    const agent = runtime.createAgent({ interactive: false, checkpoints: true });
    assert.equal((await agent.runConversation("first")).finalResponse, "turn one done");
    assert.equal((await agent.runConversation("second")).finalResponse, "turn two done");
    assert.equal(existsSync(join(work, "b.bin")), false);
    writeFileSync(join(work, "c.txt"), "C-by-hand\n");

    const listed = await rollback(runtime, work, "");
    assert.match(listed, / 1 {2}\S+ \S+ {2}turn 2 {2}2 files changed since 2 {2}\(before changes in turn 2\)/);
    assert.match(listed, / 2 {2}\S+ \S+ {2}turn 1 {2}3 files {2}\(before changes in turn 1\)/);
    assert.match(await rollback(runtime, work, "diff 1"), /new\.txt/);

    const restored = await rollback(runtime, work, "1");
    assert.match(restored, /Restored checkpoint 1/);
    assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "A2\n");
    assert.deepEqual(readFileSync(join(work, "b.bin")), BINARY, "the deleted file is back, byte for byte");
    assert.equal(existsSync(join(work, "new.txt")), false, "the file the turn created is gone");
    assert.equal(readFileSync(join(work, "c.txt"), "utf8"), "C-by-hand\n", "the hand edit is kept");
    assert.match(restored, /kept {5}c\.txt/);

    // Before turn 1, with --force: everything as it was, the hand edit overwritten too.
    const all = await rollback(runtime, work, "3 --force");
    assert.match(all, /Restored checkpoint 3/);
    assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "A1\n");
    assert.equal(readFileSync(join(work, "c.txt"), "utf8"), "C1\n");
    assert.equal(await rollback(runtime, work, "99"), "There is no checkpoint 99 (1 to 4).");

    // A restore is itself undone by restoring the checkpoint it took first.
    await rollback(runtime, work, "1 --force");
    assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "A2\n");
    assert.equal(readFileSync(join(work, "c.txt"), "utf8"), "C-by-hand\n");
  } finally {
    await runtime.close();
    await fake.close();
  }
});

test("hermes checkpoints list and restore of one file work from the project directory; sessions without checkpoints take none", async () => {
  const { runtime, fake, home, work } = await open([
    { toolCalls: [{ name: "write_file", arguments: { path: "scratch.md", content: "agent\n" } }] },
    { text: "done" },
    { toolCalls: [{ name: "write_file", arguments: { path: "notes.md", content: "again\n" } }] },
    { toolCalls: [{ name: "write_file", arguments: { path: "other.md", content: "again\n" } }] },
    { text: "done" },
  ]);
  try {
    writeFileSync(join(work, "notes.md"), "mine\n");
    writeFileSync(join(work, "other.md"), "mine\n");
    const off = runtime.createAgent({ interactive: false });
    await off.runConversation("no checkpoints in a non-interactive session by default");
    assert.match(await rollback(runtime, work, ""), /^No checkpoints for /);

    const on = runtime.createAgent({ interactive: false, checkpoints: true });
    await on.runConversation("edit");
    const cli = (...args: string[]) => run(registerCheckpointsCommands, home, ["checkpoints", ...args, "--dir", work]);
    assert.match((await cli("list")).out, / 1 {2}.*turn 1 {2}3 files {2}/);
    await assert.rejects(cli("restore", "x"), /named by its number/);
    await assert.rejects(cli("restore", "7"), /There is no checkpoint 7/);
    const one = await cli("restore", "1", "notes.md");
    assert.match(one.out, /1 file\(s\) restored/);
    assert.equal(readFileSync(join(work, "notes.md"), "utf8"), "mine\n");
    assert.equal(readFileSync(join(work, "other.md"), "utf8"), "again\n", "only the named file is restored");
  } finally {
    await runtime.close();
    await fake.close();
  }
});

test("checkpoints.enabled: false turns them off even where they are on by default", async () => {
  const { runtime, fake, work } = await open(
    [{ toolCalls: [{ name: "write_file", arguments: { path: "x.txt", content: "x" } }] }, { text: "done" }],
    "checkpoints:\n  enabled: false\n",
  );
  try {
    const agent = runtime.createAgent({ interactive: true, platform: "acp" });
    assert.equal(agent.options.checkpoints, undefined);
    await agent.runConversation("write");
    assert.match(await rollback(runtime, work, ""), /^No checkpoints for /);
  } finally {
    await runtime.close();
    await fake.close();
  }
});
