import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { importHermesPython } from "../../src/state/import-hermes-python.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import {
  appendOriginalMessages,
  assertCompactedImport,
  compactedSession,
  type OriginalSession,
  writeOriginalStateDb,
  zeppelinSession,
} from "./original-state-db.js";
import { tempDir } from "./temp-dir.js";

const pg = postgresOrSkip();

function sessions(): OriginalSession[] {
  const bulk: OriginalSession["messages"] = [];
  for (let i = 0; i < 1_203; i++) bulk.push({ role: i % 2 ? "assistant" : "user", content: `bulk ${i} topic${i % 7}` });
  return [
    zeppelinSession("Why does the zeppelin build fail? \u0000 a NUL in the log"),
    { id: "20250302_090000_bulk00", startedAt: 1_740_906_000, messages: bulk },
    { id: "taken-by-ours", startedAt: 1_740_906_100, messages: [{ role: "user", content: "not copied" }] },
  ];
}

if (pg) {
  test("postgres: messages the original compacted in place come over archived", async () => {
    const url = await pg.database();
    const original = join(tempDir("hermes-pg-import-"), "state.db");
    writeOriginalStateDb(original, [compactedSession()]);
    const report = await importHermesPython(original, url);
    const store = await openSessionStore(url);
    try {
      await assertCompactedImport(store, report);
    } finally {
      store.close();
    }
  });

  test("postgres: the original's sessions import straight into PostgreSQL, searchable, and a repeat adds only what is new", async () => {
    const url = await pg.database();
    const original = join(tempDir("hermes-pg-import-"), "state.db");
    writeOriginalStateDb(original, sessions());
    const store = await openSessionStore(url);
    try {
      await store.createSession({ id: "taken-by-ours" });
      const report = await importHermesPython(original, url);
      assert.doesNotMatch(report.target, /:[^:@/]+@/, "the target is named without a password");
      assert.deepEqual(report.sessions, {
        inSource: 3,
        added: 2,
        updated: 0,
        unchanged: 0,
        idTaken: ["taken-by-ours"],
      });
      assert.deepEqual(report.messages, { inSource: 1_209, added: 1_207, rewound: 1, alreadyImported: 1 });
      assert.deepEqual(report.mismatches, []);

      const first = await store.getSession("20250301_101500_a1b2c3");
      assert.equal(first?.title, "Fixing the zeppelin build");
      assert.equal(first?.source, "telegram");
      assert.equal(first?.messageCount, 4);
      assert.equal(first?.startedAt, 1_740_824_100_000);
      const messages = await store.getMessages("20250301_101500_a1b2c3");
      assert.equal(messages[0]?.content, "Why does the zeppelin build fail? \u0000 a NUL in the log");
      assert.equal(messages[1]?.reasoning, "Look at the log first.");
      assert.equal(messages[1]?.tool_calls?.[0]?.function.name, "terminal");
      assert.equal(messages[2]?.name, "terminal");
      assert.equal((await store.getMessages("20250302_090000_bulk00")).length, 1_203);
      assert.ok((await store.search("zeppelin")).some((hit) => hit.sessionId === "20250301_101500_a1b2c3"));
      assert.equal((await store.getMessages("taken-by-ours")).length, 0, "our session of that id is left alone");

      const again = await importHermesPython(original, url);
      assert.deepEqual([again.sessions.added, again.sessions.unchanged, again.messages.added], [0, 2, 0]);
      appendOriginalMessages(original, "20250301_101500_a1b2c3", ["one more about quetzals"]);
      const third = await importHermesPython(original, url);
      assert.deepEqual([third.sessions.updated, third.messages.added], [1, 1]);
      assert.equal((await store.getSession("20250301_101500_a1b2c3"))?.messageCount, 5);
      assert.equal((await store.search("quetzals")).length, 1);
    } finally {
      store.close();
    }
  });
}
