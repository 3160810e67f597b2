import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { registerSessionsCommands } from "../../src/cli/commands/sessions.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const DAY_MS = 86_400_000;
const sessions = (home: string, ...args: string[]) => run(registerSessionsCommands, home, ["sessions", ...args]);

/** Two sessions idle for 100 days (three messages in all) and one from today. */
async function seed(home: string): Promise<void> {
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  await store.createSession({ id: "ancient-1" });
  await store.appendMessages("ancient-1", [
    { role: "user", content: "plan the platypus expedition" },
    { role: "assistant", content: "Platypus expedition planned." },
  ]);
  await store.createSession({ id: "ancient-2" });
  await store.appendMessages("ancient-2", [{ role: "user", content: "platypus facts" }]);
  await store.createSession({ id: "today" });
  await store.appendMessages("today", [{ role: "user", content: "what is a platypus" }]);
  store.close();
  const db = openSqliteDatabase(join(home, "state.db"));
  db.prepare("UPDATE sessions SET last_active = ? WHERE id LIKE 'ancient-%'").run(Date.now() - 100 * DAY_MS);
  db.close();
}

test("sessions prune asks before deleting, refuses without a terminal, and with --yes says what went", async () => {
  const home = tempHome();
  await seed(home);
  await assert.rejects(
    sessions(home, "prune", "--older-than", "30"),
    /not deleting 2 sessions \(3 messages\) idle for more than 30 days without confirmation: pass --yes/,
  );
  assert.equal((await sessions(home, "list")).out.trim().split("\n").length, 3, "nothing was deleted");

  const pruned = await sessions(home, "prune", "--older-than", "30", "--yes");
  assert.match(pruned.out, /Pruned 2 sessions older than 30 days \(3 messages\)/);
  assert.match((await sessions(home, "list")).out, /^today /);
  const found = await sessions(home, "search", "platypus", "--json");
  assert.deepEqual(
    JSON.parse(found.out).map((hit: { sessionId: string }) => hit.sessionId),
    ["today"],
  );
  // Nothing left to delete: no question to ask.
  assert.match((await sessions(home, "prune", "--older-than", "30")).out, /Pruned 0 sessions older than 30 days/);
});

test("sessions repair reports a healthy store, and fixes a search index and counts damaged by hand", async () => {
  const home = tempHome();
  await seed(home);
  const healthy = await sessions(home, "repair");
  assert.match(
    healthy.out,
    /integrity check: ok\nsearch index: consistent; rebuilt \(4 messages\)\nmessage counts: all right/,
  );
  assert.match(healthy.out, /The store is healthy\./);
  assert.equal(healthy.exitCode, undefined);

  const db = openSqliteDatabase(join(home, "state.db"));
  db.exec("INSERT INTO messages_fts(messages_fts) VALUES ('delete-all')");
  db.prepare("UPDATE sessions SET message_count = 7 WHERE id = 'today'").run();
  db.close();
  assert.match((await sessions(home, "search", "platypus")).out, /No matches/);
  const fixed = await sessions(home, "repair");
  assert.match(fixed.out, /search index: out of step with the messages; rebuilt \(4 messages\)/);
  assert.match(fixed.out, /message counts: 1 session had a wrong count; recounted/);
  assert.equal(fixed.exitCode, undefined);
  assert.equal((await sessions(home, "search", "platypus", "--json")).out.includes("ancient-1"), true);
});

test("sessions repair exits 1 and points to a backup when the damage is beyond its repairs", async () => {
  const home = tempHome();
  await seed(home);
  // A constraint the stored rows break: no rebuild or recount can make them satisfy it.
  const db = openSqliteDatabase(join(home, "state.db"));
  db.unsafeMode(true);
  db.pragma("writable_schema = ON");
  db.prepare(
    "UPDATE sqlite_master SET sql = replace(sql, 'title TEXT,', 'title TEXT NOT NULL,') WHERE name = 'sessions'",
  ).run();
  db.close();
  const damaged = await sessions(home, "repair");
  assert.equal(damaged.exitCode, 1);
  assert.match(damaged.out, /integrity check: \d+ problems? found\n {2}NULL value in sessions\.title/);
  assert.match(damaged.err, /is damaged beyond these repairs:\n {2}NULL value in sessions\.title/);
  assert.match(damaged.err, /Restore a backup \(hermes backup restore FILE\)/);
});
