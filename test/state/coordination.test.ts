import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type Coordination, LocalCoordination, openCoordination } from "../../src/state/coordination.js";
import { postgresOrSkip } from "../helpers/postgres.js";

const pg = postgresOrSkip();

function leaseContract(backend: string, pair: () => Promise<[Coordination, Coordination]>): void {
  test(`${backend}: a session lease has one holder at a time, is renewed by it and taken over after it expires`, async () => {
    const [a, b] = await pair();
    try {
      assert.equal(await a.leaseSession("telegram:1", "replica-a", 30_000, 1_000), true);
      assert.equal(await b.leaseSession("telegram:1", "replica-b", 30_000, 2_000), false, "held by a");
      assert.equal(await a.leaseSession("telegram:1", "replica-a", 30_000, 20_000), true, "a renews");
      assert.equal(await b.leaseSession("telegram:1", "replica-b", 30_000, 40_000), false, "renewed until 50 000");
      assert.equal(await b.leaseSession("telegram:1", "replica-b", 30_000, 50_000), true, "expired: b takes it");
      await a.releaseSession("telegram:1", "replica-a");
      assert.equal(await a.leaseSession("telegram:1", "replica-a", 30_000, 51_000), false, "a's release freed nothing");
      await b.releaseSession("telegram:1", "replica-b");
      assert.equal(await a.leaseSession("telegram:1", "replica-a", 30_000, 52_000), true, "b's release freed it");
      assert.equal(await b.leaseSession("discord:9", "replica-b", 30_000, 52_000), true, "other sessions are free");
    } finally {
      await a.close();
      await b.close();
    }
  });
}

leaseContract("in-process", async () => {
  const shared = new LocalCoordination();
  return [shared, shared];
});

test("in-process: the one gateway process owns whatever it asks for", async () => {
  const local = new LocalCoordination();
  assert.equal(await local.tryOwn("telegram:bot"), true);
  assert.equal(await local.tryOwn("telegram:bot"), true);
});

if (pg) {
  /** The same database through a pool of its own, as another replica would have. */
  const replica = (url: string, name: string) => openCoordination(`${url}?application_name=${name}`);

  leaseContract("postgres", async () => {
    const url = await pg.database();
    return [await replica(url, "a"), await replica(url, "b")];
  });

  test("postgres: one replica owns a name; another gets it once the owner lets go", async () => {
    const url = await pg.database();
    const [a, b] = [await replica(url, "a"), await replica(url, "b")];
    try {
      assert.equal(await a.tryOwn("telegram:bot-1"), true);
      assert.equal(await a.tryOwn("telegram:bot-1"), true, "asking again keeps it");
      assert.equal(await b.tryOwn("telegram:bot-1"), false);
      assert.equal(await b.tryOwn("telegram:bot-2"), true, "names are independent");
      await a.release("telegram:bot-1");
      assert.equal(await b.tryOwn("telegram:bot-1"), true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("postgres: when the owning replica is killed, another takes over at once", async () => {
    const url = await pg.database();
    const module = pathToFileURL(resolve("src/state/coordination.ts")).href;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { openCoordination } = await import(${JSON.stringify(module)});
         const c = await openCoordination(${JSON.stringify(`${url}?application_name=doomed`)});
         console.log(await c.tryOwn("telegram:bot") ? "owned" : "refused");
         setInterval(() => {}, 60_000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const standby = await replica(url, "standby");
    try {
      const said = await new Promise<string>((done) =>
        child.stdout.once("data", (chunk: Buffer) => done(String(chunk))),
      );
      assert.equal(said.trim(), "owned");
      assert.equal(await standby.tryOwn("telegram:bot"), false);
      const killed = new Promise((done) => child.once("exit", done));
      child.kill("SIGKILL");
      await killed;
      const started = performance.now();
      let owned = false;
      // The server notices the closed socket within moments; poll until then, at most 10 s.
      while (!owned && performance.now() - started < 10_000) {
        owned = await standby.tryOwn("telegram:bot");
        if (!owned) await new Promise((next) => setTimeout(next, 25));
      }
      assert.equal(owned, true, "the standby owns it after the owner died");
    } finally {
      child.kill("SIGKILL");
      await standby.close();
    }
  });
}

if (pg) {
  test("postgres: a lease request stuck behind a lock fails after a third of the lease, and its connection is let go", async () => {
    const url = await pg.database();
    const coordination = await openCoordination(`${url}?application_name=leases`);
    const { default: pgModule } = await import("pg");
    const locker = new pgModule.Client({ connectionString: url });
    await locker.connect();
    try {
      assert.equal(await coordination.leaseSession("chat-1", "replica-a", 3_000), true);
      // Another session holds the lease row in an open transaction: the upsert has to wait for it.
      await locker.query("BEGIN");
      await locker.query("SELECT * FROM gateway_session_leases WHERE session_key = 'chat-1' FOR UPDATE");
      const started = performance.now();
      await assert.rejects(coordination.leaseSession("chat-1", "replica-a", 3_000), /timeout/i);
      const waited = performance.now() - started;
      assert.ok(waited >= 900 && waited < 2_900, `gave up after ${Math.round(waited)} ms, a third of 3 s`);
      await locker.query("ROLLBACK");
      assert.equal(await coordination.leaseSession("chat-1", "replica-a", 3_000), true, "the next request succeeds");
    } finally {
      await locker.end();
      await coordination.close();
    }
  });
}
