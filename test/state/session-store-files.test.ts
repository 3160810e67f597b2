import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openSessionStore, SessionStoreError } from "../../src/state/session-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SCHEMA_VERSION } from "../../src/state/sqlite-schema.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { tempDir } from "./temp-dir.js";

test("a file that is not SQLite is reported by path and left byte-identical", async () => {
  const dir = tempDir();
  const db = join(dir, "state.db");
  const garbage = Buffer.from("this is not a database\n".repeat(200));
  writeFileSync(db, garbage);
  await assert.rejects(openSessionStore(db), (error: unknown) => {
    assert.ok(error instanceof SessionStoreError);
    assert.ok(error.message.includes(db));
    assert.match(error.message, /not a readable SQLite database/);
    assert.match(error.message, /left untouched/);
    return true;
  });
  assert.deepEqual(readFileSync(db), garbage);
  assert.equal(existsSync(`${db}-wal`), false);
  assert.equal(existsSync(`${db}-shm`), false);
});

test("a new database file is private to its owner", async () => {
  const db = join(tempDir(), "nested", "state.db");
  const store = await SqliteSessionStore.open(db);
  assert.equal(statSync(db).mode & 0o777, 0o600);
  store.close();
});

test("a database from a newer schema is refused, not downgraded", async () => {
  const db = join(tempDir(), "state.db");
  const raw = openSqliteDatabase(db);
  raw.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  raw.exec("INSERT INTO schema_version VALUES (99, 0)");
  raw.close();
  await assert.rejects(SqliteSessionStore.open(db), /written by a newer hermes \(schema 99/);
});

function createV1Database(path: string): void {
  // The original layout, written by hand: session_id key, second timestamps, no schema_version.
  const raw = openSqliteDatabase(path);
  raw.exec(`
    CREATE TABLE sessions (session_id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT, source TEXT,
      started_at TIMESTAMP, last_active TIMESTAMP, message_count INTEGER, prompt_tokens INTEGER,
      completion_tokens INTEGER, total_tokens INTEGER, estimated_cost REAL, actual_cost REAL);
    CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT, tool_calls TEXT,
      tool_call_id TEXT, finish_reason TEXT, reasoning TEXT, created_at TIMESTAMP);
    CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages);
    CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
      INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
    END;
  `);
  const session = raw.prepare("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  session.run(
    "20240301_101500_aaaaaa",
    null,
    "Old chat",
    "telegram",
    1709288100.5,
    1709288200,
    3,
    120,
    30,
    150,
    0.02,
    0.019,
  );
  session.run(
    "20240302_090000_bbbbbb",
    "20240301_101500_aaaaaa",
    null,
    null,
    "2024-03-02 09:00:00",
    null,
    0,
    0,
    0,
    0,
    null,
    null,
  );
  const message = raw.prepare(
    "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, finish_reason, reasoning, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  message.run(
    "20240301_101500_aaaaaa",
    "user",
    "How do I configure the zeppelin module?",
    null,
    null,
    null,
    null,
    1709288110,
  );
  message.run(
    "20240301_101500_aaaaaa",
    "assistant",
    null,
    JSON.stringify([
      { id: "call_9", type: "function", function: { name: "read_file", arguments: '{"path":"z.yaml"}' } },
    ]),
    null,
    "tool_calls",
    "Let me look.",
    1709288120,
  );
  message.run("20240301_101500_aaaaaa", "tool", "zeppelin: enabled", null, "call_9", null, null, 1709288130);
  message.run("ghost_session", "user", "orphaned zeppelin question", null, null, null, null, 1709288140);
  raw.close();
}

test("migrating a version-1 database keeps every row and makes it searchable", async () => {
  const db = join(tempDir(), "state.db");
  createV1Database(db);
  const store = await SqliteSessionStore.open(db);

  const old = await store.getSession("20240301_101500_aaaaaa");
  assert.equal(old?.title, "Old chat");
  assert.equal(old?.source, "telegram");
  assert.equal(old?.startedAt, 1709288100500);
  assert.equal(old?.lastActive, 1709288200000);
  assert.equal(old?.promptTokens, 120);
  assert.equal(old?.totalTokens, 150);
  assert.equal(old?.estimatedCost, 0.02);
  assert.equal(old?.systemPrompt, null);
  assert.equal(old?.cacheReadTokens, 0);

  const child = await store.getSession("20240302_090000_bbbbbb");
  assert.equal(child?.parentSessionId, "20240301_101500_aaaaaa");
  assert.equal(child?.source, "cli");
  assert.equal(child?.startedAt, Date.UTC(2024, 2, 2, 9, 0, 0));

  assert.deepEqual(await store.getMessages("20240301_101500_aaaaaa"), [
    { role: "user", content: "How do I configure the zeppelin module?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_9", type: "function", function: { name: "read_file", arguments: '{"path":"z.yaml"}' } }],
      reasoning: "Let me look.",
      finish_reason: "tool_calls",
    },
    { role: "tool", content: "zeppelin: enabled", tool_call_id: "call_9" },
  ]);
  assert.equal((await store.getMessages("ghost_session")).length, 1, "messages without a session row are kept");
  assert.equal((await store.stats()).messages, 4);
  assert.equal((await store.search("zeppelin")).length, 3);

  // The upgraded store works normally, and triggers keep the new index in sync.
  await store.appendMessage("20240301_101500_aaaaaa", { role: "user", content: "and the dirigible?" });
  assert.equal((await store.search("dirigible")).length, 1);
  assert.equal((await store.getSession("20240301_101500_aaaaaa"))?.messageCount, 4);
  store.close();

  const raw = openSqliteDatabase(db, { readonly: true });
  assert.deepEqual(
    raw.prepare("SELECT version FROM schema_version ORDER BY version").pluck().all(),
    Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
  );
  assert.equal(raw.pragma("integrity_check", { simple: true }), "ok");
  raw.close();

  const reopened = await SqliteSessionStore.open(db);
  assert.equal((await reopened.stats()).messages, 5, "opening an up-to-date database migrates nothing");
  reopened.close();
});

test("the write-ahead log is checkpointed into the database every 50 commits", async () => {
  const db = join(tempDir(), "state.db");
  const store = await SqliteSessionStore.open(db);
  const session = await store.createSession();
  const before = statSync(db).size;
  // 60 small commits stay far below SQLite's own 1000-page auto-checkpoint.
  for (let i = 0; i < 60; i++) await store.appendMessage(session.id, { role: "user", content: `note ${i}` });
  assert.ok(statSync(db).size > before, "pages reached the main database file");
  store.close();
});
