import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type GatewayStore, openGatewayStore, type PairingLimits } from "../../src/state/gateway-store.js";
import { runModuleWorker } from "./module-worker.js";
import { tempDir } from "./temp-dir.js";

const STORE_MODULE = pathToFileURL(join(import.meta.dirname, "..", "..", "src", "state", "gateway-store.ts")).href;
const LIMITS: PairingLimits = { ttlMs: 3_600_000, perUserIntervalMs: 600_000, maxPendingPerPlatform: 3 };
const key = (messageId: string) => ({ platform: "telegram", chatId: "c1", messageId });

async function fresh(): Promise<{ store: GatewayStore; path: string }> {
  const path = join(tempDir(), "state.db");
  return { store: await openGatewayStore(path), path };
}

test("a redelivered inbound message is refused, also after a restart", async () => {
  const { store, path } = await fresh();
  const first = await store.claimInbound(key("m1"), "agent:main:telegram:dm:c1", { text: "hi" }, 1000);
  assert.equal(first.accepted, true);
  assert.deepEqual(first.record.payload, { text: "hi" });
  assert.equal((await store.claimInbound(key("m1"), "agent:main:telegram:dm:c1", { text: "hi" })).accepted, false);
  assert.equal((await store.claimInbound({ ...key("m1"), chatId: "c2" }, "k", {})).accepted, true, "another chat");
  store.close();
  const reopened = await openGatewayStore(path);
  const again = await reopened.claimInbound(key("m1"), "agent:main:telegram:dm:c1", { text: "hi" });
  assert.equal(again.accepted, false);
  assert.equal(again.record.receivedAt, 1000);
  reopened.close();
});

