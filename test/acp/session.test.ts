import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { AcpClient, hermesHome } from "./harness.js";

let fake: FakeProvider;
const running: AcpClient[] = [];

before(async () => {
  fake = await startFakeProvider({ models: [{ id: "m" }, { id: "m-large" }] });
});
after(async () => {
  await Promise.all(running.map((c) => c.kill()));
  await fake.close();
});

function start(home: string): AcpClient {
  const acp = AcpClient.start({ home });
  running.push(acp);
  return acp;
}

function assertOnlyJsonRpc(acp: AcpClient): void {
  assert.ok(acp.stdoutLines.length > 0);
  const answered = new Set<unknown>();
  for (const line of acp.stdoutLines) {
    const frame = JSON.parse(line) as Record<string, unknown>;
    if (!("method" in frame)) {
      assert.ok(!answered.has(frame.id), `request ${String(frame.id)} answered twice`);
      answered.add(frame.id);
    }
    assert.equal(frame.jsonrpc, "2.0", `not a JSON-RPC frame: ${line}`);
    assert.ok(
      "method" in frame || "result" in frame || "error" in frame,
      `not a request, response or notification: ${line}`,
    );
  }
}

test("initialize names the capabilities, and a prompt streams chunks and a tool call with its kind and location", async () => {
  const home = hermesHome(fake.url);
  const work = tempDir("hermes-acp-work-");
  writeFileSync(join(work, "notes.txt"), "alpha\nbeta\n");
  fake.setScript([
    {
      reasoning: "Look at the file first.",
      text: "Reading it.",
      toolCalls: [{ id: "call-read", name: "read_file", arguments: { path: "notes.txt" } }],
    },
    { text: "The file says alpha and beta." },
  ]);
  const acp = start(home);
  const init = await acp.initialize();
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities?.loadSession, true);
  assert.deepEqual(init.agentCapabilities?.promptCapabilities, { image: true, audio: false, embeddedContext: true });
  assert.ok(init.agentCapabilities?.sessionCapabilities?.list);
  assert.ok(init.agentCapabilities?.sessionCapabilities?.resume);
  assert.deepEqual(
    init.authMethods?.map((m) => m.id),
    ["api-key", "hermes-setup"],
  );

  const created = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  assert.equal(created.modes?.currentModeId, "ask");
  const categories = created.configOptions?.map((o) => o.category);
  assert.deepEqual(categories, ["mode", "model"]);

  const result = await acp.agent.request("session/prompt", {
    sessionId: created.sessionId,
    prompt: [{ type: "text", text: "what is in notes.txt?" }],
  });
  assert.equal(result.stopReason, "end_turn");
  const id = created.sessionId;
  assert.match(acp.textOf(id), /Reading it\.[\s\S]*The file says alpha and beta\./);
  assert.match(acp.textOf(id, "agent_thought_chunk"), /Look at the file first\./);
  const [call] = acp.updatesOf(id, "tool_call");
  assert.ok(call && call.sessionUpdate === "tool_call");
  assert.equal(call.toolCallId, "call-read");
  assert.equal(call.kind, "read");
  assert.equal(call.status, "pending");
  assert.deepEqual(call.locations, [{ path: join(work, "notes.txt") }]);
  const statuses = acp
    .updatesOf(id, "tool_call_update")
    .map((u) => (u.sessionUpdate === "tool_call_update" ? u.status : undefined));
  assert.deepEqual(statuses, ["in_progress", "completed"]);
  await acp.waitFor((n) => n.update.sessionUpdate === "available_commands_update", "slash commands");
  const commands = acp.updatesOf(id, "available_commands_update")[0];
  assert.ok(commands?.sessionUpdate === "available_commands_update");
  for (const name of ["help", "model", "tools", "context", "compact", "steer", "queue", "reset"]) {
    assert.ok(
      commands.availableCommands.some((c) => c.name === name),
      name,
    );
  }
  await acp.stop();
  assertOnlyJsonRpc(acp);
});

test("the model picked through configOptions is the one the provider is asked for", async () => {
  const home = hermesHome(fake.url);
  const acp = start(home);
  await acp.initialize();
  const created = await acp.agent.request("session/new", { cwd: tempDir("hermes-acp-work-"), mcpServers: [] });
  const model = created.configOptions?.find((o) => o.category === "model");
  assert.ok(model && model.type === "select");
  assert.equal(model.currentValue, "m");
  assert.ok(model.options.some((o) => "value" in o && o.value === "m-large"));
  const changed = await acp.agent.request("session/set_config_option", {
    sessionId: created.sessionId,
    configId: "model",
    value: "m-large",
  });
  const now = changed.configOptions.find((o) => o.category === "model");
  assert.equal(now?.type === "select" ? now.currentValue : undefined, "m-large");
  await assert.rejects(
    acp.agent.request("session/set_config_option", { sessionId: created.sessionId, configId: "model", value: "nope" }),
    /offered models/,
  );
  fake.setScript([{ text: "hello from the large one" }]);
  const before = fake.requests.length;
  await acp.agent.request("session/prompt", { sessionId: created.sessionId, prompt: [{ type: "text", text: "hi" }] });
  const sent = fake.requests.slice(before).filter((r) => r.method === "POST");
  assert.equal(sent.at(-1)?.body.model, "m-large");
  await acp.stop();
  assertOnlyJsonRpc(acp);
});

