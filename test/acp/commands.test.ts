import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { runNode } from "../helpers/run-node.js";
import { tempDir } from "../state/temp-dir.js";
import { AcpClient, hermesHome } from "./harness.js";

let fake: FakeProvider;
const running: AcpClient[] = [];

before(async () => {
  fake = await startFakeProvider({ models: [{ id: "m" }, { id: "m-other" }] });
});
after(async () => {
  await Promise.all(running.map((c) => c.kill()));
  await fake.close();
});

test("slash commands answer in the session without calling the model, /queue and /steer reach a running turn", async () => {
  let asked: () => void = () => {};
  const permissionAsked = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const acp = AcpClient.start({
    home: hermesHome(fake.url),
    permission: async () => {
      asked();
      await released;
      return { outcome: { outcome: "selected", optionId: "once" } };
    },
  });
  running.push(acp);
  await acp.initialize();
  const work = tempDir("hermes-acp-work-");
  const { sessionId } = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  const say = (text: string) => acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  const posts = () => fake.requests.filter((r) => r.method === "POST").length;
  const before = posts();
  await say("/help");
  assert.match(acp.textOf(sessionId), /\/compact/);
  await say("/tools");
  assert.match(acp.textOf(sessionId), /Tools \(ask mode\):.*read_file/);
  await say("/model m-other");
  assert.match(acp.textOf(sessionId), /Model set to m-other/);
  await say("/context");
  assert.match(acp.textOf(sessionId), /Context: about \d+ of \d+ tokens/);
  assert.equal(posts(), before, "no model call for slash commands");

  // The turn waits on a permission answer while /steer and /queue arrive.
  fake.setScript([
    { toolCalls: [{ id: "call-w", name: "write_file", arguments: { path: "s.txt", content: "x" } }] },
    (req) => ({ text: `steer seen: ${JSON.stringify(req.body.messages).includes("prefer tabs")}.` }),
    { text: "queued prompt ran." },
  ]);
  const turn = say("start");
  await permissionAsked;
  assert.equal((await say("/steer prefer tabs")).stopReason, "end_turn");
  assert.equal((await say("/queue then this")).stopReason, "end_turn");
  release();
  assert.equal((await turn).stopReason, "end_turn");
  const text = acp.textOf(sessionId);
  assert.match(text, /Noted: the running turn reads it/);
  assert.match(text, /Queued: it runs when the current turn ends/);
  assert.match(text, /steer seen: true\.[\s\S]*queued prompt ran\./);

  await say("/reset");
  fake.setScript([(req) => ({ text: `fresh with ${req.body.messages.length} messages` })]);
  await say("hello again");
  assert.match(acp.textOf(sessionId), /fresh with 2 messages/);
  fake.setScript([{ text: "a summary of the conversation" }]);
  await say("/compact keep the greeting");
  assert.match(acp.textOf(sessionId), /Compacted: about \d+ → \d+ tokens|already as small|Nothing to compact/);
  await acp.stop();
});

test("hermes acp --check prints capabilities, modes, models and auth methods, and exits 0", async () => {
  const home = hermesHome(fake.url);
  const run = await runNode(["--import", "tsx", "src/cli/main.ts", "acp", "--check"], {
    env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /sessions: load yes, resume yes, fork yes, list yes/);
  assert.match(run.stdout, /prompts: images yes, embedded resources yes/);
  assert.match(run.stdout, /api-key: /);
  assert.match(run.stdout, /hermes-setup: Run hermes setup \(in a terminal\)/);
  for (const mode of ["ask", "auto-edit", "yolo", "plan"]) assert.match(run.stdout, new RegExp(`^  ${mode}`, "m"));
  assert.match(run.stdout, /models: m \(current\), m-other/);
});

test("without a usable provider, initialize still answers and session/new asks the editor to authenticate", async () => {
  const home = tempDir("hermes-acp-noauth-");
  writeFileSync(join(home, "config.yaml"), "model:\n  default: some-model\n  provider: openrouter\n");
  const acp = AcpClient.start({ home });
  running.push(acp);
  const init = await acp.initialize();
  assert.equal(init.authMethods?.length, 2);
  await assert.rejects(
    acp.agent.request("session/new", { cwd: tempDir("hermes-acp-work-"), mcpServers: [] }),
    (error: { code?: number; message?: string }) => error.code === -32000,
  );
  await acp.stop();
});

test("hermes --help and --version load none of the ACP surface or its SDK", async () => {
  const trace = join(tempDir("hermes-acp-trace-"), "modules.txt");
  for (const flag of ["--help", "--version"]) {
    const run = await runNode(
      ["--import", "tsx", "--import", "./test/helpers/import-trace.mjs", "src/cli/main.ts", flag],
      { env: { ...process.env, IMPORT_TRACE_FILE: trace, HERMES_HOME: tempDir("hermes-acp-home-") } },
    );
    assert.equal(run.code, 0, run.stderr);
  }
  const loaded = readFileSync(trace, "utf8");
  assert.match(loaded, /commands\/acp\.ts/, "the command itself registers");
  assert.doesNotMatch(loaded, /@agentclientprotocol/);
  assert.doesNotMatch(loaded, /src\/acp\//);
});
