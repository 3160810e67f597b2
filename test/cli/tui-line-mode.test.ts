import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";
import { titleEndpointConfig, useTitleEndpoint } from "../helpers/title-endpoint.js";

let fake: FakeProvider;
let titles: FakeProvider;
let home: string;
before(async () => {
  fake = await startFakeProvider({});
  titles = await startFakeProvider({ fallback: { text: "A test session" } });
  home = mkdtempSync(join(tmpdir(), "hermes-line-"));
  useTitleEndpoint(home, titles.url);
});
after(async () => {
  await fake.close();
  await titles.close();
  rmSync(home, { recursive: true, force: true });
});

/** `hermes` with piped stdin (not a terminal), so the interactive session runs in line mode. */
function hermes(stdin: string): Promise<NodeRun> {
  const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
  return runNode(["--import", "tsx", "src/cli/main.ts", ...args], {
    env: { ...process.env, HERMES_HOME: home, HERMES_YOLO_MODE: "" },
    stdin,
  });
}

test("without a terminal each stdin line is a message or slash command, answers on stdout", async () => {
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: "echo line-mode" } }] },
    (req) => ({ text: `the tool printed ${JSON.parse(lastToolResults(req)[0]!).output.trim()}` }),
    { text: "second answer" },
  ]);
  const run = await hermes("first question\n/yolo\nsecond question\n/history\n");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^the tool printed line-mode\n/);
  assert.match(run.stdout, /YOLO on/);
  assert.match(run.stdout, /second answer\n/);
  assert.match(run.stdout, /you: first question[\s\S]*you: second question\nhermes: second answer/);
  assert.match(run.stderr, /terminal: echo line-mode \(\d+\.\ds\)/);
});

test("in line mode an approval question reads its answer from the next line", async () => {
  fake.setScript([
    { toolCalls: [{ name: "terminal", arguments: { command: "rm -rf ./hermes-line-never-created" } }] },
    (req) => ({ text: `result: ${lastToolResults(req)[0]}` }),
  ]);
  const run = await hermes("tidy up\nd\n/quit\nnot reached\n");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /dangerous command \(recursive delete\): rm -rf \.\/hermes-line-never-created/);
  assert.match(run.stdout, /result: .*denied/);
  assert.doesNotMatch(run.stdout, /not reached/);
});

test("in line mode a failed turn prints why on stderr and the next line is still answered", async () => {
  fake.setScript([
    { fault: { kind: "status", status: 401, message: "this key was revoked in a test" } },
    { text: "back again" },
  ]);
  const run = await hermes("first\nsecond\n");
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^hermes: custom\/scripted rejected the credentials: check the API key/m);
  assert.equal(run.stdout, "back again\n");
});

test("in line mode display.tool_preview_length sets how much of the arguments a tool line shows", async () => {
  const own = mkdtempSync(join(tmpdir(), "hermes-line-preview-"));
  try {
    writeFileSync(join(own, "config.yaml"), `${titleEndpointConfig(titles.url)}display:\n  tool_preview_length: 16\n`);
    fake.setScript([
      { toolCalls: [{ name: "terminal", arguments: { command: "echo a-rather-long-argument-list" } }] },
      { text: "done" },
    ]);
    const args = ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
    const run = await runNode(["--import", "tsx", "src/cli/main.ts", ...args, "--yolo"], {
      env: { ...process.env, HERMES_HOME: own, HERMES_YOLO_MODE: "" },
      stdin: "go\n",
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /terminal: echo a-rather-l… \(\d+\.\ds\)/);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});
