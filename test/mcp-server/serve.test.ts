import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { openSessionStore } from "../../src/state/session-store.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { conversationOf } from "../helpers/agent-harness.js";
import { connect, type HermesHome, makeHome, type ServedHermes, textOf } from "./harness.js";

const GITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
let fake: FakeProvider;
let dirs: HermesHome;
let served: ServedHermes;
let seededId: string;

before(async () => {
  fake = await startFakeProvider({});
  dirs = makeHome(fake);
  const store = await openSessionStore(join(dirs.home, "state.db"));
  const session = await store.createSession({ source: "cli", title: "Colour talk" });
  seededId = session.id;
  await store.appendMessages(session.id, [
    { role: "user", content: "My favourite colour is teal, remember it." },
    { role: "assistant", content: `Noted: teal. Also, the token you pasted was ${GITHUB_TOKEN}.` },
    { role: "user", content: `Here is a long note: ${"x".repeat(30_000)}` },
    { role: "assistant", content: "Thanks for the note." },
  ]);
  store.close();
  served = await connect(dirs.home);
});

after(async () => {
  await served?.close();
  await fake.close();
});

test("lists the served tools and the session tools, each with an object JSON schema", async () => {
  const { tools } = await served.client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ["read_file", "write_file", "patch", "search_files", "terminal", "process"]) {
    assert.ok(names.includes(name), `${name} is served`);
  }
  for (const name of ["sessions_list", "sessions_search", "session_read", "chat"]) {
    assert.ok(names.includes(name), `${name} is served`);
  }
  assert.ok(!names.includes("web_search"), "toolsets outside the default are not served");
  for (const tool of tools) assert.equal(tool.inputSchema.type, "object", tool.name);
  const readFile = tools.find((tool) => tool.name === "read_file");
  assert.ok(readFile?.inputSchema.properties && "path" in readFile.inputSchema.properties);
  assert.deepEqual(tools.find((tool) => tool.name === "chat")?.inputSchema.required, ["message"]);
});

test("read_file reads a file in a temp dir, with secrets in it masked", async () => {
  const path = join(dirs.work, "notes.txt");
  writeFileSync(path, `first line\ntoken=${GITHUB_TOKEN}\n`);
  const result = await served.client.callTool({ name: "read_file", arguments: { path } });
  assert.notEqual(result.isError, true, textOf(result));
  assert.match(textOf(result), /first line/);
  assert.doesNotMatch(textOf(result), new RegExp(GITHUB_TOKEN));
});

test("large command output comes back capped", async () => {
  const result = await served.client.callTool({
    name: "terminal",
    arguments: { command: "seq 1 200000" },
  });
  assert.notEqual(result.isError, true, textOf(result));
  const text = textOf(result);
  assert.ok(text.length < 110_000, `capped output (${text.length} characters)`);
  assert.match(text, /200000/, "the end of the output is kept");
});

test("arguments that break a tool's schema are a tool error naming the field", async () => {
  const result = await served.client.callTool({ name: "read_file", arguments: { path: 42 } });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /Invalid arguments for read_file: path/);
  const missing = await served.client.callTool({ name: "session_read", arguments: {} });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /session_id/);
  const unknown = await served.client.callTool({ name: "no_such_tool", arguments: {} });
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /no tool named "no_such_tool"/);
});

test("a command that needs approval is refused without --yolo, saying how to allow it", async () => {
  const victim = join(dirs.work, "victim");
  mkdirSync(victim);
  const result = await served.client.callTool({ name: "terminal", arguments: { command: "rm -rf victim" } });
  assert.equal(result.isError, true);
  assert.match(textOf(result), /needs approval \(recursive delete\)/);
  assert.match(textOf(result), /hermes mcp serve --yolo/);
  assert.ok(existsSync(victim), "the directory is still there");
});

