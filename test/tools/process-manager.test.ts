import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ProcessManager, ProcessNotFoundError } from "../../src/tools/process-manager.js";
import { isAlive, tempDir, waitUntil } from "./process-helpers.js";

const managers: ProcessManager[] = [];
function manager(options?: ConstructorParameters<typeof ProcessManager>[0]): ProcessManager {
  const m = new ProcessManager({ killGraceMs: 500, ...options });
  managers.push(m);
  return m;
}
after(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
});

describe("ProcessManager", () => {
  test("runs a command in the background and reports its exit and output", async () => {
    const pm = manager();
    const cwd = tempDir();
    const info = pm.start({ command: "printf 'one\\ntwo\\n'; pwd; exit 3", cwd });
    assert.match(info.session_id, /^proc_[0-9a-f]{12}$/);
    assert.equal(info.status, "running");
    const done = await pm.wait(info.session_id, 10_000);
    assert.equal(done.timed_out, false);
    assert.equal(done.status, "exited");
    assert.equal(done.exit_code, 3);
    assert.equal(done.output, `one\ntwo\n${cwd}\n`);
  });

  test("poll returns only output produced since the previous poll", async () => {
    const pm = manager();
    const { session_id } = pm.start({ command: "echo first; echo second", cwd: tempDir() });
    await pm.wait(session_id, 10_000);
    assert.equal(pm.poll(session_id).new_output, "first\nsecond\n");
    assert.equal(pm.poll(session_id).new_output, "");
  });

  test("log pages through output lines", async () => {
    const pm = manager();
    const { session_id } = pm.start({ command: "seq 1 500", cwd: tempDir() });
    await pm.wait(session_id, 10_000);
    const tail = pm.log(session_id);
    assert.equal(tail.total_lines, 500);
    assert.equal(tail.lines_returned, 200);
    assert.equal(tail.offset, 300);
    assert.ok(tail.output.startsWith("301\n") && tail.output.endsWith("\n500"));
    const page = pm.log(session_id, { offset: 10, limit: 3 });
    assert.equal(page.output, "11\n12\n13");
  });

  test("keeps only the newest output when the buffer cap is exceeded", async () => {
    const pm = manager({ bufferChars: 1000 });
    const { session_id } = pm.start({ command: "seq 1 2000", cwd: tempDir() });
    await pm.wait(session_id, 10_000);
    const log = pm.log(session_id, { offset: 0, limit: 10_000 });
    assert.ok(log.output.startsWith("["), "says that earlier output was dropped");
    assert.ok(log.output.endsWith("1999\n2000"));
    assert.ok(log.output.length < 1100);
    const total = pm.list().find((p) => p.session_id === session_id)?.output_chars ?? 0;
    assert.ok(total > 8000, "counts every character ever written");
  });

  test("writes to stdin and closes it", async () => {
    const pm = manager();
    const { session_id } = pm.start({ command: "cat", cwd: tempDir() });
    pm.write(session_id, "hello\n");
    pm.write(session_id, "world\n");
    await waitUntil(() => pm.log(session_id).output.includes("world"), 5000, "echoed stdin");
    pm.closeStdin(session_id);
    const done = await pm.wait(session_id, 10_000);
    assert.equal(done.exit_code, 0);
    assert.equal(done.output, "hello\nworld\n");
    assert.throws(() => pm.write(session_id, "late"), /not accepting input/);
  });

  test("wait gives up after its timeout while the process keeps running", async () => {
    const pm = manager();
    const { session_id } = pm.start({ command: "sleep 30", cwd: tempDir() });
    const waited = await pm.wait(session_id, 100);
    assert.equal(waited.timed_out, true);
    assert.equal(waited.status, "running");
  });

  test("kill stops the whole process group", async () => {
    const pm = manager();
    const dir = tempDir();
    const pidFile = join(dir, "child.pid");
    const { session_id } = pm.start({ command: `sleep 30 & echo $! > ${pidFile}; wait`, cwd: dir });
    await waitUntil(() => readPid(pidFile) !== null, 5000, "child pid file");
    const childPid = readPid(pidFile) as number;
    assert.ok(isAlive(childPid));
    const killed = await pm.kill(session_id);
    assert.equal(killed.status, "killed");
    await waitUntil(() => !isAlive(childPid), 2000, "sleep child to disappear");
  });

  test("a process that ignores SIGTERM gets the kill grace set at run time, then SIGKILL", async () => {
    const pm = manager({ killGraceMs: 60_000 });
    pm.setKillGrace(100);
    assert.equal(pm.killGrace, 100);
    const dir = tempDir();
    const ready = join(dir, "ready");
    const { session_id } = pm.start({ command: `trap '' TERM; touch ${ready}; while :; do sleep 1; done`, cwd: dir });
    await waitUntil(() => existsSync(ready), 5000, "the TERM-proof loop to start");
    const killed = await pm.kill(session_id);
    assert.equal(killed.status, "killed", "stopped within the new grace, not the 60 s it was made with");
  });

  test("calls the completion callback once with a report", async () => {
    const pm = manager();
    const reports: string[] = [];
    const { session_id } = pm.start({
      command: "echo built; exit 1",
      cwd: tempDir(),
      onComplete: (text) => reports.push(text),
    });
    await pm.wait(session_id, 10_000);
    assert.equal(reports.length, 1);
    assert.match(reports[0] ?? "", new RegExp(`${session_id} exited with code 1`));
    assert.match(reports[0] ?? "", /built/);
  });

  test("a throwing completion callback does not break the manager", async () => {
    const pm = manager();
    const { session_id } = pm.start({
      command: "true",
      cwd: tempDir(),
      onComplete: () => {
        throw new Error("boom");
      },
    });
    const done = await pm.wait(session_id, 10_000);
    assert.equal(done.status, "exited");
  });

  test("sessions only see their own processes", async () => {
    const pm = manager();
    const mine = pm.start({ command: "true", cwd: tempDir(), sessionId: "a" });
    pm.start({ command: "true", cwd: tempDir(), sessionId: "b" });
    assert.deepEqual(
      pm.list("a").map((p) => p.session_id),
      [mine.session_id],
    );
    assert.throws(() => pm.poll(mine.session_id, "b"), ProcessNotFoundError);
    assert.equal(pm.list().length, 2);
  });

  test("refuses to start more than the process limit", async () => {
    const pm = manager({ maxProcesses: 2 });
    pm.start({ command: "sleep 30", cwd: tempDir() });
    pm.start({ command: "sleep 30", cwd: tempDir() });
    assert.throws(() => pm.start({ command: "sleep 30", cwd: tempDir() }), /too many background processes/);
  });

  test("dispose kills every running process", async () => {
    const pm = new ProcessManager({ killGraceMs: 500 });
    const a = pm.start({ command: "sleep 30", cwd: tempDir() });
    const b = pm.start({ command: "sleep 30", cwd: tempDir() });
    await pm.dispose();
    for (const pid of [a.pid, b.pid]) assert.equal(isAlive(pid as number), false);
    assert.deepEqual(pm.list(), []);
  });
});

test("background processes do not outlive the Node process", async () => {
  const dir = tempDir();
  const script = join(dir, "owner.ts");
  const moduleUrl = new URL("../../src/tools/process-manager.ts", import.meta.url).href;
  writeFileSync(
    script,
    `import { ProcessManager } from ${JSON.stringify(moduleUrl)};
const info = new ProcessManager().start({ command: "sleep 30", cwd: ${JSON.stringify(dir)} });
console.log(info.pid);
process.exit(0);
`,
  );
  const owner = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 30_000 });
  assert.equal(owner.status, 0, owner.stderr);
  const pid = Number(owner.stdout.trim());
  assert.ok(pid > 0);
  await waitUntil(() => !isAlive(pid), 2000, "orphaned sleep to disappear");
});

function readPid(path: string): number | null {
  try {
    const text = readFileSync(path, "utf8").trim();
    return text ? Number(text) : null;
  } catch {
    return null;
  }
}
