import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { AdapterSupervisor } from "../../src/gateway/supervisor.js";
import { LocalCoordination } from "../../src/state/coordination.js";
import { PgCoordination } from "../../src/state/postgres/coordination.js";
import { until } from "../fakes/slack/gateway.js";
import { postgresOrSkip } from "../helpers/postgres.js";

/** A bot that allows one listener at a time, like Telegram's long polling. */
class ExclusiveAdapter extends TestAdapter {
  readonly exclusiveListener = "test:bot-1";
}

function supervise(adapter: TestAdapter, coordination: PgCoordination | LocalCoordination, lines: string[] = []) {
  return new AdapterSupervisor(adapter, {
    inbound: async () => true,
    log: (line) => lines.push(line),
    baseDelayMs: 10,
    coordination,
    ownershipCheckMs: 50,
  });
}

test("without replicas an exclusive listener simply connects", async () => {
  const adapter = new ExclusiveAdapter();
  const supervisor = supervise(adapter, new LocalCoordination());
  await supervisor.start();
  assert.equal(adapter.connects, 1);
  assert.equal(supervisor.health.state, "connected");
  await supervisor.stop();
});

const pg = postgresOrSkip();

if (pg) {
  test("postgres: one replica listens, the other stands by and takes over when the owner is killed", async () => {
    const url = await pg.database();
    const owner = spawn(
      process.execPath,
      ["--import", "tsx", join(import.meta.dirname, "fixtures", "own-listener.ts"), url, "test:bot-1"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const [first] = (await once(owner.stdout!, "data")) as [Buffer];
    assert.equal(first.toString(), "owned\n");
    const coordination = await PgCoordination.open(url);
    const adapter = new ExclusiveAdapter();
    const lines: string[] = [];
    const standby = supervise(adapter, coordination, lines);
    try {
      await standby.start();
      assert.equal(standby.health.state, "standby");
      await standby.checkOwnership();
      assert.equal(adapter.connects, 0, "never listens while another replica owns the bot");
      const killedAt = Date.now();
      owner.kill("SIGKILL");
      await until(() => adapter.connects === 1, "the standby replica to take over", 10_000);
      const failoverMs = Date.now() - killedAt;
      assert.equal(standby.health.state, "connected");
      assert.ok(
        lines.some((line) => /this replica now listens/.test(line)),
        lines.join("\n"),
      );
      // Bounded by the ownership check interval plus PostgreSQL noticing the dead connection.
      assert.ok(failoverMs < 5_000, `failover took ${failoverMs} ms`);
    } finally {
      owner.kill("SIGKILL");
      await standby.stop();
      await coordination.close();
    }
  });

  test("postgres: a replica that stops hands the listener over, and one that loses its lock stops listening", async () => {
    const url = await pg.database();
    const [first, second] = await Promise.all([PgCoordination.open(url), PgCoordination.open(url)]);
    const [a, b] = [new ExclusiveAdapter(), new ExclusiveAdapter()];
    const [supA, supB] = [supervise(a, first), supervise(b, second)];
    try {
      await supA.start();
      await supB.start();
      assert.deepEqual([a.connects, b.connects], [1, 0]);
      await supA.stop();
      await until(() => b.connects === 1, "the second replica to take over after a clean stop", 10_000);
      assert.equal(supB.health.state, "connected");
      // The owner's database session is ended from outside: its lock is gone with it.
      const admin = await PgCoordination.open(url);
      const lines: string[] = [];
      const [c] = [new ExclusiveAdapter()];
      const supC = supervise(c, admin, lines);
      await supC.start();
      assert.equal(supC.health.state, "standby");
      const { default: pgModule } = await import("pg");
      const killer = new pgModule.Client({ connectionString: url });
      await killer.connect();
      await killer.query(
        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
      );
      await killer.end();
      await until(
        () =>
          [b, c].filter((adapter) => adapter.connects > 0).length >= 1 &&
          [supB, supC].some((s) => s.health.state === "connected"),
        "a listener after the owner lost its lock",
        10_000,
      );
      await supB.checkOwnership();
      await supC.checkOwnership();
      const listening = [supB, supC].filter((s) => s.health.state === "connected");
      assert.equal(listening.length, 1, "exactly one replica listens");
      await supC.stop();
      await admin.close();
    } finally {
      await supB.stop();
      await Promise.all([first.close(), second.close()]);
    }
  });
}
