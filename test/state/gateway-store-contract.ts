/** The behaviour every GatewayStore backend must have; each backend's test file registers it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { GatewayStore, PairingLimits, PairingRequest } from "../../src/state/gateway-store.js";
import { SessionStoreError } from "../../src/state/session-store.js";

export interface GatewayStoreFixture {
  store: GatewayStore;
  /** The same store opened again (after `store` was closed): a restart. */
  reopen(): Promise<GatewayStore>;
  /** Another store on the same location with a connection of its own, as another process has. */
  other(): Promise<GatewayStore>;
}

export const LIMITS: PairingLimits = { ttlMs: 3_600_000, perUserIntervalMs: 600_000, maxPendingPerPlatform: 3 };
export const key = (messageId: string, chatId = "c1") => ({ platform: "telegram", chatId, messageId });
export const pairing = (userId: string, code: string, platform = "telegram"): PairingRequest => ({
  platform,
  code,
  userId,
  userName: `user ${userId}`,
  chatId: `dm-${userId}`,
  createdAt: 0,
  expiresAt: 0,
});
export const delivery = (id: string, extra = {}) => ({
  id,
  platform: "slack",
  chatId: "c",
  body: { text: id },
  idempotencyKey: `idem-${id}`,
  ...extra,
});

export function gatewayStoreContract(backend: string, fresh: () => Promise<GatewayStoreFixture>): void {
  test(`${backend}: a redelivered inbound message is refused, also after a restart`, async () => {
    const { store, reopen } = await fresh();
    const first = await store.claimInbound(key("m1"), "agent:main:telegram:dm:c1", { text: "hi" }, 1000);
    assert.equal(first.accepted, true);
    assert.deepEqual(first.record.payload, { text: "hi" });
    assert.equal(first.record.state, "received");
    assert.equal((await store.claimInbound(key("m1"), "agent:main:telegram:dm:c1", { text: "hi" })).accepted, false);
    assert.equal((await store.claimInbound(key("m1", "c2"), "k", {})).accepted, true, "another chat");
    store.close();
    const reopened = await reopen();
    const again = await reopened.claimInbound(key("m1"), "other-session", { text: "changed" });
    assert.equal(again.accepted, false);
    assert.deepEqual(again.record, first.record, "a redelivery reads the stored record, unchanged");
    reopened.close();
  });

  test(`${backend}: attempts count the runs of a message, so one that keeps crashing can be quarantined`, async () => {
    const { store } = await fresh();
    await store.claimInbound(key("m1"), "s", { text: "boom" });
    await store.claimInbound(key("m2"), "s", { text: "fine" });
    assert.equal((await store.startInbound(key("m1"))).attempts, 1);
    const second = await store.startInbound(key("m1"), 5000);
    assert.deepEqual([second.state, second.attempts, second.updatedAt], ["running", 2, 5000]);
    await store.startInbound(key("m2"));
    await store.finishInbound(key("m2"));
    assert.deepEqual(
      (await store.unfinishedInbound()).map((r) => [r.messageId, r.state, r.attempts]),
      [["m1", "running", 2]],
    );
    await store.quarantineInbound(key("m1"), "crashed the gateway twice");
    assert.deepEqual(await store.unfinishedInbound(), []);
    const quarantined = (await store.claimInbound(key("m1"), "s", {})).record;
    assert.deepEqual([quarantined.state, quarantined.error], ["quarantined", "crashed the gateway twice"]);
    const done = (await store.claimInbound(key("m2"), "s", {})).record;
    assert.deepEqual([done.state, done.payload], ["done", null], "a done message drops its payload");
    await assert.rejects(store.startInbound(key("never")), /no inbound message telegram\/c1\/never/);
    store.close();
  });

  test(`${backend}: one inbound message's record can be read back`, async () => {
    const { store } = await fresh();
    assert.equal(await store.inboundRecord(key("m1")), null);
    await store.claimInbound(key("m1"), "s", { text: "hi" }, 1000);
    await store.startInbound(key("m1"), 1001);
    const record = await store.inboundRecord(key("m1"));
    assert.deepEqual(
      [record?.state, record?.attempts, record?.sessionKey, record?.payload],
      ["running", 1, "s", { text: "hi" }],
    );
    assert.equal(await store.inboundRecord({ ...key("m1"), chatId: "c2" }), null, "another chat");
  });

  test(`${backend}: unfinished messages come oldest first, those of one millisecond in the order they came`, async () => {
    const { store } = await fresh();
    for (const id of ["m5", "m1", "m4", "m2", "m3"]) await store.claimInbound(key(id), "s", { id }, 1000);
    await store.claimInbound(key("early"), "s", {}, 500);
    // Rewriting a row (a run starts) must not move it: the order is the one of arrival.
    await store.startInbound(key("m5"), 2000);
    await store.startInbound(key("m1"), 2000);
    assert.deepEqual(
      (await store.unfinishedInbound()).map((r) => r.messageId),
      ["early", "m5", "m1", "m4", "m2", "m3"],
    );
    store.close();
  });

  test(`${backend}: the unfinished messages of one session, oldest first, leave out other sessions and answered ones`, async () => {
    const { store } = await fresh();
    await store.claimInbound(key("a2"), "session-a", {}, 2000);
    await store.claimInbound(key("b1"), "session-b", {}, 1000);
    await store.claimInbound(key("a1"), "session-a", {}, 1000);
    await store.claimInbound(key("a3"), "session-a", {}, 3000);
    await store.claimInbound(key("a0"), "session-a", {}, 500);
    await store.finishInbound(key("a0"), 600);
    await store.startInbound(key("a3"), 3100);
    assert.deepEqual(
      (await store.unfinishedInbound("session-a")).map((r) => [r.messageId, r.sessionKey]),
      [
        ["a1", "session-a"],
        ["a2", "session-a"],
        ["a3", "session-a"],
      ],
    );
    assert.deepEqual(await store.unfinishedInbound("session-c"), []);
    assert.equal((await store.unfinishedInbound()).length, 4);
    store.close();
  });

  test(`${backend}: pruning forgets only done and quarantined messages older than the cut-off`, async () => {
    const { store } = await fresh();
    for (const id of ["old-done", "old-quarantined", "old-running", "new-done"]) {
      await store.claimInbound(key(id), "s", {}, 1000);
    }
    await store.finishInbound(key("old-done"), 1000);
    await store.quarantineInbound(key("old-quarantined"), "bad", 1000);
    await store.startInbound(key("old-running"), 1000);
    await store.finishInbound(key("new-done"), 5000);
    assert.equal(await store.pruneInbound(2000), 2);
    assert.equal(await store.pruneInbound(2000), 0);
    assert.equal((await store.claimInbound(key("old-done"), "s", {})).accepted, true, "forgotten, so new again");
    assert.equal((await store.claimInbound(key("old-running"), "s", {})).accepted, false);
    assert.equal((await store.claimInbound(key("new-done"), "s", {})).accepted, false);
    store.close();
  });

  test(`${backend}: two stores claiming the same messages at once accept each exactly once`, async () => {
    const { store, other } = await fresh();
    const second = await other();
    const ids = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const claims = await Promise.all(
      ids.flatMap((id) =>
        [store, second].map(async (s, n) => ({ id, n, claim: await s.claimInbound(key(id), "s", { n }) })),
      ),
    );
    const winners = claims.filter((c) => c.claim.accepted);
    assert.deepEqual(winners.map((w) => w.id).sort(), [...ids].sort(), "each message accepted exactly once");
    for (const { id, claim } of claims) {
      const winner = winners.find((w) => w.id === id)!;
      assert.deepEqual(claim.record.payload, { n: winner.n }, "the refused claimer reads the winner's record");
    }
    second.close();
    store.close();
  });

  test(`${backend}: a delivery goes pending → sending → sent, keeping its idempotency key and attempts`, async () => {
    const { store } = await fresh();
    const recorded = await store.recordDelivery(
      { id: "d1", platform: "discord", chatId: "c", body: { text: "hello" }, idempotencyKey: "idem-1", replyTo: "m9" },
      5000,
    );
    assert.deepEqual(
      [recorded.state, recorded.attempts, recorded.nextAttemptAt, recorded.createdAt, recorded.possibleDuplicate],
      ["pending", 0, 5000, 5000, false],
    );
    assert.deepEqual([recorded.threadId, recorded.sessionKey, recorded.platformMessageId], [null, null, null]);
    assert.deepEqual(await store.getDelivery("d1"), recorded, "a delivery reads back as it was recorded");
    assert.deepEqual(
      (await store.dueDeliveries(5000, 10)).map((d) => d.id),
      ["d1"],
    );
    assert.deepEqual(await store.dueDeliveries(4999, 10), [], "not due before its time");
    assert.equal((await store.markSending("d1")).attempts, 1);
    assert.deepEqual(await store.dueDeliveries(Date.now(), 10), [], "a delivery being sent is not due");
    await store.markSent("d1", "platform-42");
    const sent = await store.getDelivery("d1");
    assert.deepEqual([sent?.state, sent?.platformMessageId, sent?.replyTo], ["sent", "platform-42", "m9"]);
    assert.equal(sent?.idempotencyKey, "idem-1");
    await assert.rejects(store.markSending("d1"), /already sent/);
    const again = await store.recordDelivery({
      id: "d2",
      platform: "discord",
      chatId: "c",
      body: { text: "hello again" },
      idempotencyKey: "idem-1",
    });
    assert.deepEqual(
      [again.id, again.state, again.body],
      ["d1", "sent", { text: "hello" }],
      "the key's record, as it is",
    );
    assert.equal(await store.getDelivery("d2"), null, "nothing recorded a second time");
    for (const mark of [
      () => store.markSending("nope"),
      () => store.markSent("nope", null),
      () => store.markRetry("nope", "x", 0),
      () => store.markFailed("nope", "x"),
    ]) {
      await assert.rejects(
        mark(),
        (error: unknown) => error instanceof SessionStoreError && /no delivery "nope"/.test(error.message),
      );
    }
    store.close();
  });

  test(`${backend}: a failed attempt waits for its retry time; a delivery given up on is failed, not due`, async () => {
    const { store } = await fresh();
    await store.recordDelivery(delivery("d1", { body: "x" }), 1000);
    await store.recordDelivery(delivery("d2", { body: "y" }), 1001);
    await store.markSending("d1", 1100);
    await store.markRetry("d1", "429 Too Many Requests", 9000, 1200);
    assert.deepEqual(
      (await store.dueDeliveries(2000, 10)).map((d) => d.id),
      ["d2"],
    );
    const due = await store.dueDeliveries(9000, 10);
    assert.deepEqual(
      due.map((d) => [d.id, d.state, d.lastError]),
      [
        ["d1", "pending", "429 Too Many Requests"],
        ["d2", "pending", null],
      ],
    );
    assert.deepEqual(
      (await store.dueDeliveries(9000, 1)).map((d) => d.id),
      ["d1"],
      "the limit keeps the oldest",
    );
    await store.markFailed("d2", "chat not found");
    await assert.rejects(store.markSending("d2"), /already failed/);
    const failed = await store.getDelivery("d2");
    assert.deepEqual([failed?.state, failed?.lastError], ["failed", "chat not found"]);
    assert.deepEqual(
      (await store.dueDeliveries(10_000, 10)).map((d) => d.id),
      ["d1"],
    );
    store.close();
  });

  test(`${backend}: due deliveries of one millisecond come in the order they were recorded`, async () => {
    const { store } = await fresh();
    const ids = ["d-z", "d-a", "d-m", "d-b", "d-y"];
    for (const id of ids) await store.recordDelivery(delivery(id), 1000);
    // A retry rewrites the row; it keeps its place among deliveries recorded at the same time.
    await store.markSending("d-z", 1100);
    await store.markRetry("d-z", "timeout", 1000, 1200);
    assert.deepEqual(
      (await store.dueDeliveries(1000, 10)).map((d) => d.id),
      ids,
    );
    assert.deepEqual(
      (await store.dueDeliveries(1000, 2)).map((d) => d.id),
      ["d-z", "d-a"],
    );
    store.close();
  });

  test(`${backend}: after a crash while sending, the next process re-sends once, flagged as a possible duplicate`, async () => {
    const { store, other } = await fresh();
    await store.recordDelivery(delivery("d1", { body: { text: "final answer" } }), 1000);
    await store.recordDelivery(delivery("d2"), 1001);
    await store.markSending("d1", 1002);
    store.close();
    const restarted = await other();
    assert.equal(await restarted.reconcileDeliveries(5000), 1);
    const due = await restarted.dueDeliveries(5000, 10);
    assert.deepEqual(
      due.map((d) => [d.id, d.state, d.possibleDuplicate, d.attempts, d.nextAttemptAt]),
      [
        ["d1", "pending", true, 1, 5000],
        ["d2", "pending", false, 0, 1001],
      ],
    );
    assert.deepEqual(due[0]?.body, { text: "final answer" });
    assert.equal(await restarted.reconcileDeliveries(6000), 0, "reconciling twice changes nothing");
    restarted.close();
  });

  test(`${backend}: one send in flight can be reclaimed at once, flagged; nothing else is touched`, async () => {
    const { store } = await fresh();
    for (const id of ["left", "other", "done"]) {
      await store.recordDelivery(delivery(id), 1000);
      await store.claimSending(id, 1000);
    }
    await store.markSent("done", "p1", 1100);
    assert.equal(await store.reclaimDelivery("left", 1200), true);
    assert.equal(await store.reclaimDelivery("left", 1300), false, "no longer in flight");
    assert.equal(await store.reclaimDelivery("done", 1300), false, "a sent delivery stays sent");
    assert.equal(await store.reclaimDelivery("missing", 1300), false);
    const left = await store.getDelivery("left");
    assert.deepEqual([left?.state, left?.possibleDuplicate, left?.nextAttemptAt], ["pending", true, 1200]);
    assert.equal((await store.getDelivery("other"))?.state, "sending", "another send in flight is left alone");
    assert.equal((await store.getDelivery("done"))?.state, "sent");
    store.close();
  });

  test(`${backend}: of two senders claiming one due delivery, one gets it; nothing not pending and due is claimed`, async () => {
    const { store, other } = await fresh();
    const second = await other();
    await store.recordDelivery(delivery("d1"), 1000);
    await store.recordDelivery(delivery("later"), 1000);
    await store.markRetry("later", "429", 5000, 1000);
    const claims = await Promise.all([store.claimSending("d1", 2000), second.claimSending("d1", 2000)]);
    assert.equal(claims.filter(Boolean).length, 1, "exactly one claim wins");
    const won = claims.find(Boolean)!;
    assert.equal(won.state, "sending");
    assert.equal(won.attempts, 1);
    assert.equal(await store.claimSending("d1", 2001), null, "already being sent");
    assert.equal(await store.claimSending("later", 4999), null, "not due yet");
    assert.equal((await store.claimSending("later", 5000))?.attempts, 1, "due now");
    await store.markSent("d1", "p1", 2002);
    assert.equal(await second.claimSending("d1", 3000), null, "sent");
    assert.equal(await store.claimSending("missing", 3000), null, "not in the ledger");
    second.close();
  });

  test(`${backend}: taking over sends in flight can leave those that started recently to their sender`, async () => {
    const { store } = await fresh();
    for (const id of ["old", "recent"]) await store.recordDelivery(delivery(id), 1000);
    await store.markSending("old", 1000);
    await store.markSending("recent", 9000);
    assert.equal(await store.reconcileDeliveries(10_000, 5000), 1, "only the one in flight since before 5000");
    assert.equal((await store.getDelivery("old"))?.state, "pending");
    assert.equal((await store.getDelivery("old"))?.possibleDuplicate, true);
    assert.equal((await store.getDelivery("recent"))?.state, "sending");
    assert.equal(await store.reconcileDeliveries(10_001), 1, "without a cut-off, every send in flight");
    assert.equal((await store.getDelivery("recent"))?.state, "pending");
  });

  test(`${backend}: pruning forgets only sent and failed deliveries older than the cut-off`, async () => {
    const { store } = await fresh();
    for (const id of ["sent", "failed", "pending", "sending", "new"]) await store.recordDelivery(delivery(id), 1000);
    await store.markSent("sent", null, 1000);
    await store.markFailed("failed", "x", 1000);
    await store.markSending("sending", 1000);
    await store.markSent("new", "p", 5000);
    assert.equal(await store.pruneDeliveries(2000), 2);
    assert.equal(await store.getDelivery("sent"), null);
    assert.equal(await store.getDelivery("failed"), null);
    for (const id of ["pending", "sending", "new"]) assert.ok(await store.getDelivery(id), id);
    store.close();
  });

  test(`${backend}: recent chats are the chats and threads sent to, newest first, capped; unsent ones are left out`, async () => {
    const { store } = await fresh();
    const sendTo = async (id: string, chatId: string, at: number, extra = {}) => {
      await store.recordDelivery(delivery(id, { chatId, ...extra }), at);
      await store.markSent(id, null, at);
    };
    await sendTo("a1", "alpha", 1000, { sessionKey: "agent:main:slack:dm:alpha" });
    await sendTo("a2", "alpha", 4000);
    await sendTo("t1", "alpha", 2000, { threadId: "th-1" });
    await sendTo("b1", "beta", 3000, { platform: "telegram", sessionKey: "cron:0123456789ab" });
    await store.recordDelivery(delivery("pending", { chatId: "never-sent" }), 9000);
    await store.recordDelivery(delivery("failed", { chatId: "gone" }), 9000);
    await store.markFailed("failed", "chat not found", 9000);
    assert.deepEqual(await store.recentChats(10), [
      { platform: "slack", chatId: "alpha", threadId: null, sessionKey: "agent:main:slack:dm:alpha", lastSentAt: 4000 },
      { platform: "telegram", chatId: "beta", threadId: null, sessionKey: null, lastSentAt: 3000 },
      { platform: "slack", chatId: "alpha", threadId: "th-1", sessionKey: null, lastSentAt: 2000 },
    ]);
    assert.deepEqual(
      (await store.recentChats(2)).map((chat) => chat.chatId),
      ["alpha", "beta"],
    );
    store.close();
  });

  test(`${backend}: pairing: one code per user per interval, at most N pending per platform, codes expire`, async () => {
    const { store } = await fresh();
    const t0 = 1_000_000;
    const first = await store.createPairingRequest(pairing("u1", "ABCD2345"), LIMITS, t0);
    assert.equal(first.created, true);
    assert.equal(first.created && first.request.expiresAt, t0 + LIMITS.ttlMs);
    const soon = await store.createPairingRequest(pairing("u1", "EFGH6789"), LIMITS, t0 + 60_000);
    assert.deepEqual(soon.created ? "created" : [soon.reason, soon.existing?.code], ["too_soon", "ABCD2345"]);
    await store.createPairingRequest(pairing("u2", "JKLM2345"), LIMITS, t0 + 1);
    await store.createPairingRequest(pairing("u3", "NPQR2345"), LIMITS, t0 + 2);
    const full = await store.createPairingRequest(pairing("u4", "STUV2345"), LIMITS, t0 + 3);
    assert.deepEqual(full.created ? "created" : full.reason, "too_many_pending");
    assert.equal((await store.createPairingRequest(pairing("u9", "WXYZ2345", "slack"), LIMITS, t0)).created, true);
    assert.deepEqual(
      (await store.pendingPairingRequests("telegram", t0 + 10)).map((r) => r.code),
      ["NPQR2345", "JKLM2345", "ABCD2345"],
      "newest first",
    );
    assert.equal((await store.pendingPairingRequests(undefined, t0 + 10)).length, 4, "every platform");
    // After the interval, a user's new code replaces the old one.
    const replaced = await store.createPairingRequest(
      pairing("u1", "HJKL6789"),
      { ...LIMITS, maxPendingPerPlatform: 9 },
      t0 + LIMITS.perUserIntervalMs,
    );
    assert.equal(replaced.created, true);
    assert.deepEqual(
      (await store.pendingPairingRequests("telegram", t0 + LIMITS.perUserIntervalMs)).map((r) => r.userId).sort(),
      ["u1", "u2", "u3"],
    );
    // An hour later every code has expired: they neither count nor approve.
    const later = t0 + LIMITS.perUserIntervalMs + LIMITS.ttlMs + 10;
    assert.deepEqual(await store.pendingPairingRequests("telegram", later), []);
    assert.equal(await store.approvePairingCode("telegram", "JKLM2345", {}, later), null);
    assert.equal((await store.createPairingRequest(pairing("u4", "STUV2345"), LIMITS, later)).created, true);
    store.close();
  });

  test(`${backend}: approving a code approves its user once; revoke and clear undo it`, async () => {
    const { store } = await fresh();
    const now = Date.now();
    await store.createPairingRequest(
      {
        platform: "discord",
        code: "WXYZ2345",
        userId: "u1",
        userName: "Ada",
        chatId: "d1",
        createdAt: 0,
        expiresAt: 0,
      },
      LIMITS,
      now,
    );
    const approved = await store.approvePairingCode("discord", "wxyz2345", { admin: true }, now);
    assert.deepEqual(approved, { platform: "discord", userId: "u1", userName: "Ada", admin: true, approvedAt: now });
    assert.equal(await store.approvePairingCode("discord", "WXYZ2345", {}, now), null, "a code works once");
    assert.deepEqual(await store.pendingPairingRequests("discord", now), []);
    assert.deepEqual(await store.approvedUser("discord", "u1"), approved);
    assert.equal(await store.approvedUser("telegram", "u1"), null, "approval is per platform");
    await store.approveUser({ platform: "discord", userId: "u2", userName: null, admin: false }, now + 1);
    const renamed = await store.approveUser(
      { platform: "discord", userId: "u1", userName: "Ada L", admin: false },
      now + 2,
    );
    assert.deepEqual(
      [renamed.userName, renamed.admin, renamed.approvedAt],
      ["Ada L", false, now],
      "approved once, updated",
    );
    await store.approveUser({ platform: "slack", userId: "u3", userName: null, admin: false }, now);
    assert.deepEqual(
      (await store.approvedUsers("discord")).map((u) => u.userId),
      ["u1", "u2"],
    );
    assert.deepEqual(
      (await store.approvedUsers()).map((u) => `${u.platform}/${u.userId}`),
      ["discord/u1", "discord/u2", "slack/u3"],
    );
    assert.equal(await store.revokeUser("discord", "u2"), true);
    assert.equal(await store.revokeUser("discord", "u2"), false);
    await store.createPairingRequest(pairing("u7", "CODE2345", "slack"), LIMITS, now);
    await store.createPairingRequest(pairing("u8", "CODE6789", "discord"), LIMITS, now);
    assert.equal(await store.clearPairing({ platform: "slack" }), 1, "only the slack code");
    assert.equal((await store.approvedUsers("slack")).length, 1, "approved users stay without `approved`");
    assert.equal(await store.clearPairing({ approved: true }), 3, "discord's code, u1 and u3");
    assert.deepEqual(await store.approvedUsers(), []);
    assert.deepEqual(await store.pendingPairingRequests(undefined, now), []);
    store.close();
  });

  test(`${backend}: session routes and home channels are kept per key and per platform`, async () => {
    const { store, reopen } = await fresh();
    const route = { sessionKey: "agent:main:slack:dm:c1", sessionId: "s1", platform: "slack", chatId: "c1" };
    await store.setSessionRoute(route, 1000);
    await store.setSessionRoute({ ...route, sessionId: "s2", chatId: "c9" }, 2000);
    await store.setHomeChannel({ platform: "slack", chatId: "general", threadId: null }, 1000);
    await store.setHomeChannel({ platform: "discord", chatId: "g", threadId: "t1" }, 1000);
    await store.setHomeChannel({ platform: "discord", chatId: "h", threadId: "t2" }, 3000);
    store.close();
    const reopened = await reopen();
    assert.deepEqual(await reopened.sessionRoute(route.sessionKey), {
      ...route,
      sessionId: "s2",
      chatId: "c9",
      updatedAt: 2000,
    });
    assert.equal(await reopened.sessionRoute("agent:main:slack:dm:other"), null);
    assert.deepEqual(await reopened.homeChannel("slack"), {
      platform: "slack",
      chatId: "general",
      threadId: null,
      setAt: 1000,
    });
    assert.deepEqual(await reopened.homeChannel("discord"), {
      platform: "discord",
      chatId: "h",
      threadId: "t2",
      setAt: 3000,
    });
    assert.equal(await reopened.homeChannel("telegram"), null);
    reopened.close();
  });

  test(`${backend}: text with U+0000 and U+FDD0 round-trips through every table`, async () => {
    const { store } = await fresh();
    const odd = "a\u0000b\uFDD0c\uFDD00";
    const inbound = { platform: "telegram", chatId: `chat${odd}`, messageId: `m${odd}` };
    const claim = await store.claimInbound(inbound, `s${odd}`, { text: odd }, 1000);
    assert.equal(claim.accepted, true);
    assert.equal((await store.claimInbound(inbound, "s", {})).accepted, false, "the same key, not a new one");
    await store.startInbound(inbound);
    await store.quarantineInbound(inbound, `err${odd}`);
    const stored = (await store.claimInbound(inbound, "s", {})).record;
    assert.deepEqual(
      [stored.chatId, stored.messageId, stored.sessionKey, stored.payload, stored.error],
      [inbound.chatId, inbound.messageId, `s${odd}`, { text: odd }, `err${odd}`],
    );
    const recorded = await store.recordDelivery(
      delivery(`d${odd}`, {
        chatId: odd,
        threadId: odd,
        replyTo: odd,
        sessionKey: odd,
        body: { text: odd },
        idempotencyKey: odd,
      }),
      1000,
    );
    assert.deepEqual(
      [recorded.id, recorded.chatId, recorded.threadId, recorded.replyTo, recorded.sessionKey, recorded.idempotencyKey],
      [`d${odd}`, odd, odd, odd, odd, odd],
    );
    assert.deepEqual(recorded.body, { text: odd });
    await store.markSending(recorded.id);
    await store.markRetry(recorded.id, `retry${odd}`, 1000);
    const retried = await store.getDelivery(`d${odd}`);
    assert.equal(retried?.lastError, `retry${odd}`);
    assert.deepEqual(await store.dueDeliveries(1000, 1), [retried]);
    await store.markSent(recorded.id, `p${odd}`);
    assert.equal((await store.getDelivery(`d${odd}`))?.platformMessageId, `p${odd}`);
    const request = { ...pairing(`u${odd}`, "ODD23456", `plat${odd}`), userName: odd, chatId: odd };
    assert.equal((await store.createPairingRequest(request, LIMITS, 1000)).created, true);
    assert.deepEqual(await store.pendingPairingRequests(request.platform, 1000), [
      { ...request, createdAt: 1000, expiresAt: 1000 + LIMITS.ttlMs },
    ]);
    const approved = await store.approvePairingCode(request.platform, "odd23456", {}, 1000);
    assert.deepEqual(approved, {
      platform: request.platform,
      userId: request.userId,
      userName: odd,
      admin: false,
      approvedAt: 1000,
    });
    assert.deepEqual(await store.approvedUser(request.platform, request.userId), approved);
    await store.setSessionRoute({ sessionKey: odd, sessionId: odd, platform: odd, chatId: odd }, 1000);
    assert.deepEqual(await store.sessionRoute(odd), {
      sessionKey: odd,
      sessionId: odd,
      platform: odd,
      chatId: odd,
      updatedAt: 1000,
    });
    await store.setHomeChannel({ platform: odd, chatId: odd, threadId: odd }, 1000);
    assert.deepEqual(await store.homeChannel(odd), { platform: odd, chatId: odd, threadId: odd, setAt: 1000 });
    store.close();
  });
}
