import assert from "node:assert/strict";
import { existsSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import {
  importOffer,
  isOriginalStateDb,
  originalStateDb,
  STORE_APPLICATION_ID,
  storeFileFor,
} from "../../src/state/store-location.js";
import { tempDir } from "./temp-dir.js";

/** A database at `path` built by `sql`, optionally stamped with our application id. */
function database(path: string, sql: string, stamped = false): string {
  const db = openSqliteDatabase(path);
  db.exec(sql);
  if (stamped) db.pragma(`application_id = ${STORE_APPLICATION_ID}`);
  db.close();
  return path;
}

const ORIGINAL_SESSIONS = "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL)";
const ORIGINAL_MESSAGES = "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, timestamp REAL)";
const OUR_SESSIONS = "CREATE TABLE sessions (id TEXT PRIMARY KEY, started_at INTEGER, last_active INTEGER)";
const OUR_MESSAGES = "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, created_at INTEGER)";

/** Files this process holds open, by path. */
function openFiles(): string[] {
  return readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      return [readlinkSync(join("/proc/self/fd", fd))];
    } catch {
      return [];
    }
  });
}

test("the original's database is told apart by its tables: sessions without last_active, or messages with timestamp", () => {
  const dir = tempDir();
  assert.equal(isOriginalStateDb(database(join(dir, "a.db"), `${ORIGINAL_SESSIONS}; ${ORIGINAL_MESSAGES}`)), true);
  assert.equal(isOriginalStateDb(database(join(dir, "b.db"), ORIGINAL_SESSIONS)), true, "sessions alone");
  assert.equal(isOriginalStateDb(database(join(dir, "c.db"), ORIGINAL_MESSAGES)), true, "messages alone");
  assert.equal(
    isOriginalStateDb(database(join(dir, "d.db"), `${OUR_SESSIONS}; ${OUR_MESSAGES}`)),
    false,
    "ours from before the application id",
  );
  assert.equal(isOriginalStateDb(database(join(dir, "e.db"), "CREATE TABLE notes (x)")), false, "neither table");
  assert.equal(isOriginalStateDb(join(dir, "missing.db")), false);
});

test("a database stamped with our application id is ours, whatever its tables", () => {
  const path = database(join(tempDir(), "state.db"), ORIGINAL_SESSIONS, true);
  assert.equal(isOriginalStateDb(path), false);
});

test("files that are not SQLite databases are not the original's", () => {
  const dir = tempDir();
  const short = join(dir, "short.db");
  writeFileSync(short, "SQLite format 3\0 but short");
  const foreign = join(dir, "foreign.db");
  writeFileSync(foreign, `not a database ${"x".repeat(200)}`);
  const stampedText = join(dir, "stamped.db");
  // Our application id where SQLite keeps it, behind a header that is not SQLite's.
  const bytes = Buffer.alloc(100, 0x20);
  bytes.writeUInt32BE(STORE_APPLICATION_ID, 68);
  writeFileSync(stampedText, bytes);
  for (const path of [short, foreign, stampedText]) assert.equal(isOriginalStateDb(path), false, path);
});

test("telling databases apart leaves no file open", () => {
  const dir = tempDir();
  const original = database(join(dir, "state.db"), ORIGINAL_SESSIONS);
  const ours = database(join(dir, "ours.db"), OUR_SESSIONS, true);
  isOriginalStateDb(original);
  isOriginalStateDb(ours);
  assert.equal(importOffer(dir) !== undefined, true);
  database(join(dir, "store.db"), "CREATE TABLE import_marks (x)");
  importOffer(dir);
  const open = openFiles();
  for (const path of [original, ours, join(dir, "store.db")]) {
    assert.ok(!open.includes(path), `${path} is still open`);
  }
});

test("a store asked for state.db opens store.db beside the original's, or once store.db exists", () => {
  const home = tempDir();
  const state = join(home, "state.db");
  assert.equal(storeFileFor(state), state, "a new home");
  database(state, OUR_SESSIONS, true);
  assert.equal(storeFileFor(state), state, "our own state.db");
  const original = tempDir();
  database(join(original, "state.db"), ORIGINAL_SESSIONS);
  assert.equal(storeFileFor(join(original, "state.db")), join(original, "store.db"));
  assert.equal(originalStateDb(original), join(original, "state.db"));
  assert.equal(originalStateDb(home), undefined);
  const split = tempDir();
  database(join(split, "state.db"), OUR_SESSIONS, true);
  writeFileSync(join(split, "store.db"), "");
  assert.equal(storeFileFor(join(split, "state.db")), join(split, "store.db"), "store.db already there");
});

test("only a file named state.db is ever redirected", () => {
  const home = tempDir();
  const other = database(join(home, "sessions.db"), ORIGINAL_SESSIONS);
  writeFileSync(join(home, "store.db"), "");
  assert.equal(storeFileFor(other), other);
});

test("offering the import reads our store without creating it", () => {
  const home = tempDir();
  database(join(home, "state.db"), ORIGINAL_SESSIONS);
  assert.match(importOffer(home) ?? "", /hermes import hermes-python/);
  assert.equal(existsSync(join(home, "store.db")), false, "the offer must not create store.db");
});