test("plan mode offers no write tools and refuses a write the model asks for", async () => {
  const home = hermesHome(fake.url);
  const work = tempDir("hermes-acp-work-");
  const acp = start(home);
  await acp.initialize();
  const { sessionId } = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  await acp.agent.request("session/set_mode", { sessionId, modeId: "plan" });
  await acp.waitFor((n) => n.update.sessionUpdate === "current_mode_update", "mode update");
  fake.setScript([
    { toolCalls: [{ id: "call-write", name: "write_file", arguments: { path: "plan.txt", content: "x" } }] },
    { text: "I could not write it." },
  ]);
  const before = fake.requests.length;
  const result = await acp.agent.request("session/prompt", {
    sessionId,
    prompt: [{ type: "text", text: "write plan.txt" }],
  });
  assert.equal(result.stopReason, "end_turn");
  const request = fake.requests.slice(before).find((r) => r.method === "POST");
  const offered = (request?.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
  assert.ok(offered.includes("read_file"));
  for (const name of ["write_file", "patch", "terminal", "execute_code"]) assert.ok(!offered.includes(name), name);
  assert.throws(() => readFileSync(join(work, "plan.txt")), /ENOENT/);
  // An unknown tool is answered by the loop's validation (no tool call shown) or shown failed; never completed.
  for (const update of acp.updatesOf(sessionId, "tool_call_update")) {
    assert.ok(update.sessionUpdate === "tool_call_update" && update.status !== "completed");
  }
  assert.match(acp.textOf(sessionId), /could not write/);
  await acp.stop();
});

test("a session survives a restart of the agent: session/load replays the stored transcript", async () => {
  const home = hermesHome(fake.url);
  const work = tempDir("hermes-acp-work-");
  fake.setScript([
    {
      toolCalls: [
        {
          id: "call-todo",
          name: "todo",
          arguments: { todos: [{ id: 1, content: "step one", status: "in_progress" }] },
        },
      ],
    },
    { text: "Planned." },
  ]);
  const first = start(home);
  await first.initialize();
  const { sessionId } = await first.agent.request("session/new", { cwd: work, mcpServers: [] });
  await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "make a plan" }] });
  const plan = first.updatesOf(sessionId, "plan")[0];
  assert.ok(plan?.sessionUpdate === "plan");
  assert.deepEqual(plan.entries, [{ content: "step one", priority: "medium", status: "in_progress" }]);
  await first.kill();

  const second = start(home);
  await second.initialize();
  const listed = await second.agent.request("session/list", {});
  assert.ok(listed.sessions.some((s) => s.sessionId === sessionId && s.cwd === work));
  await second.agent.request("session/load", { sessionId, cwd: work, mcpServers: [] });
  assert.equal(second.textOf(sessionId, "user_message_chunk"), "make a plan");
  assert.equal(second.textOf(sessionId), "Planned.");
  assert.equal(second.updatesOf(sessionId, "tool_call")[0]?.sessionUpdate, "tool_call");
  assert.equal(second.updatesOf(sessionId, "plan").length, 1);

  fake.setScript([(req) => ({ text: `history has ${req.body.messages.length} messages` })]);
  await second.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "still there?" }] });
  // system, user, assistant (tool call), tool, assistant, user
  assert.match(second.textOf(sessionId), /history has 6 messages/);

  const forked = await second.agent.request("session/fork", { sessionId, cwd: work });
  assert.notEqual(forked.sessionId, sessionId);
  await assert.rejects(
    second.agent.request("session/load", { sessionId: "../../etc/passwd", cwd: work, mcpServers: [] }),
    /bad session id/,
  );
  await second.stop();
  assertOnlyJsonRpc(second);
});

test("session/resume continues a stored session without replaying it, and an image prompt reaches the model", async () => {
  const home = hermesHome(fake.url);
  const work = tempDir("hermes-acp-work-");
  fake.setScript([{ text: "first answer" }]);
  const first = start(home);
  await first.initialize();
  const { sessionId } = await first.agent.request("session/new", { cwd: work, mcpServers: [] });
  await first.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "remember me" }] });
  assert.equal(await first.stop(), 0, "closing stdin ends the agent cleanly");

  const second = start(home);
  await second.initialize();
  await second.agent.request("session/resume", { sessionId, cwd: work });
  assert.equal(second.updatesOf(sessionId, "user_message_chunk").length, 0);
  fake.setScript([{ text: "I see a picture" }]);
  const before = fake.requests.length;
  await second.agent.request("session/prompt", {
    sessionId,
    prompt: [
      { type: "text", text: "what is this?" },
      { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
    ],
  });
  const sent = fake.requests.slice(before).find((r) => r.method === "POST");
  const messages: Array<{ role: string; content: unknown }> = sent?.body.messages ?? [];
  assert.ok(messages.some((m) => m.role === "user" && JSON.stringify(m.content).includes("remember me")));
  const last = messages.at(-1);
  assert.match(JSON.stringify(last?.content), /data:image\/png;base64,iVBORw0KGgo=/);
  await assert.rejects(
    second.agent.request("session/new", { cwd: join(work, "does-not-exist"), mcpServers: [] }),
    /not an existing directory/,
  );
  assert.equal(await second.stop(), 0);
  assertOnlyJsonRpc(second);
});
