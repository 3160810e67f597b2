import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { importHermesPython } from "../../src/state/import-hermes-python.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { isOriginalStateDb, storeFileFor } from "../../src/state/store-location.js";
import {
  appendOriginalMessages,
  assertCompactedImport,
  compactedSession,
  type OriginalSession,
  writeOriginalStateDb,
  zeppelinSession,
} from "./original-state-db.js";
import { tempDir } from "./temp-dir.js";

const checksum = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

function fixture(): OriginalSession[] {
  const bulk: OriginalSession["messages"] = [];
  for (let i = 0; i < 10_000; i++) {
    bulk.push({ role: i % 2 ? "assistant" : "user", content: `bulk message ${i} about topic${i % 97}` });
  }
  return [
    zeppelinSession("Why does the zeppelin build fail? 🚀 Ünïcödé"),
    {
      id: "20250301_120000_d4e5f6",
      parent: "20250301_101500_a1b2c3",
      title: "Fixing the zeppelin build #2",
      startedAt: 1_740_830_400,
      messages: [{ role: "user", content: "continuing after compression" }],
    },
    { id: "20250302_090000_bulk00", startedAt: 1_740_906_000, messages: bulk },
  ];
}

test("the original's state.db is recognised and left alone: our store opens store.db beside it", async () => {
  const home = tempDir("hermes-dropin-");
  const original = join(home, "state.db");
  writeOriginalStateDb(original, fixture().slice(0, 2));
  const before = checksum(original);
  assert.equal(isOriginalStateDb(original), true);
  assert.equal(storeFileFor(original), join(home, "store.db"));
  const store = await openSessionStore(original);
  await store.createSession({ id: "ours-1" });
  store.close();
  assert.ok(existsSync(join(home, "store.db")));
  assert.equal(checksum(original), before);
  assert.equal(isOriginalStateDb(join(home, "store.db")), false, "our own file is known by its application id");
});

test("messages the original compacted in place come over archived: searchable and exported, not in the conversation", async () => {
  const original = join(tempDir("hermes-dropin-"), "state.db");
  writeOriginalStateDb(original, [compactedSession()]);
  const report = await importHermesPython(original, original);
  const store = await openSessionStore(original);
  try {
    await assertCompactedImport(store, report);
  } finally {
    store.close();
  }
});

test("import copies every session and message with ids, lineage, titles, counters, tool calls and reasoning", async () => {
  const home = tempDir("hermes-dropin-");
  const original = join(home, "state.db");
  writeOriginalStateDb(original, fixture());
  const before = checksum(original);
  const report = await importHermesPython(original, original);
  assert.equal(report.target, join(home, "store.db"));
  assert.deepEqual(report.sessions, { inSource: 3, added: 3, updated: 0, unchanged: 0, idTaken: [] });
  assert.deepEqual(report.messages, { inSource: 10_006, added: 10_005, rewound: 1, alreadyImported: 0 });
  assert.deepEqual(report.mismatches, []);
  assert.equal(checksum(original), before, "the source is not changed");

  const store = await openSessionStore(original);
  try {
    const first = await store.getSession("20250301_101500_a1b2c3");
    assert.equal(first?.title, "Fixing the zeppelin build");
    assert.equal(first?.source, "telegram");
    assert.equal(first?.messageCount, 4);
    assert.equal(first?.startedAt, 1_740_824_100_000);
    assert.equal(first?.promptTokens, 120);
    assert.equal(first?.completionTokens, 30);
    assert.equal(first?.estimatedCost, 0.25);
    assert.equal((await store.getSession("20250301_120000_d4e5f6"))?.parentSessionId, "20250301_101500_a1b2c3");
    const messages = await store.getMessages("20250301_101500_a1b2c3");
    assert.equal(messages[0]?.content, "Why does the zeppelin build fail? 🚀 Ünïcödé");
    assert.equal(messages[1]?.reasoning, "Look at the log first.");
    assert.equal(messages[1]?.tool_calls?.[0]?.function.name, "terminal");
    assert.equal(messages[2]?.tool_call_id, "call_1");
    assert.equal(messages[2]?.name, "terminal");
    assert.ok(!messages.some((m) => m.content === "an exchange the user rewound"));
    const hits = await store.search("zeppelin");
    assert.ok(hits.some((hit) => hit.sessionId === "20250301_101500_a1b2c3"));
    assert.ok((await store.search("topic42")).length > 0, "the bulk session is searchable");
    await store.appendMessage("20250301_101500_a1b2c3", { role: "user", content: "a later quetzal" });
    assert.equal((await store.search("quetzal")).length, 1, "messages written after the import are indexed too");
  } finally {
    store.close();
  }
});

test("importing again adds only what the original wrote since, and an older layout imports too", async () => {
  const home = tempDir("hermes-dropin-");
  const original = join(home, "state.db");
  writeOriginalStateDb(original, fixture().slice(0, 2), 6);
  const first = await importHermesPython(original, original);
  assert.deepEqual([first.sessions.added, first.messages.added], [2, 6]);
  const again = await importHermesPython(original, original);
  assert.deepEqual(again.sessions, { inSource: 2, added: 0, updated: 0, unchanged: 2, idTaken: [] });
  assert.equal(again.messages.added, 0);
  appendOriginalMessages(original, "20250301_120000_d4e5f6", ["one more", "and another"]);
  const third = await importHermesPython(original, original);
  assert.deepEqual([third.sessions.updated, third.messages.added], [1, 2]);
  const store = await openSessionStore(original);
  try {
    const messages = await store.getMessages("20250301_120000_d4e5f6");
    assert.deepEqual(
      messages.map((m) => m.content),
      ["continuing after compression", "one more", "and another"],
    );
  } finally {
    store.close();
  }
});

test("an imported session resumes by its old id: the model sees its history", async () => {
  const { startFakeProvider } = await import("../fake-provider/server.js");
  const { openRuntime } = await import("../../src/runtime/runtime.js");
  const { writeFileSync } = await import("node:fs");
  const fake = await startFakeProvider({ fallback: { text: "carrying on" } });
  const home = tempDir("hermes-dropin-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: fake-model\n  provider: custom\n  base_url: ${fake.url}/v1\n`,
  );
  writeOriginalStateDb(join(home, "state.db"), fixture().slice(0, 1));
  await importHermesPython(join(home, "state.db"), join(home, "state.db"));
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const agent = runtime.createAgent({ sessionId: "20250301_101500_a1b2c3" });
    const result = await agent.runConversation("and now?");
    assert.equal(result.finalResponse, "carrying on");
    const sent = JSON.stringify(fake.requests.find((r) => r.method === "POST")?.body.messages);
    assert.match(sent, /Why does the zeppelin build fail/);
    assert.match(sent, /The Makefile target is missing/);
    assert.equal((await runtime.store.getMessages("20250301_101500_a1b2c3")).length, 6);
  } finally {
    await runtime.close();
    await fake.close();
  }
});

test("until the original's sessions are imported, a start says how to bring them over; after, it does not", async () => {
  const { importOffer } = await import("../../src/state/store-location.js");
  const home = tempDir("hermes-dropin-");
  assert.equal(importOffer(home), undefined, "nothing to offer in a home of our own");
  writeOriginalStateDb(join(home, "state.db"), fixture().slice(0, 1));
  assert.match(importOffer(home) ?? "", /hermes import hermes-python/);
  await importHermesPython(join(home, "state.db"), join(home, "state.db"));
  assert.equal(importOffer(home), undefined);
});
