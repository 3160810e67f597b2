import assert from "node:assert/strict";
import { test } from "node:test";
import { openApiServerStore } from "../../src/state/api-store.js";
import { PgApiServerStore } from "../../src/state/postgres/api-store.js";
import { redactUrl } from "../../src/state/postgres/connection.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { apiStoreContract, claim, HOUR_MS, run } from "./api-store-contract.js";

const pg = postgresOrSkip();

/** The same database through a pool of its own, as another process (replica) would have. */
const viaOtherPool = (url: string, name: string) => `${url}?application_name=${name}`;

if (pg) {
  apiStoreContract("postgres", async () => {
    const url = viaOtherPool(await pg.database(), "a");
    return {
      store: await openApiServerStore(url),
      location: redactUrl(url),
      sessions: () => openSessionStore(url),
      reopen: () => openApiServerStore(url),
      other: () => openApiServerStore(url.replace(/a$/, "b")),
    };
  });

  test("postgres: openApiServerStore opens the PostgreSQL store for a URL, and closing twice is harmless", async () => {
    const store = await openApiServerStore(await pg.database());
    assert.ok(store instanceof PgApiServerStore);
    store.close();
    store.close();
  });

  test("postgres: replicas claiming the same idempotency keys at once: each key makes one run", async () => {
    const url = await pg.database();
    const replicas = await Promise.all(["a", "b", "c"].map((name) => openApiServerStore(viaOtherPool(url, name))));
    const keys = Array.from({ length: 15 }, (_, i) => `key-${i}`);
    const now = Date.now();
    const outcomes = await Promise.all(
      keys.flatMap((key) =>
        replicas.map(async (replica, r) => {
          const runId = `run_${key}_${r}`;
          const result = await replica.claimIdempotencyKey(claim({ key, runId, createdAt: now }), HOUR_MS);
          if (result.claimed) await replica.createRun(run({ id: runId }));
          return { key, runId, result };
        }),
      ),
    );
    const [first] = replicas;
    for (const key of keys) {
      const mine = outcomes.filter((o) => o.key === key);
      const winners = mine.filter((o) => o.result.claimed);
      assert.equal(winners.length, 1, `${key}: one winner`);
      for (const o of mine) {
        if (!o.result.claimed) assert.equal(o.result.existing.runId, winners[0]!.runId, `${key}: the winner's run`);
      }
      let runs = 0;
      for (const o of mine) if (await first!.getRun("key-a", o.runId)) runs++;
      assert.equal(runs, 1, `${key}: one run`);
    }
    for (const replica of replicas) replica.close();
  });

  test("postgres: replicas replacing the same expired key at once: one takes it", async () => {
    const url = await pg.database();
    const [a, b] = await Promise.all([
      openApiServerStore(viaOtherPool(url, "a")),
      openApiServerStore(viaOtherPool(url, "b")),
    ]);
    const old = claim({ createdAt: 1_000_000 });
    assert.deepEqual(await a.claimIdempotencyKey(old, HOUR_MS), { claimed: true });
    const later = old.createdAt + 2 * HOUR_MS;
    const claims = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).claimIdempotencyKey(claim({ runId: `run_${i}`, createdAt: later }), HOUR_MS),
      ),
    );
    const winners = claims.flatMap((c, i) => (c.claimed ? [`run_${i}`] : []));
    assert.equal(winners.length, 1);
    assert.ok(claims.every((c) => c.claimed || c.existing.runId === winners[0]));
    a.close();
    b.close();
  });

  test("postgres: a claim racing a prune answers with a claim that exists, never a vanished one", async () => {
    const url = await pg.database();
    const [a, b] = await Promise.all([
      openApiServerStore(viaOtherPool(url, "a")),
      openApiServerStore(viaOtherPool(url, "b")),
    ]);
    for (let round = 0; round < 10; round++) {
      const key = `k${round}`;
      await a.claimIdempotencyKey(claim({ key, createdAt: 1_000 }), HOUR_MS);
      const [pruned, claimed] = await Promise.all([
        b.pruneIdempotencyKeys(2_000),
        a.claimIdempotencyKey(claim({ key, runId: "run_new", createdAt: 1_500 }), HOUR_MS),
      ]);
      assert.ok(pruned >= 0);
      if (!claimed.claimed) assert.equal(claimed.existing.createdAt, 1_000, "the held claim, read while still there");
    }
    a.close();
    b.close();
  });
}