test("attempts count the runs of a message, so one that keeps crashing can be quarantined", async () => {
  const { store } = await fresh();
  await store.claimInbound(key("m1"), "s", { text: "boom" });
  await store.claimInbound(key("m2"), "s", { text: "fine" });
  assert.equal((await store.startInbound(key("m1"))).attempts, 1);
  assert.equal((await store.startInbound(key("m1"))).attempts, 2);
  await store.startInbound(key("m2"));
  await store.finishInbound(key("m2"));
  const unfinished = await store.unfinishedInbound();
  assert.deepEqual(
    unfinished.map((r) => [r.messageId, r.state, r.attempts]),
    [["m1", "running", 2]],
  );
  await store.quarantineInbound(key("m1"), "crashed the gateway twice");
  assert.deepEqual(await store.unfinishedInbound(), []);
  assert.equal((await store.claimInbound(key("m1"), "s", {})).record.state, "quarantined");
  assert.equal((await store.claimInbound(key("m2"), "s", {})).record.payload, null, "a done message drops its payload");
  await assert.rejects(store.startInbound(key("never")), /no inbound message telegram\/c1\/never/);
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

test("a delivery goes pending → sending → sent, keeping its idempotency key and attempts", async () => {
  const { store } = await fresh();
  const recorded = await store.recordDelivery(
    { id: "d1", platform: "discord", chatId: "c", body: { text: "hello" }, idempotencyKey: "idem-1", replyTo: "m9" },
    5000,
  );
  assert.equal(recorded.state, "pending");
  assert.equal(recorded.nextAttemptAt, 5000);
  assert.deepEqual(
    (await store.dueDeliveries(5000, 10)).map((d) => d.id),
    ["d1"],
  );
  assert.equal((await store.markSending("d1")).attempts, 1);
  assert.deepEqual(await store.dueDeliveries(Date.now(), 10), [], "a delivery being sent is not due");
  await store.markSent("d1", "platform-42");
  const sent = await store.getDelivery("d1");
  assert.equal(sent?.state, "sent");
  assert.equal(sent?.platformMessageId, "platform-42");
  assert.equal(sent?.replyTo, "m9");
  await assert.rejects(store.markSending("d1"), /already sent/);
  await assert.rejects(
    store.recordDelivery({ id: "d2", platform: "discord", chatId: "c", body: {}, idempotencyKey: "idem-1" }),
    /UNIQUE/,
  );
  store.close();
});

test("a failed attempt waits for its retry time; a delivery given up on is failed, not due", async () => {
  const { store } = await fresh();
  await store.recordDelivery({ id: "d1", platform: "slack", chatId: "c", body: "x", idempotencyKey: "k1" }, 1000);
  await store.recordDelivery({ id: "d2", platform: "slack", chatId: "c", body: "y", idempotencyKey: "k2" }, 1001);
  await store.markSending("d1", 1100);
  await store.markRetry("d1", "429 Too Many Requests", 9000, 1200);
  assert.deepEqual(
    (await store.dueDeliveries(2000, 10)).map((d) => d.id),
    ["d2"],
  );
  assert.deepEqual(
    (await store.dueDeliveries(9000, 10)).map((d) => d.id),
    ["d1", "d2"],
  );
  await store.markFailed("d2", "chat not found");
  const failed = await store.getDelivery("d2");
  assert.equal(failed?.state, "failed");
  assert.equal(failed?.lastError, "chat not found");
  assert.deepEqual(
    (await store.dueDeliveries(10_000, 10)).map((d) => d.id),
    ["d1"],
  );
  store.close();
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

test("pairing: one code per user per interval, at most N pending per platform, codes expire", async () => {
  const { store } = await fresh();
  const request = (userId: string, code: string) => ({
    platform: "telegram",
    code,
    userId,
    userName: `user ${userId}`,
    chatId: `dm-${userId}`,
    createdAt: 0,
    expiresAt: 0,
  });
  const t0 = 1_000_000;
  const first = await store.createPairingRequest(request("u1", "ABCD2345"), LIMITS, t0);
  assert.equal(first.created, true);
  assert.equal(first.created && first.request.expiresAt, t0 + LIMITS.ttlMs);
  const soon = await store.createPairingRequest(request("u1", "EFGH6789"), LIMITS, t0 + 60_000);
  assert.deepEqual(soon.created ? "created" : soon.reason, "too_soon");
  await store.createPairingRequest(request("u2", "JKLM2345"), LIMITS, t0 + 1);
  await store.createPairingRequest(request("u3", "NPQR2345"), LIMITS, t0 + 2);
  const full = await store.createPairingRequest(request("u4", "STUV2345"), LIMITS, t0 + 3);
  assert.deepEqual(full.created ? "created" : full.reason, "too_many_pending");
  assert.equal((await store.createPairingRequest(request("u4", "STUV2345"), { ...LIMITS }, t0 + 3)).created, false);
  assert.equal((await store.pendingPairingRequests("telegram", t0 + 10)).length, 3);
  // An hour later every code has expired: they neither count nor approve.
  const later = t0 + LIMITS.ttlMs + 10;
  assert.deepEqual(await store.pendingPairingRequests("telegram", later), []);
  assert.equal(await store.approvePairingCode("telegram", "JKLM2345", {}, later), null);
  assert.equal((await store.createPairingRequest(request("u4", "STUV2345"), LIMITS, later)).created, true);
  store.close();
});

test("approving a code approves its user once; revoke and clear undo it", async () => {
  const { store } = await fresh();
  const now = Date.now();
  await store.createPairingRequest(
    { platform: "discord", code: "WXYZ2345", userId: "u1", userName: "Ada", chatId: "d1", createdAt: 0, expiresAt: 0 },
    LIMITS,
    now,
  );
  const approved = await store.approvePairingCode("discord", "wxyz2345", { admin: true }, now);
  assert.deepEqual(approved && [approved.userId, approved.userName, approved.admin], ["u1", "Ada", true]);
  assert.equal(await store.approvePairingCode("discord", "WXYZ2345", {}, now), null, "a code works once");
  assert.equal((await store.approvedUser("discord", "u1"))?.admin, true);
  assert.equal(await store.approvedUser("telegram", "u1"), null, "approval is per platform");
  await store.approveUser({ platform: "discord", userId: "u2", userName: null, admin: false });
  assert.deepEqual(
    (await store.approvedUsers("discord")).map((u) => u.userId),
    ["u1", "u2"],
  );
  assert.equal(await store.revokeUser("discord", "u2"), true);
  assert.equal(await store.revokeUser("discord", "u2"), false);
  assert.equal(await store.clearPairing({ approved: true }), 1);
  assert.deepEqual(await store.approvedUsers(), []);
  store.close();
});

test("session routes and home channels are kept per key and per platform", async () => {
  const { store, path } = await fresh();
  await store.setSessionRoute({
    sessionKey: "agent:main:slack:dm:c1",
    sessionId: "s1",
    platform: "slack",
    chatId: "c1",
  });
  await store.setSessionRoute({
    sessionKey: "agent:main:slack:dm:c1",
    sessionId: "s2",
    platform: "slack",
    chatId: "c1",
  });
  await store.setHomeChannel({ platform: "slack", chatId: "general", threadId: null });
  store.close();
  const reopened = await openGatewayStore(path);
  assert.equal((await reopened.sessionRoute("agent:main:slack:dm:c1"))?.sessionId, "s2");
  assert.equal(await reopened.sessionRoute("agent:main:slack:dm:other"), null);
  assert.equal((await reopened.homeChannel("slack"))?.chatId, "general");
  assert.equal(await reopened.homeChannel("telegram"), null);
  reopened.close();
});
