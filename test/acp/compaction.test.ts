import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { AcpClient, hermesHome } from "./harness.js";

let fake: FakeProvider;
const running: AcpClient[] = [];

before(async () => {
  fake = await startFakeProvider({ models: [{ id: "m" }] });
});
after(async () => {
  await Promise.all(running.map((c) => c.kill()));
  await fake.close();
});

/** The compaction updates the client received for the session. */
function compactions(acp: AcpClient, sessionId: string): Array<Record<string, unknown>> {
  return acp.updates
    .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "compaction_update")
    .map((n) => n.update as unknown as Record<string, unknown>);
}

async function compactOnce(withCapability: boolean): Promise<Array<Record<string, unknown>>> {
  const acp = AcpClient.start({
    home: hermesHome(fake.url, "compression:\n  protect_first_n: 1\n  protect_last_n: 2\n"),
  });
  running.push(acp);
  await acp.initialize(withCapability ? { session: { compaction: {} } } : {});
  const { sessionId } = await acp.agent.request("session/new", { cwd: tempDir("hermes-acp-work-"), mcpServers: [] });
  const say = (text: string) => acp.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  fake.setScript(Array.from({ length: 6 }, (_, i) => ({ text: `answer ${i} ${"words ".repeat(3000)}` })));
  for (let i = 0; i < 6; i++) await say(`question ${i} ${"detail ".repeat(3000)}`);
  fake.setScript([{ text: "## Active Task\nThe user asked six questions; all were answered." }]);
  await say("/compact");
  assert.match(acp.textOf(sessionId), /Compacted: about \d+ → \d+ tokens/);
  const seen = compactions(acp, sessionId);
  await acp.stop();
  return seen;
}

test("a client that advertises session.compaction sees /compact start and finish with its summary; others see nothing", async () => {
  const seen = await compactOnce(true);
  assert.equal(seen.length, 2);
  const [started, finished] = seen;
  assert.equal(started!.status, "in_progress");
  assert.equal(finished!.compactionId, started!.compactionId);
  assert.equal(finished!.status, "completed");
  const summary = finished!.summary as Array<{ type: string; text: string }>;
  assert.match(summary[0]!.text, /six questions/);
  assert.deepEqual(await compactOnce(false), []);
});
