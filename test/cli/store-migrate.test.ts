import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerStoreCommands } from "../../src/cli/commands/store.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { openGatewayStore } from "../../src/state/gateway-store.js";
import { PgConnection } from "../../src/state/postgres/connection.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { TURN } from "../state/session-store-contract.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const pg = postgresOrSkip();
const migrate = (home: string, ...args: string[]) => run(registerStoreCommands, home, ["store", "migrate", ...args]);
const digest = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

test("store migrate refuses an unknown target and a missing database before touching anything", async () => {
  const home = tempHome();
  await assert.rejects(migrate(home, "--to", "mysql"), /cannot migrate to "mysql"; the one target is postgres/);
  const saved = process.env.HERMES_DATABASE_URL;
  delete process.env.HERMES_DATABASE_URL;
  try {
    await assert.rejects(migrate(home, "--to", "postgres"), /name the database: --url postgres:\/\//);
  } finally {
    if (saved !== undefined) process.env.HERMES_DATABASE_URL = saved;
  }
});

if (pg) {
  test("store migrate copies every session, message and record into PostgreSQL, again only what is new", async () => {
    const home = tempHome();
    const statePath = join(home, "state.db");
    const sessions = await openSessionStore(statePath);
    const first = await sessions.createSession({
      source: "telegram",
      title: "Deploy notes",
      systemPrompt: "sys\u0000",
    });
    await sessions.appendMessages(first.id, TURN);
    const second = await sessions.createSession({ source: "cli" });
    await sessions.appendMessage(second.id, { role: "user", content: "remember the zeppelin" });
    const gateway = await openGatewayStore(statePath);
    await gateway.approveUser({ platform: "telegram", userId: "42", userName: "ada", admin: false });
    gateway.close();
    const cron = await openCronStore(statePath);
    await cron.createJob({
      name: "digest",
      prompt: "summarise",
      schedule: { kind: "interval", minutes: 60 },
      scheduleDisplay: "every hour",
      nextRunAt: 5000,
    });
    cron.close();
    const exported = [await sessions.exportSession(first.id), await sessions.exportSession(second.id)];
    sessions.close();
    const before = digest(statePath);

    const url = await pg.database();
    const once = await migrate(home, "--to", "postgres", "--url", url);
    assert.match(once.out, /sessions: 2 row\(s\), 2 new/);
    assert.match(once.out, new RegExp(`messages: ${TURN.length + 1} row\\(s\\), ${TURN.length + 1} new`));
    assert.match(once.out, /Copied \d+ new row\(s\) of \d+ from .*state\.db to postgres:\/\/.*; every row is there\./);
    assert.equal(digest(statePath), before, "the embedded store is not changed");

    const target = await openSessionStore(url);
    try {
      for (const original of exported) assert.deepEqual(await target.exportSession(original.session.id), original);
      assert.equal((await target.search("zeppelin"))[0]?.sessionId, second.id);
      // The copied messages have ids 1..N (a fresh embedded store); a new one must come after them.
      const next = await target.appendMessage(second.id, { role: "assistant", content: "noted" });
      assert.ok(next > TURN.length + 1, `new message id ${next} continues after the copied ones`);
    } finally {
      target.close();
    }
    const connection = await PgConnection.open(url);
    try {
      const users = await connection.query<{ user_name: string }>(
        "SELECT user_name FROM gateway_approved_users WHERE platform = 'telegram' AND user_id = '42'",
      );
      assert.deepEqual(
        users.map((u) => u.user_name),
        ["ada"],
      );
      const jobs = await connection.query<{ name: string }>("SELECT name FROM cron_jobs");
      assert.deepEqual(
        jobs.map((j) => j.name),
        ["digest"],
      );
    } finally {
      await connection.close();
    }

    const again = await migrate(home, "--to", "postgres", "--url", url);
    assert.match(again.out, /Copied 0 new row\(s\) of \d+/);
    assert.match(again.out, /sessions: 2 row\(s\), 0 new/);
  });
}
