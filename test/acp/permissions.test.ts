import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { AcpClient, hermesHome, type PermissionAnswer } from "./harness.js";

let fake: FakeProvider;
const running: AcpClient[] = [];

before(async () => {
  fake = await startFakeProvider({});
});
after(async () => {
  await Promise.all(running.map((c) => c.kill()));
  await fake.close();
});

async function session(permission?: PermissionAnswer) {
  const acp = AcpClient.start({ home: hermesHome(fake.url), ...(permission ? { permission } : {}) });
  running.push(acp);
  await acp.initialize();
  const work = tempDir("hermes-acp-work-");
  const { sessionId } = await acp.agent.request("session/new", { cwd: work, mcpServers: [] });
  const prompt = (text: string) => acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  return { acp, work, sessionId, prompt };
}

const choose =
  (optionId: string): PermissionAnswer =>
  () => ({ outcome: { outcome: "selected", optionId } });

test("in ask mode a file edit asks first, shows its diff, and is written only when allowed", async () => {
  let answer = "once";
  const { acp, work, sessionId, prompt } = await session((request) => choose(answer)(request));
  writeFileSync(join(work, "a.txt"), "old text\n");
  fake.setScript([
    { toolCalls: [{ id: "call-w1", name: "write_file", arguments: { path: "a.txt", content: "new text\n" } }] },
    { text: "written" },
  ]);
  assert.equal((await prompt("change a.txt")).stopReason, "end_turn");
  assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "new text\n");
  const [asked] = acp.permissionRequests;
  assert.equal(asked?.toolCall.toolCallId, "call-w1");
  assert.equal(asked?.toolCall.kind, "edit");
  assert.deepEqual(
    asked?.options.map((o) => o.kind),
    ["allow_once", "allow_always", "allow_always", "reject_once"],
  );
  const diff = acp
    .updatesOf(sessionId, "tool_call_update")
    .flatMap((u) => (u.sessionUpdate === "tool_call_update" ? (u.content ?? []) : []))
    .find((c) => c.type === "diff");
  assert.deepEqual(diff, { type: "diff", path: join(work, "a.txt"), oldText: "old text\n", newText: "new text\n" });

  answer = "deny";
  fake.setScript([
    { toolCalls: [{ id: "call-w2", name: "write_file", arguments: { path: "a.txt", content: "rejected\n" } }] },
    { text: "not written" },
  ]);
  await prompt("change it again");
  assert.equal(readFileSync(join(work, "a.txt"), "utf8"), "new text\n");
  const end = acp.updatesOf(sessionId, "tool_call_update").at(-1);
  assert.ok(end?.sessionUpdate === "tool_call_update");
  assert.match(JSON.stringify(end.rawOutput), /denied/);
  await acp.stop();
});

test("a dangerous command asks; rejected it does not run, allowed for the session it runs without asking again", async () => {
  let answer = "deny";
  const { acp, work, prompt } = await session((request) => choose(answer)(request));
  mkdirSync(join(work, "victim"));
  mkdirSync(join(work, "second"));
  fake.setScript([
    { toolCalls: [{ id: "call-rm1", name: "terminal", arguments: { command: "rm -rf victim" } }] },
    { text: "refused" },
  ]);
  await prompt("delete victim");
  assert.ok(existsSync(join(work, "victim")));
  assert.equal(acp.permissionRequests[0]?.toolCall.kind, "execute");

  answer = "session";
  fake.setScript([
    { toolCalls: [{ id: "call-rm2", name: "terminal", arguments: { command: "rm -rf victim" } }] },
    { toolCalls: [{ id: "call-rm3", name: "terminal", arguments: { command: "rm -rf second" } }] },
    { text: "done" },
  ]);
  await prompt("delete both");
  assert.ok(!existsSync(join(work, "victim")));
  assert.ok(!existsSync(join(work, "second")));
  assert.equal(acp.permissionRequests.length, 2, "the session answer covers the second command of the same kind");
  await acp.stop();
});

test("session/cancel stops a streaming turn with stopReason cancelled", async () => {
  const { acp, sessionId, prompt } = await session();
  fake.setScript([{ text: "first words and then nothing", fault: { kind: "stall", afterChunks: 2 } }]);
  const turn = prompt("talk slowly");
  await acp.waitFor(
    (n) => n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk",
    "first chunk",
  );
  await acp.agent.notify("session/cancel", { sessionId });
  assert.equal((await turn).stopReason, "cancelled");

  fake.setScript([{ text: "back again" }]);
  assert.equal((await prompt("still there?")).stopReason, "end_turn");
  assert.match(acp.textOf(sessionId), /back again/);
  await acp.stop();
});

test("cancelling while a permission request is open rejects the action", async () => {
  let cancelled: () => Promise<void> = async () => {};
  const { acp, work, sessionId, prompt } = await session(async () => {
    await cancelled();
    return { outcome: { outcome: "cancelled" } };
  });
  cancelled = () => acp.agent.notify("session/cancel", { sessionId });
  fake.setScript([
    { toolCalls: [{ id: "call-w", name: "write_file", arguments: { path: "b.txt", content: "x" } }] },
    { text: "should not get here" },
  ]);
  assert.equal((await prompt("write b.txt")).stopReason, "cancelled");
  assert.ok(!existsSync(join(work, "b.txt")));
  await acp.stop();
});

test("an editor that goes away while a permission request is open counts as a rejection, and the agent exits", async () => {
  let acp: AcpClient | undefined;
  const started = await session(() => {
    acp!.child.stdin?.end();
    return new Promise(() => {});
  });
  acp = started.acp;
  fake.setScript([
    { toolCalls: [{ id: "call-w", name: "write_file", arguments: { path: "c.txt", content: "x" } }] },
    { text: "should not get here" },
  ]);
  started.prompt("write c.txt").catch(() => undefined);
  assert.equal(await acp.exited, 0);
  assert.ok(!existsSync(join(started.work, "c.txt")));
});
