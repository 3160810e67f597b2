import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { SqliteApiServerStore } from "../../src/state/sqlite-api-store.js";
import { SqliteConnection } from "../../src/state/sqlite-connection.js";
import { SqliteCronStore } from "../../src/state/sqlite-cron-store.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { tempDir } from "./temp-dir.js";

test("writes requested together commit in one transaction, in order, and a failing one undoes only itself", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 10_000);
  try {
    await conn.write(() => conn.db.exec("CREATE TABLE notes (n INTEGER PRIMARY KEY, text TEXT NOT NULL)"));
    const before = conn.transactions;
    const insert = (n: number, text: string | null) =>
      conn.write(() => conn.statement("INSERT INTO notes (n, text) VALUES (?, ?)").run(n, text).changes);
    const writes = Array.from({ length: 20 }, (_, i) => insert(i, i === 7 ? null : `note ${i}`));
    const outcomes = await Promise.allSettled(writes);
    assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 19);
    assert.match(String((outcomes[7] as PromiseRejectedResult).reason), /NOT NULL/);
    assert.ok(conn.transactions - before < 20, `20 writes took ${conn.transactions - before} transactions`);
    const rows = await conn.read(() => conn.db.prepare("SELECT n FROM notes ORDER BY rowid").pluck().all());
    assert.deepEqual(
      rows,
      Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 7),
    );
  } finally {
    conn.close();
  }
});

test("a write that fails alone leaves nothing behind and the next write still commits", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 10_000);
  try {
    await conn.write(() => conn.db.exec("CREATE TABLE t (v TEXT NOT NULL)"));
    await assert.rejects(
      conn.write(() => {
        conn.statement("INSERT INTO t (v) VALUES (?)").run("half");
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    await conn.write(() => conn.statement("INSERT INTO t (v) VALUES (?)").run("whole"));
    assert.deepEqual(await conn.read(() => conn.db.prepare("SELECT v FROM t").pluck().all()), ["whole"]);
    assert.equal(conn.db.inTransaction, false);
  } finally {
    conn.close();
  }
});

test("an empty file is a new database; a directory, a foreign file and a damaged one are refused by path", async () => {
  const { mkdirSync, writeFileSync, readFileSync } = await import("node:fs");
  const dir = tempDir();
  const empty = join(dir, "empty.db");
  writeFileSync(empty, "");
  const conn = await SqliteConnection.open(empty, 1000);
  conn.close();
  assert.equal(readFileSync(empty).subarray(0, 15).toString("latin1"), "SQLite format 3");

  const folder = join(dir, "folder.db");
  mkdirSync(folder);
  await assert.rejects(SqliteConnection.open(folder, 1000), (error: Error) => {
    assert.equal(error.message, `${folder} is not a file`);
    return true;
  });

  const foreign = join(dir, "notes.db");
  writeFileSync(foreign, "these are my notes, not a database\n");
  await assert.rejects(
    SqliteConnection.open(foreign, 1000),
    /notes\.db is not a readable SQLite database .*left untouched: move it aside/,
  );
  assert.equal(readFileSync(foreign, "utf8"), "these are my notes, not a database\n");

  // A valid header over garbage: the driver itself finds it is not a database.
  const damaged = join(dir, "damaged.db");
  writeFileSync(damaged, Buffer.concat([Buffer.from("SQLite format 3\0", "latin1"), Buffer.alloc(4096, 0xab)]));
  await assert.rejects(SqliteConnection.open(damaged, 1000), (error: Error) => {
    assert.match(error.message, /damaged\.db is not a readable SQLite database/);
    assert.ok(error.cause, "the driver's own error is kept as the cause");
    return true;
  });
});

test("a database held by another writer past the timeout fails with a message naming the file and the wait", async () => {
  const path = join(tempDir(), "state.db");
  const holder = await SqliteConnection.open(path, 1000);
  const waiter = await SqliteConnection.open(path, 300);
  try {
    holder.db.exec("BEGIN IMMEDIATE");
    const started = Date.now();
    await assert.rejects(
      waiter.write(() => waiter.db.exec("CREATE TABLE t (x)")),
      (error: Error) => {
        assert.equal(
          error.message,
          `database is locked: another process kept ${path} busy for more than 0.3s. Close other hermes processes using this profile, or try again.`,
        );
        return true;
      },
    );
    assert.ok(Date.now() - started >= 250, "it kept trying until the timeout");
    holder.db.exec("ROLLBACK");
    await waiter.write(() => waiter.db.exec("CREATE TABLE t (x)"));
  } finally {
    holder.close();
    waiter.close();
  }
});

test("other SQLite errors name the file and keep the cause; errors that are not SQLite's pass through", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 1000);
  try {
    await assert.rejects(
      conn.read(() => conn.db.prepare("SELECT * FROM no_such_table").all()),
      (error: Error) => {
        assert.match(error.message, /state\.db: no such table: no_such_table$/);
        assert.ok(error.cause);
        return true;
      },
    );
    const plain = new TypeError("not from sqlite");
    await assert.rejects(
      conn.read(() => {
        throw plain;
      }),
      (error) => error === plain,
    );
  } finally {
    conn.close();
  }
});

test("prepared statements are reused, and the cache is bounded", async () => {
  const conn = await SqliteConnection.open(join(tempDir(), "state.db"), 1000);
  try {
    const first = conn.statement("SELECT 1");
    assert.equal(conn.statement("SELECT 1"), first, "the same SQL gets the same statement");
    for (let i = 0; i < 300; i++) conn.statement(`SELECT ${i + 2}`);
    const cache = (conn as unknown as { statements: Map<string, unknown> }).statements;
    assert.ok(cache.size <= 256, `${cache.size} statements cached`);
    assert.notEqual(conn.statement("SELECT 1"), first, "an evicted statement is prepared again");
  } finally {
    conn.close();
  }
});

test("the stores of one process share a connection to a file, closed when the last holder closes", async () => {
  const path = join(tempDir(), "state.db");
  const [first, second] = await Promise.all([
    SqliteConnection.shared(path, 10_000),
    SqliteConnection.shared(path, 10_000),
  ]);
  assert.equal(first, second, "opened together: one connection");
  const third = await SqliteConnection.shared(path, 10_000);
  assert.equal(third, first, "opened later: the same connection");
  const otherTimeout = await SqliteConnection.shared(path, 500);
  assert.notEqual(otherTimeout, first, "another lock timeout gets its own");
  otherTimeout.close();
  first.close();
  second.close();
  assert.equal(third.db.open, true, "one holder left");
  await third.write(() => third.db.exec("CREATE TABLE t (x)"));
  third.close();
  assert.equal(third.db.open, false);
  const fresh = await SqliteConnection.shared(path, 10_000);
  assert.notEqual(fresh, first, "after the last close, a new connection");
  assert.equal(fresh.db.open, true);
  fresh.close();
});

test("a store closed twice lets go of the shared connection once", async () => {
  const path = join(tempDir(), "state.db");
  const sessions = await SqliteSessionStore.open(path);
  const api = await SqliteApiServerStore.open(path);
  const cron = await SqliteCronStore.open(path);
  api.close();
  api.close();
  cron.close();
  cron.close();
  const session = await sessions.createSession({ source: "api_server" });
  assert.equal((await sessions.getSession(session.id))?.source, "api_server");
  sessions.close();
});
