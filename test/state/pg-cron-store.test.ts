import assert from "node:assert/strict";
import { test } from "node:test";
import { openCronStore } from "../../src/state/cron-store.js";
import { PgCronStore } from "../../src/state/postgres/cron-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { cronStoreContract, job } from "./cron-store-contract.js";

const pg = postgresOrSkip();

/** The same database through a pool of its own, as another process (replica) would have. */
const viaOtherPool = (url: string, name: string) => `${url}?application_name=${name}`;

if (pg) {
  cronStoreContract("postgres", async () => {
    const url = await pg.database();
    return {
      store: await openCronStore(viaOtherPool(url, "a")),
      reopen: () => openCronStore(viaOtherPool(url, "a")),
      other: () => openCronStore(viaOtherPool(url, "b")),
    };
  });

  test("postgres: openCronStore opens the PostgreSQL store for a URL", async () => {
    const url = await pg.database();
    const store = await openCronStore(url);
    assert.ok(store instanceof PgCronStore);
    store.close();
    store.close();
  });

  test("postgres: replicas claiming the same due time of many jobs write exactly one run record each", async () => {
    const url = await pg.database();
    const replicas = await Promise.all(["a", "b", "c"].map((name) => openCronStore(viaOtherPool(url, name))));
    const [first] = replicas;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await first!.createJob(job(`j${i}`, 1000))).id);
    const outcomes = await Promise.all(
      replicas.flatMap((replica, r) =>
        ids.map(async (id) => ({ id, r, run: await replica.claimFire(id, 1000, 61_000, 1000 + r) })),
      ),
    );
    const winners = outcomes.filter((o) => o.run !== null);
    assert.deepEqual(winners.map((w) => w.id).sort(), [...ids].sort(), "every fire claimed by exactly one replica");
    for (const { id, run, r } of winners) {
      const runs = await first!.runs(id);
      assert.deepEqual(runs, [run], "one run record, the winner's");
      const after = await first!.getJob(id);
      assert.equal(after?.nextRunAt, 61_000);
      assert.equal(after?.lastRunAt, 1000 + r, "the job moved on in the winner's transaction");
    }
    // The next due time is a new fire, claimed once again.
    const again = await Promise.all(replicas.map((replica) => replica.claimFire(ids[0]!, 61_000, 121_000, 61_000)));
    assert.equal(again.filter(Boolean).length, 1);
    for (const replica of replicas) replica.close();
  });

  test("postgres: a due time that already has its record is not fired again, and the job moves on", async () => {
    const url = await pg.database();
    const store = await openCronStore(url);
    const { id } = await store.createJob(job("rescheduled", 1000));
    const first = await store.claimFire(id, 1000, 2000, 1000);
    assert.ok(first);
    // Scheduled back to a time that already fired (the unique index keeps one record per due time).
    await store.updateJob(id, { nextRunAt: 1000 });
    assert.equal(await store.claimFire(id, 1000, 3000, 1500), null);
    assert.equal((await store.getJob(id))?.nextRunAt, 3000, "not left due for ever");
    assert.deepEqual(
      (await store.runs(id)).map((r) => r.id),
      [first.id],
    );
    store.close();
  });

  test("postgres: replicas racing for an expired lease: one takes it", async () => {
    const url = await pg.database();
    const [a, b] = await Promise.all([openCronStore(viaOtherPool(url, "a")), openCronStore(viaOtherPool(url, "b"))]);
    assert.equal(await a.acquireLease("ticker", "old", 10_000, 0), true);
    for (let round = 1; round <= 5; round++) {
      const now = round * 100_000;
      const took = await Promise.all([
        a.acquireLease("ticker", `a${round}`, 10_000, now),
        b.acquireLease("ticker", `b${round}`, 10_000, now),
        a.acquireLease("ticker", `c${round}`, 10_000, now),
        b.acquireLease("ticker", `d${round}`, 10_000, now),
      ]);
      assert.equal(took.filter(Boolean).length, 1, `round ${round}: one holder`);
    }
    a.close();
    b.close();
  });
}
