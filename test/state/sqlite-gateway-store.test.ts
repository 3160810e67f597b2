import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type GatewayStore, openGatewayStore } from "../../src/state/gateway-store.js";
import { SqliteConnection } from "../../src/state/sqlite-connection.js";
import { SqliteGatewayStore } from "../../src/state/sqlite-gateway-store.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { gatewayStoreContract } from "./gateway-store-contract.js";
import { runModuleWorker } from "./module-worker.js";
import { tempDir } from "./temp-dir.js";

const STORE_MODULE = pathToFileURL(join(import.meta.dirname, "..", "..", "src", "state", "gateway-store.ts")).href;

async function fresh(): Promise<{ store: GatewayStore; path: string }> {
  const path = join(tempDir(), "state.db");
  return { store: await openGatewayStore(path), path };
}

gatewayStoreContract("sqlite", async () => {
  const { store, path } = await fresh();
  return { store, reopen: () => openGatewayStore(path), other: () => openGatewayStore(path) };
});

test("openGatewayStore opens the embedded store for a file path", async () => {
  const { store } = await fresh();
  assert.ok(store instanceof SqliteGatewayStore);
  store.close();
});

test("two processes claiming the same messages at once accept each exactly once", async () => {
  const { store, path } = await fresh();
  store.close();
  const worker = `
    const [moduleUrl, path] = process.argv.slice(1);
    const { openGatewayStore } = await import(moduleUrl);
    const store = await openGatewayStore(path);
    const won = [];
    for (let i = 0; i < 40; i++) {
      const claim = await store.claimInbound({ platform: "slack", chatId: "c", messageId: "m" + i }, "s", { i });
      if (claim.accepted) won.push(i);
    }
    store.close();
    console.log(JSON.stringify(won));
  `;
  const run = async () => JSON.parse(await runModuleWorker(worker, [STORE_MODULE, path])) as number[];
  const [a, b] = await Promise.all([run(), run()]);
  assert.deepEqual(
    [...a, ...b].sort((x, y) => x - y),
    Array.from({ length: 40 }, (_, i) => i),
  );
});

test("a process killed while sending leaves the delivery to be re-sent once, marked as a possible duplicate", async () => {
  const { store, path } = await fresh();
  store.close();
  const crasher = `
    const [moduleUrl, path] = process.argv.slice(1);
    const { openGatewayStore } = await import(moduleUrl);
    const store = await openGatewayStore(path);
    await store.recordDelivery({ id: "d1", platform: "telegram", chatId: "c", body: { text: "final answer" }, idempotencyKey: "k" });
    await store.recordDelivery({ id: "d2", platform: "telegram", chatId: "c", body: { text: "not started" }, idempotencyKey: "k2" });
    await store.markSending("d1");
    process.kill(process.pid, "SIGKILL");
  `;
  const crashed = spawnSync(process.execPath, [
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    crasher,
    STORE_MODULE,
    path,
  ]);
  assert.equal(crashed.signal, "SIGKILL", crashed.stderr.toString());
  const restarted = await openGatewayStore(path);
  assert.equal(await restarted.reconcileDeliveries(), 1);
  const due = await restarted.dueDeliveries(Date.now(), 10);
  assert.deepEqual(
    due.map((d) => [d.id, d.possibleDuplicate, d.attempts]),
    [
      ["d1", true, 1],
      ["d2", false, 0],
    ],
  );
  assert.deepEqual(due[0]?.body, { text: "final answer" });
  assert.equal(await restarted.reconcileDeliveries(), 0, "reconciling twice changes nothing");
  restarted.close();
});

test("the gateway store lets go of the process's shared connection once, however often it is closed", async () => {
  const path = join(tempDir(), "state.db");
  const sessions = await SqliteSessionStore.open(path);
  const gateway = await openGatewayStore(path);
  const shared = await SqliteConnection.shared(path, 10_000);
  gateway.close();
  gateway.close();
  const session = await sessions.createSession({ source: "telegram" });
  assert.equal((await sessions.getSession(session.id))?.source, "telegram", "the other holders still work");
  sessions.close();
  assert.equal(shared.db.open, true, "one holder left");
  shared.close();
  assert.equal(shared.db.open, false, "closed with its last holder, the gateway store among them");
});
