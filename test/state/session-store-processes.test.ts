import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { test } from "node:test";
import { SessionStoreError } from "../../src/state/session-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { tempDir } from "./temp-dir.js";

const WORKER = join(import.meta.dirname, "fixtures", "append-worker.ts");

function startWorker(db: string, sessionId: string, count: number, label: string): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", WORKER, db, sessionId, String(count), label], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
}

test("two processes appending 500 messages each to one database lose nothing", { timeout: 120_000 }, async () => {
  const db = join(tempDir(), "state.db");
  const store = await SqliteSessionStore.open(db);
  const session = await store.createSession({ source: "cli" });
  const children = [startWorker(db, session.id, 500, "A"), startWorker(db, session.id, 500, "B")];
  const results = await Promise.all(children.map(exited));
  for (const result of results) assert.equal(result.code, 0, result.stderr);

  const messages = await store.getMessages(session.id);
  assert.equal(messages.length, 1000);
  for (const label of ["A", "B"]) {
    const mine = messages.map((m) => m.content as string).filter((c) => c.startsWith(`${label}-`));
    assert.deepEqual(
      mine,
      Array.from({ length: 500 }, (_, i) => `${label}-${i + 1}`),
      `${label}'s messages are all present, in the order it wrote them`,
    );
  }
  assert.equal((await store.getSession(session.id))?.messageCount, 1000);
  assert.equal((await store.search("A-500")).length > 0, true);
  store.close();
});

test("two processes opening a brand-new database at the same moment both succeed", { timeout: 60_000 }, async () => {
  const db = join(tempDir(), "state.db");
  const children = [startWorker(db, "create:one", 50, "one"), startWorker(db, "create:two", 50, "two")];
  const results = await Promise.all(children.map(exited));
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const store = await SqliteSessionStore.open(db);
  assert.equal((await store.getMessages("one")).length, 50);
  assert.equal((await store.getMessages("two")).length, 50);
  store.close();
});

test("a process killed with SIGKILL mid-session leaves every message it reported as committed", {
  timeout: 60_000,
}, async () => {
  const db = join(tempDir(), "state.db");
  const setup = await SqliteSessionStore.open(db);
  const session = await setup.createSession();
  setup.close();

  const child = startWorker(db, session.id, 100_000, "K");
  const done = exited(child);
  let committed = 0;
  const lines = createInterface({ input: child.stdout! });
  for await (const line of lines) {
    const match = /^committed (\d+)$/.exec(line);
    if (match) committed = Number(match[1]);
    if (committed >= 40) {
      child.kill("SIGKILL");
      break;
    }
  }
  const { signal } = await done;
  assert.equal(signal, "SIGKILL");

  const store = await SqliteSessionStore.open(db);
  const messages = await store.getMessages(session.id);
  assert.ok(messages.length >= committed, `${messages.length} stored, ${committed} reported committed`);
  assert.deepEqual(
    messages.slice(0, committed).map((m) => m.content),
    Array.from({ length: committed }, (_, i) => `K-${i + 1}`),
  );
  const raw = openSqliteDatabase(db, { readonly: true });
  assert.equal(raw.pragma("integrity_check", { simple: true }), "ok");
  raw.close();
  store.close();
});

test("a database held by another writer fails with a clear, bounded 'database is locked' error", async () => {
  const db = join(tempDir(), "state.db");
  const store = await SqliteSessionStore.open(db, { lockTimeoutMs: 400 });
  const session = await store.createSession();
  const other = openSqliteDatabase(db);
  other.exec("BEGIN IMMEDIATE");
  const started = Date.now();
  await assert.rejects(store.appendMessage(session.id, { role: "user", content: "blocked" }), (error: unknown) => {
    assert.ok(error instanceof SessionStoreError);
    assert.match(error.message, /database is locked/);
    assert.ok(error.message.includes(db), "the error names the database file");
    return true;
  });
  const waited = Date.now() - started;
  assert.ok(waited >= 350 && waited < 3_000, `waited ${waited} ms`);
  other.exec("ROLLBACK");
  other.close();
  await store.appendMessage(session.id, { role: "user", content: "now it works" });
  assert.equal((await store.getMessages(session.id)).length, 1);
  store.close();
});

test("a writer waiting for the lock gets it once the other writer commits", async () => {
  const db = join(tempDir(), "state.db");
  const store = await SqliteSessionStore.open(db, { lockTimeoutMs: 5_000 });
  const session = await store.createSession();
  const other = openSqliteDatabase(db);
  other.exec("BEGIN IMMEDIATE");
  const pending = store.appendMessage(session.id, { role: "user", content: "waits" });
  // Release the lock from a timer so the retry loop has to go round at least once.
  const release = new Promise<void>((resolve) =>
    setTimeout(() => {
      other.exec("COMMIT");
      other.close();
      resolve();
    }, 200),
  );
  await release;
  assert.ok((await pending) > 0);
  store.close();
});