test("sessions_list and sessions_search find the seeded session", async () => {
  const listed = await served.client.callTool({ name: "sessions_list", arguments: {} });
  assert.notEqual(listed.isError, true, textOf(listed));
  const { sessions } = JSON.parse(textOf(listed));
  const seeded = sessions.find((s: { id: string }) => s.id === seededId);
  assert.equal(seeded.title, "Colour talk");
  assert.equal(seeded.source, "cli");
  assert.match(seeded.started_at, /^\d{4}-\d\d-\d\dT/);

  const found = await served.client.callTool({ name: "sessions_search", arguments: { query: "teal" } });
  assert.notEqual(found.isError, true, textOf(found));
  const { matches } = JSON.parse(textOf(found));
  assert.ok(matches.length > 0);
  assert.ok(matches.every((m: { session_id: string }) => m.session_id === seededId));
});

test("session_read pages through a session, masking secrets and shortening long messages", async () => {
  const first = await served.client.callTool({
    name: "session_read",
    arguments: { session_id: seededId, limit: 2 },
  });
  assert.notEqual(first.isError, true, textOf(first));
  const page = JSON.parse(textOf(first));
  assert.equal(page.total_messages, 4);
  assert.equal(page.messages.length, 2);
  assert.equal(page.messages[0].content, "My favourite colour is teal, remember it.");
  assert.equal(page.next_offset, 2);
  assert.doesNotMatch(textOf(first), new RegExp(GITHUB_TOKEN));
  const second = JSON.parse(
    textOf(await served.client.callTool({ name: "session_read", arguments: { session_id: seededId, offset: 2 } })),
  );
  assert.equal(second.next_offset, null);
  assert.ok(second.messages[0].content.length < 12_000, "a long message is shortened");
  assert.match(second.messages[0].content, /truncated/);

  const missing = await served.client.callTool({ name: "session_read", arguments: { session_id: "nope" } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /No session with id "nope".*sessions_list/);
});

test("chat continues a stored session: the model sees the earlier messages", async () => {
  fake.setScript([{ text: "Your favourite colour is teal." }]);
  const before = fake.requests.length;
  const result = await served.client.callTool({
    name: "chat",
    arguments: { session_id: seededId, message: "What is my favourite colour?" },
  });
  assert.notEqual(result.isError, true, textOf(result));
  assert.match(textOf(result), /^Your favourite colour is teal\./);
  assert.match(textOf(result), new RegExp(`session_id: ${seededId}`));
  const request = fake.requests.slice(before).find((r) => r.path.endsWith("/chat/completions"));
  assert.ok(request, "the agent called the model");
  const contents = conversationOf(request).map((m) => String(m.content));
  assert.ok(contents.some((c) => c.includes("favourite colour is teal, remember it")));
  assert.ok(contents.some((c) => c.includes("What is my favourite colour?")));

  const read = JSON.parse(
    textOf(await served.client.callTool({ name: "session_read", arguments: { session_id: seededId, offset: 4 } })),
  );
  assert.deepEqual(
    read.messages.map((m: { role: string }) => m.role),
    ["user", "assistant"],
  );
});

test("chat without a session id starts a new session; an unknown id is a tool error", async () => {
  fake.setScript([{ text: "Hello from a new session." }]);
  const result = await served.client.callTool({ name: "chat", arguments: { message: "hi" } });
  assert.notEqual(result.isError, true, textOf(result));
  const id = /session_id: (\S+)/.exec(textOf(result))?.[1];
  assert.ok(id && id !== seededId);
  const listed = JSON.parse(
    textOf(await served.client.callTool({ name: "sessions_list", arguments: { source: "mcp" } })),
  );
  assert.deepEqual(
    listed.sessions.map((s: { id: string }) => s.id),
    [id],
  );
  const unknown = await served.client.callTool({ name: "chat", arguments: { message: "hi", session_id: "missing" } });
  assert.equal(unknown.isError, true);
  assert.match(textOf(unknown), /No session with id "missing"/);
});
