import assert from "node:assert/strict";
import { test } from "node:test";
import { type GatewayStore, openGatewayStore } from "../../src/state/gateway-store.js";
import { PgConnection } from "../../src/state/postgres/connection.js";
import { PgGatewayStore } from "../../src/state/postgres/gateway-store.js";
import { PG_MIGRATIONS } from "../../src/state/postgres/schema.js";
import { SessionStoreError } from "../../src/state/session-store.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { delivery, gatewayStoreContract, key, LIMITS, pairing } from "./gateway-store-contract.js";

const pg = postgresOrSkip();

/** The same database through a pool of its own, as another process (replica) would have. */
const viaOtherPool = (url: string, name: string) => `${url}?application_name=${name}`;

async function replicas(count: number): Promise<GatewayStore[]> {
  const url = await pg!.database();
  return Promise.all(Array.from({ length: count }, (_, i) => openGatewayStore(viaOtherPool(url, `r${i}`))));
}

if (pg) {
  gatewayStoreContract("postgres", async () => {
    const url = await pg.database();
    return {
      store: await openGatewayStore(viaOtherPool(url, "a")),
      reopen: () => openGatewayStore(viaOtherPool(url, "a")),
      other: () => openGatewayStore(viaOtherPool(url, "b")),
    };
  });

  test("postgres: openGatewayStore opens the PostgreSQL store for a URL, and closing twice is harmless", async () => {
    const store = await openGatewayStore(await pg.database());
    assert.ok(store instanceof PgGatewayStore);
    store.close();
    store.close();
  });

  test("postgres: a database that cannot be reached is a store error without the password", async () => {
    await assert.rejects(
      openGatewayStore("postgres://hermes:secret@127.0.0.1:9/hermes"),
      (error: unknown) =>
        error instanceof SessionStoreError &&
        /cannot use the PostgreSQL store at postgres:\/\/hermes:\*\*\*@127\.0\.0\.1:9\/hermes/.test(error.message) &&
        !error.message.includes("secret"),
    );
  });

  test("postgres: three replicas claiming the same 50 messages at once accept each exactly once", async () => {
    const stores = await replicas(3);
    const ids = Array.from({ length: 50 }, (_, i) => `m${i}`);
    const claims = await Promise.all(
      ids.flatMap((id) =>
        stores.map(async (store, r) => ({ id, r, claim: await store.claimInbound(key(id), `s${r}`, { r }, 1000 + r) })),
      ),
    );
    const winners = claims.filter((c) => c.claim.accepted);
    assert.deepEqual(winners.map((w) => w.id).sort(), [...ids].sort(), "each message accepted by exactly one replica");
    for (const { id, claim } of claims) {
      const winner = winners.find((w) => w.id === id)!;
      assert.deepEqual(claim.record, winner.claim.record, "every replica reads the winner's record");
    }
    assert.equal((await stores[0]!.unfinishedInbound()).length, 50, "one row per message");
    for (const store of stores) store.close();
  });

  test("postgres: replicas starting runs of one message at once count every attempt", async () => {
    const stores = await replicas(3);
    await stores[0]!.claimInbound(key("m1"), "s", {}, 1000);
    const starts = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 3]!.startInbound(key("m1"))));
    assert.deepEqual(
      starts.map((s) => s.attempts).sort((a, b) => a - b),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    for (const store of stores) store.close();
  });

  test("postgres: concurrent pairing requests of many users never exceed the platform's pending limit", async () => {
    const stores = await replicas(3);
    const limits = { ...LIMITS, maxPendingPerPlatform: 4 };
    for (let round = 0; round < 3; round++) {
      const now = 1_000_000 + round * (LIMITS.ttlMs + 1); // every earlier round's codes have expired
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, u) =>
          stores[u % 3]!.createPairingRequest(pairing(`u${round}-${u}`, `C${round}X${u}`), limits, now),
        ),
      );
      const created = results.filter((r) => r.created);
      assert.equal(created.length, 4, `round ${round}: exactly the limit is created`);
      assert.ok(results.every((r) => r.created || r.reason === "too_many_pending"));
      assert.equal((await stores[0]!.pendingPairingRequests("telegram", now)).length, 4);
      // Another platform has a limit of its own.
      assert.equal(
        (await stores[1]!.createPairingRequest(pairing("x", `S${round}`, "slack"), limits, now)).created,
        true,
      );
    }
    for (const store of stores) store.close();
  });

  test("postgres: one user asking on several replicas at once gets one code", async () => {
    const stores = await replicas(3);
    const results = await Promise.all(
      Array.from({ length: 9 }, (_, i) => stores[i % 3]!.createPairingRequest(pairing("u1", `CODE${i}`), LIMITS, 5000)),
    );
    const created = results.filter((r) => r.created);
    assert.equal(created.length, 1);
    const pending = await stores[0]!.pendingPairingRequests("telegram", 5000);
    assert.deepEqual(
      pending.map((p) => p.code),
      [created[0]!.created && created[0]!.request.code],
    );
    for (const r of results) if (!r.created) assert.equal(r.reason, "too_soon");
    for (const store of stores) store.close();
  });

  test("postgres: two replicas approving the same code at once: one gets the user", async () => {
    const [a, b] = await replicas(2);
    const codes = Array.from({ length: 10 }, (_, i) => `APPR${i}`);
    for (const [i, code] of codes.entries()) {
      await a!.createPairingRequest(pairing(`u${i}`, code), { ...LIMITS, maxPendingPerPlatform: 20 }, 1000);
    }
    const approvals = await Promise.all(
      codes.flatMap((code) =>
        [a!, b!].map((store, n) => store.approvePairingCode("telegram", code, { admin: n === 1 }, 2000)),
      ),
    );
    for (const [i] of codes.entries()) {
      const pair = approvals.slice(2 * i, 2 * i + 2);
      assert.equal(pair.filter((user) => user !== null).length, 1, `code ${codes[i]}: one winner`);
      const winner = pair.find((user) => user !== null)!;
      assert.deepEqual(await b!.approvedUser("telegram", `u${i}`), winner, "the winner's approval is stored");
    }
    assert.deepEqual(await a!.pendingPairingRequests("telegram", 2000), []);
    a!.close();
    b!.close();
  });

  test("postgres: deliveries of one millisecond recorded on several replicas are due in the order recorded", async () => {
    const stores = await replicas(3);
    const ids = Array.from({ length: 12 }, (_, i) => `d${(i * 7) % 12}-${String.fromCharCode(122 - i)}`);
    for (const [i, id] of ids.entries()) await stores[i % 3]!.recordDelivery(delivery(id), 1000);
    // Rewrites (retries on other replicas) must not change the order among equal timestamps.
    for (const id of ids.slice(0, 6)) {
      await stores[1]!.markSending(id, 1001);
      await stores[2]!.markRetry(id, "timeout", 1000, 1002);
    }
    assert.deepEqual(
      (await stores[0]!.dueDeliveries(1000, 100)).map((d) => d.id),
      ids,
    );
    assert.deepEqual(
      (await stores[2]!.dueDeliveries(1000, 5)).map((d) => d.id),
      ids.slice(0, 5),
    );
    for (const store of stores) store.close();
  });

  test("postgres: replicas reconciling at once re-queue each interrupted delivery once", async () => {
    const [crashed, ...survivors] = await replicas(4);
    for (let i = 0; i < 20; i++) await crashed!.recordDelivery(delivery(`d${i}`), 1000 + i);
    for (let i = 0; i < 10; i++) await crashed!.markSending(`d${i}`, 2000);
    await crashed!.markSent("d0", "p0", 2001);
    crashed!.close();
    const counts = await Promise.all(survivors.map((store) => store.reconcileDeliveries(3000)));
    assert.equal(
      counts.reduce((a, b) => a + b, 0),
      9,
      "d1..d9 were left sending; each is reconciled by one replica",
    );
    const due = await survivors[0]!.dueDeliveries(3000, 100);
    assert.deepEqual(
      due.map((d) => d.id),
      Array.from({ length: 19 }, (_, i) => `d${i + 1}`),
    );
    for (const d of due) {
      const interrupted = Number(d.id.slice(1)) < 10;
      assert.deepEqual([d.possibleDuplicate, d.attempts], [interrupted, interrupted ? 1 : 0], d.id);
    }
    assert.equal((await survivors[0]!.getDelivery("d0"))?.state, "sent", "a sent delivery is left alone");
    for (const store of survivors) store.close();
  });

  test("postgres: upgrading a database of schema 7 numbers existing gateway rows in table order", async () => {
    const url = await pg.database();
    const { default: pgDriver } = await import("pg");
    const client = new pgDriver.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)");
      for (let version = 1; version <= 7; version++) {
        await client.query(PG_MIGRATIONS[version - 1]!);
        await client.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, 0)", [version]);
      }
      for (const id of ["b", "c", "a"]) {
        await client.query(
          `INSERT INTO gateway_inbound (platform, chat_id, message_id, session_key, state, attempts, payload, received_at, updated_at)
           VALUES ('telegram', 'c1', $1, 's', 'received', 0, 'null', 1000, 1000)`,
          [id],
        );
        await client.query(
          `INSERT INTO gateway_deliveries (id, platform, chat_id, body, idempotency_key, state, next_attempt_at, created_at, updated_at)
           VALUES ($1, 'slack', 'c', 'null', $1, 'pending', 1000, 1000, 1000)`,
          [id],
        );
      }
    } finally {
      await client.end();
    }
    const store = await openGatewayStore(url);
    await store.claimInbound(key("0"), "s", {}, 1000);
    await store.recordDelivery(delivery("0"), 1000);
    assert.deepEqual(
      (await store.unfinishedInbound()).map((r) => r.messageId),
      ["b", "c", "a", "0"],
    );
    assert.deepEqual(
      (await store.dueDeliveries(1000, 10)).map((d) => d.id),
      ["b", "c", "a", "0"],
    );
    const connection = await PgConnection.open(url);
    const versions = await connection.query<{ version: number }>("SELECT version FROM schema_version ORDER BY version");
    assert.equal(versions.at(-1)?.version, PG_MIGRATIONS.length);
    await connection.close();
    store.close();
  });
}
