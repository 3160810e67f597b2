import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider({});
});
after(() => fake.close());

/** Running (a zombie waiting for its new parent to reap it counts as dead). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  if (!existsSync("/proc/self/stat")) return true;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

const args = () => ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "m", "--yolo"];
const env = (home: string) => ({ ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" });

test("a one-shot run exits with its answer and stops the background processes the model left, naming them", async () => {
  const work = tempDir("hermes-bg-");
  const pidFile = join(work, "bg.pid");
  fake.setScript([
    {
      toolCalls: [
        { name: "terminal", arguments: { command: `echo $$ > ${pidFile}; exec sleep 300`, background: true } },
      ],
    },
    // The answer waits until the watcher is really running, so there is something to stop.
    async () => {
      const deadline = Date.now() + 10_000;
      while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return { text: "started it" };
    },
  ]);
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "start a watcher", ...args()], {
    env: env(tempDir("hermes-home-")),
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "started it\n");
  assert.match(run.stderr, /stopping background process proc_\w+ \(echo .* exec sleep 300\)/);
  const pid = Number(readFileSync(pidFile, "utf8"));
  assert.ok(pid > 0);
  assert.equal(alive(pid), false, "the background process was stopped");
});

test("SIGTERM during a foreground command stops the command's whole process group and exits 130", async () => {
  const work = tempDir("hermes-fg-");
  const pidFile = join(work, "fg.pid");
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: `sleep 300 & echo $! > ${pidFile}; wait` } }] },
    { text: "never reached" },
  ]);
  const child = spawn(process.execPath, ["dist/cli/main.js", "chat", "-q", "long job", ...args()], {
    env: env(tempDir("hermes-home-")),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const deadline = Date.now() + 10_000;
  while (!existsSync(pidFile) || !readFileSync(pidFile, "utf8").trim()) {
    assert.ok(Date.now() < deadline, `the command never started: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const grandchild = Number(readFileSync(pidFile, "utf8"));
  child.kill("SIGTERM");
  assert.equal(await exited, 130, stderr);
  const gone = Date.now() + 5000;
  while (alive(grandchild) && Date.now() < gone) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(alive(grandchild), false, "the command's children were stopped with it");
});

test("a keep_alive process the user allowed outlives the run, its output in a file the run names", async (t) => {
  const work = tempDir("hermes-keep-");
  const pidFile = join(work, "kept.pid");
  const home = tempDir("hermes-home-");
  writeFileSync(join(home, "config.yaml"), "terminal:\n  allow_keep_alive: true\n");
  fake.setScript([
    {
      toolCalls: [
        {
          name: "terminal",
          arguments: {
            command: `echo $$ > ${pidFile}; echo serving-on-8000; exec sleep 300`,
            background: true,
            keep_alive: true,
          },
        },
      ],
    },
    async () => {
      const deadline = Date.now() + 10_000;
      while (!existsSync(pidFile) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return { text: "left it running" };
    },
  ]);
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "start a server", ...args()], { env: env(home) });
  const pid = Number(readFileSync(pidFile, "utf8"));
  t.after(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "left it running\n");
  const left = /leaving background process proc_\w+ running \(pid \d+, .*\); output: (\S+)/.exec(run.stderr);
  assert.ok(left, run.stderr);
  assert.equal(alive(pid), true, "the keep-alive process is still running after hermes exited");
  assert.match(readFileSync(left[1]!, "utf8"), /serving-on-8000/);
});

test("keep_alive is refused, with the setting to change, unless the user allowed it", async () => {
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: "sleep 300", background: true, keep_alive: true } }] },
    { text: "could not" },
  ]);
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "start a server", ...args()], {
    env: env(tempDir("hermes-home-")),
  });
  assert.equal(run.code, 0, run.stderr);
  const toolResult = JSON.stringify(fake.requests.at(-1)?.body);
  assert.match(toolResult, /keep_alive is not allowed: the user has not set terminal.allow_keep_alive/);
  assert.doesNotMatch(run.stderr, /background process/);
});
