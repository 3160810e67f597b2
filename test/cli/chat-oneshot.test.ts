import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { type NodeRun, runNode } from "../helpers/run-node.js";

let fake: FakeProvider;
let home: string;

before(async () => {
  fake = await startFakeProvider({});
});
after(async () => {
  await fake.close();
});

async function hermes(
  args: string[],
  options: { stdin?: string; env?: Record<string, string> } = {},
): Promise<NodeRun> {
  home = mkdtempSync(join(tmpdir(), "hermes-cli-"));
  try {
    return await runNode(["dist/cli/main.js", ...args], {
      env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "", ...options.env },
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

function against(script: ScriptStep[]): string[] {
  fake.setScript(script);
  return ["--provider", "custom", "--base-url", `${fake.url}/v1`, "--api-key", "k", "--model", "scripted"];
}

test("chat -q prints only the answer on stdout and exits 0", async () => {
  const run = await hermes(["chat", "-q", "hi", ...against([{ text: "Hello there." }])]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "Hello there.\n");
});

test("a tool turn runs a real terminal command; progress goes to stderr, the answer to stdout", async () => {
  const args = against([
    { toolCalls: [{ name: "terminal", arguments: { command: "echo from-the-shell" } }] },
    (req) => ({ text: `tool said: ${JSON.parse(lastToolResults(req)[0]!).output.trim()}` }),
  ]);
  const run = await hermes(["chat", "-q", "run it", "--yolo", ...args]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "tool said: from-the-shell\n");
  assert.match(run.stderr, /terminal: echo from-the-shell \(\d+\.\ds\)/);
});

test("-z prints only the final text and no progress", async () => {
  const args = against([
    { text: "thinking out loud", toolCalls: [{ name: "terminal", arguments: { command: "true" } }] },
    { text: "final only" },
  ]);
  const run = await hermes(["-z", "go", "--yolo", ...args]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "final only\n");
  assert.equal(run.stderr, "");
});

test("--json prints one result object with usage, counts and the session id", async () => {
  const args = against([
    { toolCalls: [{ name: "terminal", arguments: { command: "true" } }], usage: { input: 50, output: 5 } },
    { text: "done", usage: { input: 80, output: 3 } },
  ]);
  const run = await hermes(["chat", "-q", "go", "--json", "--yolo", ...args]);
  assert.equal(run.code, 0, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.ok, true);
  assert.equal(result.final, "done");
  assert.equal(result.apiCalls, 2);
  assert.equal(result.toolCalls, 1);
  assert.equal(result.model, "scripted");
  assert.equal(result.provider, "custom");
  assert.match(result.sessionId, /\w+/);
  assert.ok(result.usage.inputTokens >= 130);
  assert.equal(typeof result.durationMs, "number");
});

test("a provider error exits 1 with a one-line reason, and --json reports it", async () => {
  const fault: ScriptStep = { fault: { kind: "status", status: 401, message: "Invalid API key" } };
  const run = await hermes(["chat", "-q", "go", ...against([fault, fault, fault, fault])]);
  assert.equal(run.code, 1);
  assert.equal(run.stdout, "");
  assert.match(run.stderr, /rejected the credentials/);
  const json = await hermes(["chat", "-q", "go", "--json", ...against([fault, fault, fault, fault])]);
  assert.equal(json.code, 1);
  const result = JSON.parse(json.stdout);
  assert.equal(result.ok, false);
  assert.match(result.error, /credentials/);
});

test("--query-file - reads the prompt from stdin", async () => {
  const args = against([(req) => ({ text: `you said: ${req.body.messages.at(-1).content}` })]);
  const run = await hermes(["chat", "--query-file", "-", ...args], { stdin: "piped prompt" });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, "you said: piped prompt\n");
});

test("usage errors exit 2: an unknown flag, a bad --max-turns, an unreadable query file", async () => {
  const unknown = await hermes(["chat", "--bogus"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /unknown option '--bogus'/);
  const turns = await hermes(["chat", "-q", "x", "--max-turns", "zero", ...against([])]);
  assert.equal(turns.code, 2);
  assert.match(turns.stderr, /--max-turns must be a positive integer/);
  const file = await hermes(["chat", "--query-file", "/nonexistent/prompt.txt"]);
  assert.equal(file.code, 2);
  assert.match(file.stderr, /cannot read --query-file/);
});

test("with no provider configured, says how to fix it", async () => {
  const run = await hermes(["chat", "-q", "hi"], {
    env: { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", NOUS_API_KEY: "", GEMINI_API_KEY: "" },
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /hermes setup/);
  assert.match(run.stderr, /--base-url/);
});

test("every one-shot run is saved as a session the sessions command can list", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-cli-persist-"));
  try {
    writeFileSync(join(dir, "placeholder"), "");
    const args = against([{ text: "remember this" }]);
    const run = await hermes(["chat", "-q", "store me", "--json", ...args], { env: { HERMES_HOME: dir } });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(readdirSync(dir).includes("state.db"));
    const list = await hermes(["sessions", "list"], { env: { HERMES_HOME: dir } });
    assert.match(list.stdout, new RegExp(JSON.parse(run.stdout).sessionId));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--json prints exactly one object for usage, config and pre-flight errors too, with the usual exit codes", async () => {
  const cases: Array<{ args: string[]; env?: Record<string, string>; code: number; error: RegExp }> = [
    { args: ["chat", "-q", "go", "--json", "--no-such-flag"], code: 2, error: /unknown option '--no-such-flag'/ },
    {
      args: ["chat", "-q", "go", "--json", "--provider", "openrouter", "--model", "m"],
      code: 2,
      error: /no API key for OpenRouter/,
    },
    {
      args: ["chat", "-q", "go", "--json", "--provider", "custom", "--base-url", "nowhere/v1", "--model", "m"],
      code: 2,
      error: /--base-url "nowhere\/v1" is not a usable base URL/,
    },
  ];
  for (const c of cases) {
    const run = await hermes(c.args, c.env ? { env: c.env } : {});
    assert.equal(run.code, c.code, `${c.args.join(" ")}: ${run.stderr}`);
    const lines = run.stdout.trim().split("\n");
    assert.equal(lines.length, 1, run.stdout);
    const result = JSON.parse(lines[0]!);
    assert.equal(result.ok, false);
    assert.equal(result.stopReason, "error");
    assert.match(result.error, c.error);
  }
});

test("a run that ends on the iteration budget with a summary is ok, exit 0, in JSON and in text", async () => {
  const script = (): ScriptStep[] => [
    { toolCalls: [{ name: "terminal", arguments: { command: "true" } }] },
    { text: "Summary: I checked one thing and ran out of turns." },
  ];
  const json = await hermes(["chat", "-q", "go", "--json", "--yolo", "--max-turns", "1", ...against(script())]);
  assert.equal(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.equal(result.ok, true);
  assert.equal(result.stopReason, "budget");
  assert.match(result.final, /^Summary:/);
  assert.equal(result.error, undefined);
  const text = await hermes(["chat", "-q", "go", "--yolo", "--max-turns", "1", ...against(script())]);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, "Summary: I checked one thing and ran out of turns.\n");
  assert.match(text.stderr, /iteration budget ran out/);
});
