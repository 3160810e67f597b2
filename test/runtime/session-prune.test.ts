import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openRuntime } from "../../src/runtime/runtime.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { tempDir } from "../state/temp-dir.js";

const DAY = 86_400_000;

/** A home whose store holds one session idle for `idleDays` with a few large messages, and one fresh. */
async function homeWith(config: string, idleDays = 40): Promise<{ home: string; old: string; fresh: string }> {
  const home = tempDir("hermes-session-prune-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n${config}`,
  );
  const store = await openSessionStore(join(home, "state.db"));
  const old = (await store.createSession({ source: "cli" })).id;
  for (let i = 0; i < 40; i++)
    await store.appendMessage(old, { role: "user", content: `old ${i} ${"x".repeat(4000)}` });
  const fresh = (await store.createSession({ source: "cli" })).id;
  await store.appendMessage(fresh, { role: "user", content: "recent" });
  store.close();
  age(home, old, idleDays);
  return { home, old, fresh };
}

function age(home: string, id: string, days: number): void {
  const db = openSqliteDatabase(join(home, "state.db"));
  db.prepare("UPDATE sessions SET last_active = ?, started_at = ? WHERE id = ?").run(
    Date.now() - days * DAY,
    Date.now() - days * DAY,
    id,
  );
  db.close();
}

async function sessionIds(home: string): Promise<string[]> {
  const store = await openSessionStore(join(home, "state.db"));
  const ids = (await store.listSessions({ limit: 100 })).map((s) => s.id);
  store.close();
  return ids;
}

function freePages(home: string): number {
  const db = openSqliteDatabase(join(home, "state.db"));
  const pages = db.pragma("freelist_count", { simple: true }) as number;
  db.close();
  return pages;
}

async function start(home: string, platform: string, interactive = false) {
  const notices: string[] = [];
  const runtime = await openRuntime({
    home,
    platform,
    interactive,
    localServers: false,
    skipDotEnv: true,
    callbacks: { onNotice: (message) => notices.push(message) },
  });
  await runtime.close();
  return notices;
}

test("sessions.auto_prune deletes idle sessions when a long-lived surface starts, then compacts the file", async () => {
  const { home, old, fresh } = await homeWith("sessions:\n  auto_prune: true\n  retention_days: 30\n");
  const notices = await start(home, "api_server");
  assert.deepEqual(await sessionIds(home), [fresh]);
  assert.ok(!(await sessionIds(home)).includes(old));
  assert.ok(
    notices.some((n) => /pruned 1 session\(s\) idle for more than 30 days/.test(n)),
    notices.join("\n"),
  );
  assert.equal(freePages(home), 0, "vacuum_after_prune gave the freed pages back");
  assert.ok(Number(readFileSync(join(home, ".last-session-prune"), "utf8")) > Date.now() - 60_000);
});

test("at most one pass per min_interval_hours; one-shot runs and a false auto_prune never prune", async () => {
  const due = await homeWith("sessions:\n  auto_prune: true\n  retention_days: 30\n  vacuum_after_prune: false\n");
  await start(due.home, "cli", true);
  assert.deepEqual(await sessionIds(due.home), [due.fresh]);
  assert.ok(freePages(due.home) > 0, "no vacuum when vacuum_after_prune is false");
  age(due.home, due.fresh, 45);
  await start(due.home, "cli", true);
  assert.deepEqual(await sessionIds(due.home), [due.fresh], "the next pass waits min_interval_hours");

  const oneShot = await homeWith("sessions:\n  auto_prune: true\n  retention_days: 30\n");
  await start(oneShot.home, "cli", false);
  assert.equal((await sessionIds(oneShot.home)).length, 2);
  assert.ok(!existsSync(join(oneShot.home, ".last-session-prune")));

  const off = await homeWith("");
  await start(off.home, "api_server");
  assert.equal((await sessionIds(off.home)).length, 2, "auto_prune is off by default");
});
