import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { openSessionStore } from "../../src/state/session-store.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { backgroundScript, dispatching, HeldChildren } from "../helpers/background-subagents.js";
import type { NodeRun } from "../helpers/run-node.js";

/** Runs the CLI; `stderrShows` resolves once its stderr contains the text (bounded wait). */
function startCli(args: string[], env: NodeJS.ProcessEnv, stdin = "") {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], { env, cwd: process.cwd() });
  let stdout = "";
  let stderr = "";
  const watchers: Array<{ text: string; resolve: () => void }> = [];
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
    for (const w of watchers.filter((w) => stderr.includes(w.text))) {
      watchers.splice(watchers.indexOf(w), 1);
      w.resolve();
    }
  });
  child.stdin.end(stdin);
  const done = new Promise<NodeRun>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
  const stderrShows = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (stderr.includes(text)) return resolve();
      const timer = setTimeout(() => reject(new Error(`stderr never showed "${text}": ${stderr}`)), 10_000);
      watchers.push({
        text,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  return { done, stderrShows };
}

/** `lineMode`: the prompt arrives as a line of piped input to `hermes`, not with `chat -q`. */
async function oneShot(goal: string, extraArgs: string[] = [], lineMode = false) {
  const held = new HeldChildren();
  const fake = await startFakeProvider({
    fallback: backgroundScript(held, {
      ...dispatching({ goal }),
      onToolResult: () => ({ text: "Dispatched; waiting for it." }),
    }),
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-bg-oneshot-"));
  writeFileSync(join(home, "config.yaml"), "learning:\n  mode: off\n");
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  const env = { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" };
  const cli = lineMode
    ? startCli([...args, ...extraArgs], env, "do it in the background\n")
    : startCli(["chat", "-q", "do it in the background", ...args, ...extraArgs], env);
  return {
    held,
    fake,
    home,
    run: cli.done,
    stderrShows: cli.stderrShows,
    close: async () => {
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

test("a one-shot run waits for its background subagent and answers with its result", async () => {
  const s = await oneShot("measure the build");
  try {
    await s.held.arrived("measure the build");
    // The parent's turn is over and the process waits, the subagent still held: then it may answer.
    await s.stderrShows("waiting for 1 background subagent to finish");
    s.held.release("measure the build", { text: "The build takes 41 seconds." });
    const run = await s.run;
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /^parent read: \[Background subagent result bg_\w+ — this is not a message from the user\]/,
    );
    assert.match(run.stdout, /The build takes 41 seconds\./);
    assert.match(run.stderr, /waiting for 1 background subagent to finish/);

    const store = await openSessionStore(join(s.home, "state.db"));
    try {
      const [session] = await store.listSessions({ limit: 1 });
      const users = (await store.getMessages(session!.id)).filter((m) => m.role === "user");
      assert.equal(users.length, 2, "the result ran as a second turn of the same session");
      assert.match(String(users[1]?.content), /^\[Background subagent result/);
    } finally {
      store.close();
    }
  } finally {
    await s.close();
  }
});

test("piped input that ends while a background subagent runs waits for it and prints the result turn's answer", async () => {
  const s = await oneShot("count the tests", [], true);
  try {
    await s.held.arrived("count the tests");
    await s.stderrShows("waiting for 1 background subagent to finish");
    s.held.release("count the tests", { text: "There are 3881 tests." });
    const run = await s.run;
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Dispatched; waiting for it\.\n/);
    assert.match(
      run.stdout,
      /parent read: \[Background subagent result bg_\w+ — this is not a message from the user\]/,
    );
    assert.match(run.stdout, /There are 3881 tests\./);
  } finally {
    await s.close();
  }
});

test("--json counts the follow-up turn's model calls with the first turn's", async () => {
  const s = await oneShot("list the ports", ["--json"]);
  try {
    await s.held.arrived("list the ports");
    s.held.release("list the ports", { text: "8080 and 8443" });
    const run = await s.run;
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.ok, true);
    assert.match(result.final, /8080 and 8443/);
    assert.equal(result.apiCalls, 3, "two calls in the first turn, one in the follow-up");
  } finally {
    await s.close();
  }
});
