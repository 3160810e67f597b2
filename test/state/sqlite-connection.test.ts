import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { SqliteConnection } from "../../src/state/sqlite-connection.js";
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
