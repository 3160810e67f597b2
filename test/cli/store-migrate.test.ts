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
    // Rows of one millisecond, recorded out of key order: the copy keeps the order they came in.
    for (const messageId of ["m2", "m1"]) {
      await gateway.claimInbound({ platform: "telegram", chatId: "c", messageId }, "s", { messageId }, 1000);
    }
    for (const id of ["d2", "d1"]) {
      await gateway.recordDelivery({ id, platform: "telegram", chatId: "c", body: { id }, idempotencyKey: id }, 1000);
    }
    await gateway.createPairingRequest(
      { platform: "telegram", code: "ABCD2345", userId: "7", userName: null, chatId: "c7", createdAt: 0, expiresAt: 0 },
      { ttlMs: 3_600_000, perUserIntervalMs: 0, maxPendingPerPlatform: 5 },
      1000,
    );
    await gateway.setSessionRoute({ sessionKey: "k", sessionId: first.id, platform: "telegram", chatId: "c" }, 1000);
    await gateway.setHomeChannel({ platform: "telegram", chatId: "c", threadId: null }, 1000);
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
    for (const table of [
      "gateway_inbound: 2",
      "gateway_deliveries: 2",
      "gateway_pairing_requests: 1",
      "gateway_approved_users: 1",
      "gateway_session_routes: 1",
      "gateway_home_channels: 1",
    ]) {
      const [name, n] = table.split(": ");
      assert.match(once.out, new RegExp(`${name}: ${n} row\\(s\\), ${n} new`));
    }
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
    const copied = await openGatewayStore(url);
    try {
      assert.deepEqual(
        (await copied.unfinishedInbound()).map((r) => r.messageId),
        ["m2", "m1"],
      );
      assert.deepEqual(
        (await copied.dueDeliveries(1000, 10)).map((d) => [d.id, d.body]),
        [
          ["d2", { id: "d2" }],
          ["d1", { id: "d1" }],
        ],
      );
      assert.equal(
        (await copied.claimInbound({ platform: "telegram", chatId: "c", messageId: "m1" }, "s", {})).accepted,
        false,
      );
      assert.deepEqual(
        (await copied.pendingPairingRequests("telegram", 1000)).map((r) => r.code),
        ["ABCD2345"],
      );
      assert.equal((await copied.approvedUser("telegram", "42"))?.userName, "ada");
      assert.equal((await copied.sessionRoute("k"))?.sessionId, first.id);
      assert.equal((await copied.homeChannel("telegram"))?.chatId, "c");
    } finally {
      copied.close();
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
    assert.match(again.out, /gateway_inbound: 2 row\(s\), 0 new/);
    assert.match(again.out, /gateway_deliveries: 2 row\(s\), 0 new/);
  });
}
