import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parseSince, selectLines } from "../../src/cli/commands/logs.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider({});
});
after(() => fake.close());

const env = (home: string) => ({ ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" });
const modelArgs = () => [
  "--provider",
  "custom",
  "--base-url",
  `${fake.url}/v1`,
  "--api-key",
  "k",
  "--model",
  "m",
  "--yolo",
];

test("a one-shot run logs the session, each model request with its status and latency, and each tool call", async () => {
  const home = tempDir("hermes-logs-");
  fake.setScript([{ toolCalls: [{ name: "terminal", arguments: { command: "echo logged" } }] }, { text: "done" }]);
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "go", ...modelArgs()], { env: env(home) });
  assert.equal(run.code, 0, run.stderr);
  const text = readFileSync(join(home, "logs", "agent.log"), "utf8");
  assert.match(text, /INFO {2}runtime open platform=cli provider=custom model=m/);
  assert.match(text, /INFO {2}agent run start session=\S+ platform=cli model=m/);
  assert.match(text, /INFO {2}llm reply provider=custom model=m status=200 ms=\d+ finish=tool_calls/);
  assert.match(text, /INFO {2}tool done name=terminal ms=\d+ session=\S+ preview=/);
  assert.match(text, /INFO {2}agent run end session=\S+ stop=completed api_calls=2 tool_calls=1 ms=\d+/);
  assert.doesNotMatch(run.stderr, /llm reply/, "without -v the log stays in the file");
});

test("-v mirrors the log to stderr; provider failures and their retries reach errors.log", async () => {
  const home = tempDir("hermes-logs-");
  const fault = { fault: { kind: "status" as const, status: 500, message: "upstream exploded" } };
  fake.setScript([fault, { text: "recovered" }]);
  const run = await runNode(["dist/cli/main.js", "chat", "-q", "go", "-v", ...modelArgs()], { env: env(home) });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /WARN {2}llm call failed provider=custom model=m status=500 .*reason=server_error/);
  assert.match(run.stderr, /INFO {2}recovery retry reason=server_error/);
  const errors = readFileSync(join(home, "logs", "errors.log"), "utf8");
  assert.match(errors, /llm call failed .*status=500/);
  assert.doesNotMatch(errors, /llm reply/);
});

test("logs picks the last N lines, lines since a time, and errors.log", async () => {
  const home = tempDir("hermes-logs-");
  mkdirSync(join(home, "logs"));
  const old = "2026-01-01T00:00:00.000Z INFO  agent old line";
  const recent = `${new Date().toISOString()} INFO  agent recent line`;
  writeFileSync(join(home, "logs", "agent.log"), `${old}\n${recent}\n`);
  writeFileSync(join(home, "logs", "errors.log"), `${new Date().toISOString()} ERROR agent broke\n`);
  const last = await runNode(["dist/cli/main.js", "logs", "-n", "1"], { env: env(home) });
  assert.equal(last.stdout, `${recent}\n`);
  const since = await runNode(["dist/cli/main.js", "logs", "--since", "1h"], { env: env(home) });
  assert.equal(since.stdout, `${recent}\n`);
  const errors = await runNode(["dist/cli/main.js", "logs", "--errors"], { env: env(home) });
  assert.match(errors.stdout, /ERROR agent broke/);
  writeFileSync(join(home, "logs", "gateway.log"), `${new Date().toISOString()} INFO  gateway webhook: listening\n`);
  const gateway = await runNode(["dist/cli/main.js", "logs", "--gateway"], { env: env(home) });
  assert.match(gateway.stdout, /gateway webhook: listening/);
  const both = await runNode(["dist/cli/main.js", "logs", "--gateway", "--errors"], { env: env(home) });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /pick one/);
  const bad = await runNode(["dist/cli/main.js", "logs", "--since", "yesterdayish"], { env: env(home) });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--since "yesterdayish" is not a duration/);
});

test("logs --follow prints new lines as they are written, across a rotation, until Ctrl-C", async () => {
  const home = tempDir("hermes-logs-");
  const dir = join(home, "logs");
  mkdirSync(dir);
  const path = join(dir, "agent.log");
  writeFileSync(path, "first\n");
  const child = spawn(process.execPath, ["dist/cli/main.js", "logs", "--follow"], { env: env(home) });
  let out = "";
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(text)) {
          child.stdout.off("data", onData);
          resolve();
        }
      };
      const onData = (chunk: Buffer) => {
        out += chunk;
        check();
      };
      child.stdout.on("data", onData);
      child.once("exit", () => reject(new Error(`exited before printing ${text}: ${out}`)));
      check();
    });
  await waitFor("first\n");
  appendFileSync(path, "second\n");
  await waitFor("second\n");
  renameSync(path, `${path}.1`);
  writeFileSync(path, "after rotation\n");
  await waitFor("after rotation\n");
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGINT");
  assert.equal(await exited, 0);
});

test("--since reads durations and dates; selectLines keeps undated continuation lines", () => {
  const now = Date.parse("2026-11-24T12:00:00Z");
  assert.equal(parseSince("10m", now), now - 600_000);
  assert.equal(parseSince("2h", now), now - 7_200_000);
  assert.equal(parseSince("2026-11-24T09:00:00Z", now), Date.parse("2026-11-24T09:00:00Z"));
  const text = "2026-11-24T08:00:00.000Z INFO a old\n2026-11-24T11:00:00.000Z INFO a new\n";
  assert.deepEqual(selectLines(text, { count: 50, since: Date.parse("2026-11-24T10:00:00Z") }), [
    "2026-11-24T11:00:00.000Z INFO a new",
  ]);
});
