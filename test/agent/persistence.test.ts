import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { Agent } from "../../src/agent/agent.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { createHarness } from "../helpers/agent-harness.js";

test("persists every message as it happens and resumes with the same system prompt bytes", async () => {
  const h = await createHarness({
    script: [
      { toolCalls: [{ name: "echo", arguments: { text: "hi" } }] },
      { text: "first answer" },
      { text: "second answer" },
    ],
  });
  const store = await openSessionStore(join(h.dir, "state.db"));
  try {
    const agent = new Agent({ ...h.agent.options, sessionStore: store, sessionId: "s1" });
    await agent.runConversation("hello");
    const saved = await store.getMessages("s1");
    assert.deepEqual(
      saved.map((m) => m.role),
      ["user", "assistant", "tool", "assistant"],
    );
    const session = await store.getSession("s1");
    const firstSystem = h.fake.requests[0]!.body.messages[0].content;
    assert.equal(session?.systemPrompt, firstSystem);
    assert.ok((session?.promptTokens ?? 0) > 0);

    // A new process resuming the session: history and system prompt come from the store.
    const resumed = new Agent({ ...h.agent.options, sessionStore: store, sessionId: "s1", systemPrompt: undefined });
    const result = await resumed.runConversation("and now?");
    assert.equal(result.finalResponse, "second answer");
    const last = h.fake.requests.at(-1)!;
    assert.equal(last.body.messages[0].content, firstSystem);
    assert.equal(last.body.messages.length, 1 + 4 + 1);
  } finally {
    store.close();
    await h.close();
  }
});

test("with saveTrajectories, runs are appended as ShareGPT lines without the ephemeral layer", async () => {
  const { readFileSync } = await import("node:fs");
  const h = await createHarness(
    { script: [{ text: "done" }, { fault: { kind: "status", status: 400, message: "bad request" } }] },
    { saveTrajectories: true, ephemeralSystemPrompt: "EPHEMERAL-LAYER-TEXT", retry: { maxRetries: 0 } },
  );
  try {
    await h.agent.runConversation("first");
    await h.agent.runConversation("second");
    const ok = readFileSync(join(h.dir, "trajectory_samples.jsonl"), "utf8").trim().split("\n");
    const failed = readFileSync(join(h.dir, "failed_trajectories.jsonl"), "utf8").trim().split("\n");
    assert.equal(ok.length, 1);
    assert.equal(failed.length, 1);
    const record = JSON.parse(ok[0]!);
    assert.equal(record.completed, true);
    assert.deepEqual(
      record.conversations.map((turn: { from: string }) => turn.from),
      ["system", "human", "gpt"],
    );
    assert.doesNotMatch(ok[0]!, /EPHEMERAL-LAYER-TEXT/);
    assert.match(JSON.stringify(h.fake.requests[0]!.body), /EPHEMERAL-LAYER-TEXT/, "the layer was sent to the model");
  } finally {
    await h.close();
  }
});

test("a run given a shorter history replaces the saved transcript's tail with it", async () => {
  const h = await createHarness({ script: [{ text: "answer one" }, { text: "answer two" }, { text: "answer three" }] });
  const store = await openSessionStore(join(h.dir, "state.db"));
  try {
    const agent = new Agent({ ...h.agent.options, sessionStore: store, sessionId: "s2" });
    await agent.runConversation("one");
    await agent.runConversation("two");
    const firstExchange = agent.messages.slice(0, 2);
    await agent.runConversation("three", { conversationHistory: firstExchange });
    const saved = await store.getMessages("s2");
    assert.deepEqual(
      saved.map((m) => m.content),
      ["one", "answer one", "three", "answer three"],
    );
  } finally {
    store.close();
    await h.close();
  }
});

test("the stored session names the model that answered: a fallback's, then the primary's again", async () => {
  const { startFakeProvider } = await import("../fake-provider/server.js");
  const backup = await startFakeProvider({ script: [{ text: "from the fallback" }] });
  const fault = { fault: { kind: "status" as const, status: 400, message: "model is overloaded" } };
  const h = await createHarness({ script: [{ text: "primary" }, fault, { text: "primary again" }] });
  const store = await openSessionStore(join(h.dir, "state.db"));
  try {
    const agent = new Agent({
      ...h.agent.options,
      sessionStore: store,
      sessionId: "m1",
      retry: { maxRetries: 0 },
      fallbackProviders: [{ provider: "custom", model: "backup-model", baseUrl: `${backup.url}/v1`, apiKey: "b" }],
    });
    await agent.runConversation("one");
    assert.equal((await store.getSession("m1"))?.model, "test-model");
    const second = await agent.runConversation("two");
    assert.equal(second.model, "backup-model");
    assert.equal((await store.getSession("m1"))?.model, "backup-model");
    await agent.runConversation("three");
    assert.equal((await store.getSession("m1"))?.model, "test-model");
  } finally {
    store.close();
    await h.close();
    await backup.close();
  }
});
