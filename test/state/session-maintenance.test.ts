import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionStoreError } from "../../src/state/session-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { tempDir } from "./temp-dir.js";

const DAY_MS = 86_400_000;

async function storeWithAges(): Promise<{ store: SqliteSessionStore; path: string; now: number }> {
  const path = join(tempDir(), "state.db");
  const store = await SqliteSessionStore.open(path);
  const now = Date.now();
  const sessions: Array<[string, string, number, string[]]> = [
    ["old-cli", "cli", 40, ["the aardvark migration plan", "aardvark notes"]],
    ["old-cron", "cron", 35, ["aardvark digest"]],
    ["recent", "cli", 2, ["a recent chat about aardvark habitats"]],
  ];
  for (const [id, source, , texts] of sessions) {
    await store.createSession({ id, source });
    await store.appendMessages(
      id,
      texts.map((content) => ({ role: "user" as const, content })),
    );
  }
  // Appending stamps the current time; age the sessions by hand.
  const db = openSqliteDatabase(path);
  for (const [id, , ageDays] of sessions) {
    db.prepare("UPDATE sessions SET last_active = ? WHERE id = ?").run(now - ageDays * DAY_MS, id);
  }
  db.close();
  return { store, path, now };
}

test("pruneSessions deletes only sessions idle past the age, with their messages, and search forgets them", async () => {
  const { store, now } = await storeWithAges();
  assert.equal((await store.search("aardvark")).length, 4);

  const counted = await store.pruneSessions({ olderThanDays: 30, now, dryRun: true });
  assert.deepEqual(counted, { sessions: 2, messages: 3 });
  assert.equal((await store.listSessions()).length, 3, "a dry run deletes nothing");

  assert.deepEqual(await store.pruneSessions({ olderThanDays: 30, now, source: "cron" }), { sessions: 1, messages: 1 });
  assert.deepEqual(await store.pruneSessions({ olderThanDays: 30, now }), { sessions: 1, messages: 2 });
  assert.deepEqual(
    (await store.listSessions()).map((s) => s.id),
    ["recent"],
  );
  const hits = await store.search("aardvark");
  assert.deepEqual(
    hits.map((hit) => hit.sessionId),
    ["recent"],
  );
  assert.deepEqual(await store.pruneSessions({ olderThanDays: 30, now }), { sessions: 0, messages: 0 });
  await assert.rejects(store.pruneSessions({ olderThanDays: -1 }), SessionStoreError);
  store.close();
});

test("repair rebuilds a search index emptied by hand and fixes wrong message counts", async () => {
  const { store, path } = await storeWithAges();
  const db = openSqliteDatabase(path);
  db.exec("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')");
  db.prepare("UPDATE sessions SET message_count = 99 WHERE id = ?").run("old-cli");
  db.prepare("UPDATE sessions SET message_count = 0 WHERE id = ?").run("recent");
  db.close();
  assert.equal((await store.search("aardvark")).length, 0, "the index is empty");

  const report = await store.repair();
  assert.deepEqual(report, {
    problemsBefore: [],
    problemsAfter: [],
    indexesRebuilt: false,
    searchIndexStale: true,
    messagesIndexed: 4,
    messageCountsFixed: 2,
  });
  assert.equal((await store.search("aardvark")).length, 4);
  assert.equal((await store.getSession("old-cli"))?.messageCount, 2);
  assert.equal((await store.getSession("recent"))?.messageCount, 1);

  const again = await store.repair();
  assert.equal(again.searchIndexStale, false);
  assert.equal(again.messageCountsFixed, 0);
  store.close();
});

test("repair rebuilds a damaged index from its table before recounting", async () => {
  const { store, path } = await storeWithAges();
  store.close();
  const db = openSqliteDatabase(path);
  db.pragma("wal_checkpoint(TRUNCATE)");
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const root = db
    .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'idx_messages_session'")
    .pluck()
    .get() as number;
  db.close();
  // Rename one session's key inside the index only: the index now misses that session's rows.
  const bytes = readFileSync(path);
  const page = bytes.subarray((root - 1) * pageSize, root * pageSize);
  const at = page.indexOf("old-cron");
  assert.ok(at > 0, "the index page holds the session id");
  page.write("old-crox", at);
  writeFileSync(path, bytes);

  const reopened = await SqliteSessionStore.open(path);
  const report = await reopened.repair();
  assert.match(report.problemsBefore.join("\n"), /missing from index idx_messages_session/);
  assert.equal(report.indexesRebuilt, true);
  assert.deepEqual(report.problemsAfter, []);
  assert.equal(report.messageCountsFixed, 0, "counts read through the rebuilt index are right");
  assert.equal((await reopened.getMessages("old-cron")).length, 1);
  reopened.close();
});
