import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionStoreError } from "../../src/state/session-store.js";
import { SqliteConnection } from "../../src/state/sqlite-connection.js";
import { tempDir } from "./temp-dir.js";

test("opening an up-to-date store needs no write lock: it opens while another process holds one", async () => {
  const path = join(tempDir(), "state.db");
  const holder = await SqliteConnection.open(path, 1000);
  try {
    holder.db.exec("BEGIN IMMEDIATE");
    const reader = await SqliteConnection.open(path, 300);
    reader.close();
    holder.db.exec("ROLLBACK");
  } finally {
    holder.close();
  }
});

test("a store whose file name the system refuses fails with the system's error", async () => {
  const path = join(tempDir(), `${"x".repeat(300)}.db`);
  await assert.rejects(SqliteConnection.open(path, 1000), /ENAMETOOLONG/);
});

test("damage reported by any SQLITE_CORRUPT code is 'not a readable database'; errors without an SQLite code pass as they are", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 1000);
  try {
    const corrupt = Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT_INDEX" });
    const wrapped = conn.wrap(corrupt) as Error;
    assert.ok(wrapped instanceof SessionStoreError);
    assert.match(wrapped.message, /is not a readable SQLite database/);
    const system = Object.assign(new Error("no such file"), { code: "ENOENT" });
    assert.equal(conn.wrap(system), system);
    const own = new SessionStoreError("already ours", conn.path);
    assert.equal(conn.wrap(own), own);
  } finally {
    conn.close();
  }
});

test("a batch whose COMMIT fails is rolled back whole, every write in it is rejected, and the next write commits", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 1000);
  try {
    await conn.write(() =>
      conn.db.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
        CREATE TABLE child (id INTEGER PRIMARY KEY,
          parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);`),
    );
    const before = conn.transactions;
    // The deferred foreign key is only checked at COMMIT, so both writes succeed on their own.
    const orphan = conn.write(() => conn.statement("INSERT INTO child (id, parent_id) VALUES (1, 42)").run());
    const innocent = conn.write(() => conn.statement("INSERT INTO parent (id) VALUES (7)").run());
    const outcomes = await Promise.allSettled([orphan, innocent]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ["rejected", "rejected"],
    );
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
    assert.equal(conn.db.inTransaction, false);
    assert.equal(conn.transactions, before, "a failed commit is not counted");
    await conn.write(() => conn.statement("INSERT INTO parent (id) VALUES (8)").run());
    assert.equal(conn.transactions, before + 1);
    assert.deepEqual(await conn.read(() => conn.db.prepare("SELECT id FROM parent").pluck().all()), [8]);
    assert.deepEqual(await conn.read(() => conn.db.prepare("SELECT id FROM child").pluck().all()), []);
  } finally {
    conn.close();
  }
});

test("bytes() counts the database and its write-ahead log, and works once the log is gone", async () => {
  const path = join(tempDir(), "state.db");
  const conn = await SqliteConnection.open(path, 1000);
  await conn.write(() => conn.db.exec("CREATE TABLE t (v TEXT)"));
  await conn.write(() => conn.statement("INSERT INTO t (v) VALUES (?)").run("x".repeat(10_000)));
  assert.ok(existsSync(`${path}-wal`));
  assert.equal(conn.bytes(), statSync(path).size + statSync(`${path}-wal`).size);
  assert.ok(statSync(`${path}-wal`).size > 0);
  conn.close();
  assert.equal(conn.db.open, false, "close closes the database");
  conn.close();
  assert.equal(existsSync(`${path}-wal`), false, "the last close folds the log back");
  assert.equal(conn.bytes(), statSync(path).size);
});

test("writes that arrive while an earlier batch waits for another process's lock wait their turn", async () => {
  const path = join(tempDir(), "state.db");
  const holder = await SqliteConnection.open(path, 1000);
  const conn = await SqliteConnection.open(path, 10_000);
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  try {
    await conn.write(() => conn.db.exec("CREATE TABLE t (v TEXT)"));
    holder.db.exec("BEGIN IMMEDIATE");
    const first = conn.write(() => conn.statement("INSERT INTO t (v) VALUES ('first')").run());
    await tick();
    await tick();
    // The first batch is now retrying its BEGIN; a second write must not start a batch of its own.
    const second = conn.write(() => conn.statement("INSERT INTO t (v) VALUES ('second')").run());
    await tick();
    await tick();
    holder.db.exec("ROLLBACK");
    await Promise.all([first, second]);
    assert.deepEqual(await conn.read(() => conn.db.prepare("SELECT v FROM t ORDER BY rowid").pluck().all()), [
      "first",
      "second",
    ]);
  } finally {
    holder.close();
    conn.close();
  }
});
