/** The behaviour every ApiServerStore backend must have; each backend's test file registers it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiRunRecord, ApiServerStore, IdempotencyRecord, StoredResponse } from "../../src/state/api-store.js";
import { type SessionStore, SessionStoreError } from "../../src/state/session-store.js";

export const HOUR_MS = 3_600_000;

export interface ApiStoreFixture {
  store: ApiServerStore;
  /** Where the store is, as its errors name it. */
  location: string;
  /** The session store on the same database. */
  sessions(): Promise<SessionStore>;
  /** The same store opened again (after a restart). */
  reopen(): Promise<ApiServerStore>;
  /** Another store on the same database with a connection of its own, as another process has. */
  other(): Promise<ApiServerStore>;
}

export function response(overrides: Partial<StoredResponse> = {}): StoredResponse {
  return {
    id: "resp_1",
    namespace: "key-a",
    sessionId: "20250101_000000_aaaaaa",
    messageCount: 2,
    previousResponseId: null,
    conversation: null,
    body: { id: "resp_1", object: "response", output: [{ type: "message", content: [{ text: "hi ✓" }] }] },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function run(overrides: Partial<ApiRunRecord> = {}): ApiRunRecord {
  return {
    id: "run_1",
    namespace: "key-a",
    status: "queued",
    sessionId: null,
    input: { input: "hello", instructions: null, tools: [{ type: "function", name: "x" }] },
    output: null,
    error: null,
    usage: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function claim(overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return { namespace: "key-a", key: "idem-1", bodyHash: "hash-1", runId: "run_1", createdAt: Date.now(), ...overrides };
}

export function apiStoreContract(backend: string, fresh: () => Promise<ApiStoreFixture>): void {
  test(`${backend}: no read returns another namespace's responses, conversations, runs, keys or sessions`, async () => {
    const { store, sessions: openSessions } = await fresh();
    await store.saveResponse(response({ conversation: "chat" }));
    await store.createRun(run());
    await store.setSessionOwner("s-a", "key-a");
    const sessions = await openSessions();
    await sessions.createSession({ id: "s-a" });

    assert.equal(await store.getResponse("key-b", "resp_1"), null);
    assert.equal(await store.latestInConversation("key-b", "chat"), null);
    assert.equal(await store.getRun("key-b", "run_1"), null);
    assert.deepEqual(await store.sessionsOwnedBy("key-b"), []);
    assert.equal(await store.deleteResponse("key-b", "resp_1"), false, "another key cannot delete it");
    // The same idempotency key in another namespace is a different key.
    assert.deepEqual(await store.claimIdempotencyKey(claim({ namespace: "key-a" }), HOUR_MS), { claimed: true });
    assert.deepEqual(await store.claimIdempotencyKey(claim({ namespace: "key-b" }), HOUR_MS), { claimed: true });

    // The owner still sees all of it.
    assert.equal((await store.getResponse("key-a", "resp_1"))?.id, "resp_1");
    assert.equal((await store.latestInConversation("key-a", "chat"))?.id, "resp_1");
    assert.equal((await store.getRun("key-a", "run_1"))?.id, "run_1");
    assert.deepEqual(await store.sessionsOwnedBy("key-a"), ["s-a"]);
    sessions.close();
    store.close();
  });

  test(`${backend}: a response id saved by one namespace cannot be overwritten by another`, async () => {
    const { store, location } = await fresh();
    await store.saveResponse(response());
    await assert.rejects(store.saveResponse(response({ namespace: "key-b", body: { stolen: true } })), (error) => {
      assert.ok(error instanceof SessionStoreError);
      assert.match(error.message, /resp_1/);
      assert.equal(error.location, location);
      return true;
    });
    assert.deepEqual((await store.getResponse("key-a", "resp_1"))?.body, response().body);
    assert.equal(await store.getResponse("key-b", "resp_1"), null);
    store.close();
  });

  test(`${backend}: a response round-trips every field and its JSON body; saving it again updates it`, async () => {
    const { store } = await fresh();
    const saved = response({ previousResponseId: "resp_0", conversation: "chat", messageCount: 7 });
    await store.saveResponse(saved);
    assert.deepEqual(await store.getResponse("key-a", "resp_1"), saved);

    const completed = { ...saved, messageCount: 9, body: { id: "resp_1", status: "completed" } };
    await store.saveResponse(completed);
    assert.deepEqual(await store.getResponse("key-a", "resp_1"), completed);
    assert.equal(await store.getResponse("key-a", "resp_missing"), null);
    store.close();
  });

  test(`${backend}: deleting a response removes only that one and says whether it existed`, async () => {
    const { store } = await fresh();
    await store.saveResponse(response({ id: "resp_1" }));
    await store.saveResponse(response({ id: "resp_2" }));
    assert.equal(await store.deleteResponse("key-a", "resp_1"), true);
    assert.equal(await store.deleteResponse("key-a", "resp_1"), false);
    assert.equal(await store.getResponse("key-a", "resp_1"), null);
    assert.equal((await store.getResponse("key-a", "resp_2"))?.id, "resp_2");
    store.close();
  });

  test(`${backend}: the latest response of a conversation is the newest one, not the last saved`, async () => {
    const { store } = await fresh();
    await store.saveResponse(response({ id: "resp_new", conversation: "chat", createdAt: 3_000 }));
    await store.saveResponse(response({ id: "resp_old", conversation: "chat", createdAt: 1_000 }));
    await store.saveResponse(response({ id: "resp_mid", conversation: "chat", createdAt: 2_000 }));
    await store.saveResponse(response({ id: "resp_other", conversation: "other", createdAt: 9_000 }));
    await store.saveResponse(response({ id: "resp_none", conversation: null, createdAt: 9_000 }));
    assert.equal((await store.latestInConversation("key-a", "chat"))?.id, "resp_new");
    assert.equal((await store.latestInConversation("key-a", "other"))?.id, "resp_other");
    assert.equal(await store.latestInConversation("key-a", "unknown"), null);

    // Two responses in the same millisecond: the one saved last is the latest.
    await store.saveResponse(response({ id: "resp_tie", conversation: "chat", createdAt: 3_000 }));
    assert.equal((await store.latestInConversation("key-a", "chat"))?.id, "resp_tie");
    store.close();
  });

  test(`${backend}: saving a response again keeps its place among those of the same millisecond`, async () => {
    const { store } = await fresh();
    await store.saveResponse(response({ id: "resp_a", conversation: "c", createdAt: 5 }));
    await store.saveResponse(response({ id: "resp_b", conversation: "c", createdAt: 5 }));
    await store.saveResponse(response({ id: "resp_a", conversation: "c", createdAt: 5, messageCount: 4 }));
    assert.equal((await store.latestInConversation("key-a", "c"))?.id, "resp_b", "the one first saved last");
    store.close();
  });

  test(`${backend}: a run round-trips its JSON input and usage, and a null usage stays null`, async () => {
    const { store } = await fresh();
    const queued = run();
    await store.createRun(queued);
    const stored = await store.getRun("key-a", "run_1");
    assert.deepEqual(stored, queued);
    assert.equal(stored?.usage, null);

    const finished = run({
      id: "run_2",
      status: "completed",
      sessionId: "s1",
      output: "done",
      usage: { input_tokens: 12, output_tokens: 3, details: { cached: 0 } },
    });
    await store.createRun(finished);
    assert.deepEqual(await store.getRun("key-a", "run_2"), finished);
    store.close();
  });

  test(`${backend}: updating a run changes only the patched fields, stamps updatedAt and returns the record`, async () => {
    const { store } = await fresh();
    await store.createRun(run({ sessionId: "s1" }));
    const before = Date.now();
    const running = await store.updateRun("run_1", { status: "running" });
    assert.equal(running.status, "running");
    assert.equal(running.sessionId, "s1", "fields not in the patch are kept");
    assert.ok(running.updatedAt >= before);
    assert.equal(running.createdAt, 1_700_000_000_000);

    const usage = { input_tokens: 5, output_tokens: 2 };
    const done = await store.updateRun("run_1", { status: "completed", output: "answer", usage, sessionId: null });
    assert.deepEqual(done, {
      ...running,
      status: "completed",
      output: "answer",
      usage,
      sessionId: null,
      updatedAt: done.updatedAt,
    });
    assert.deepEqual(await store.getRun("key-a", "run_1"), done);

    const errored = await store.updateRun("run_1", { error: "late failure" });
    assert.equal(errored.output, "answer", "an output not in the patch is kept");
    assert.deepEqual(errored.usage, usage, "a usage not in the patch is kept");
    const failed = await store.updateRun("run_1", { status: "failed" });
    assert.equal(failed.error, "late failure", "an error not in the patch is kept");
    const cleared = await store.updateRun("run_1", { usage: null });
    assert.equal(cleared.usage, null);
    assert.equal(cleared.error, "late failure");
    store.close();
  });

  test(`${backend}: listing runs: newest first, filtered by session and status, paged, never another namespace's`, async () => {
    const { store } = await fresh();
    const at = (minutes: number) => 1_700_000_000_000 + minutes * 60_000;
    await store.createRun(run({ id: "run_old", sessionId: "s1", status: "completed", createdAt: at(1) }));
    await store.createRun(run({ id: "run_mid", sessionId: "s2", status: "failed", createdAt: at(2) }));
    await store.createRun(run({ id: "run_new", sessionId: "s1", status: "running", createdAt: at(3) }));
    await store.createRun(run({ id: "run_b", namespace: "key-b", sessionId: "s1", createdAt: at(4) }));
    const ids = async (options: Partial<Parameters<ApiServerStore["listRuns"]>[1]>) =>
      (await store.listRuns("key-a", { limit: 10, offset: 0, ...options })).map((r) => r.id);

    assert.deepEqual(await ids({}), ["run_new", "run_mid", "run_old"]);
    assert.deepEqual(await ids({ sessionId: "s1" }), ["run_new", "run_old"]);
    assert.deepEqual(await ids({ status: "failed" }), ["run_mid"]);
    assert.deepEqual(await ids({ sessionId: "s1", status: "completed" }), ["run_old"]);
    assert.deepEqual(await ids({ limit: 2 }), ["run_new", "run_mid"]);
    assert.deepEqual(await ids({ limit: 2, offset: 2 }), ["run_old"]);
    assert.deepEqual(await ids({ sessionId: "nope" }), []);
    assert.deepEqual(
      (await store.listRuns("key-b", { limit: 10, offset: 0 })).map((r) => r.id),
      ["run_b"],
      "another key sees only its own",
    );
    const [listed] = await store.listRuns("key-a", { limit: 1, offset: 0 });
    assert.deepEqual(listed, await store.getRun("key-a", "run_new"), "a listed run is the whole record");
    store.close();
  });

  test(`${backend}: updating a run that does not exist throws an error naming it`, async () => {
    const { store } = await fresh();
    await assert.rejects(store.updateRun("run_missing", { status: "running" }), /run_missing/);
    store.close();
  });

  test(`${backend}: a duplicate run id is reported as a store error naming the database`, async () => {
    const { store, location } = await fresh();
    await store.createRun(run());
    await assert.rejects(store.createRun(run()), (error) => {
      assert.ok(error instanceof SessionStoreError);
      assert.ok(error.message.includes(location), error.message);
      return true;
    });
    store.close();
  });

  test(`${backend}: after a restart, queued and running runs become interrupted with the error; finished ones are kept`, async () => {
    const { store, reopen } = await fresh();
    await store.createRun(run({ id: "run_q", status: "queued" }));
    await store.createRun(run({ id: "run_r", status: "running", namespace: "key-b" }));
    await store.createRun(run({ id: "run_c", status: "completed", output: "ok" }));
    await store.createRun(run({ id: "run_f", status: "failed", error: "boom" }));
    await store.createRun(run({ id: "run_x", status: "cancelled" }));
    store.close();

    const restarted = await reopen();
    const before = Date.now();
    assert.equal(await restarted.interruptUnfinishedRuns("the server restarted"), 2);
    for (const [namespace, id] of [
      ["key-a", "run_q"],
      ["key-b", "run_r"],
    ] as const) {
      const interrupted = await restarted.getRun(namespace, id);
      assert.equal(interrupted?.status, "interrupted");
      assert.equal(interrupted?.error, "the server restarted");
      assert.ok((interrupted?.updatedAt ?? 0) >= before);
    }
    assert.equal((await restarted.getRun("key-a", "run_c"))?.status, "completed");
    assert.equal((await restarted.getRun("key-a", "run_f"))?.error, "boom");
    assert.equal((await restarted.getRun("key-a", "run_x"))?.status, "cancelled");
    assert.equal(await restarted.interruptUnfinishedRuns("again"), 0);
    restarted.close();
  });

  test(`${backend}: an idempotency key is claimed once; a repeat within the TTL gets the first claim back`, async () => {
    const { store } = await fresh();
    const first = claim();
    assert.deepEqual(await store.claimIdempotencyKey(first, HOUR_MS), { claimed: true });
    const replay = await store.claimIdempotencyKey(
      claim({ bodyHash: "hash-2", runId: "run_2", createdAt: first.createdAt + 1000 }),
      HOUR_MS,
    );
    assert.deepEqual(replay, { claimed: false, existing: first });
    store.close();
  });

  test(`${backend}: an expired idempotency key is replaced by the new claim`, async () => {
    const { store } = await fresh();
    const old = claim({ createdAt: 1_000_000 });
    assert.deepEqual(await store.claimIdempotencyKey(old, HOUR_MS), { claimed: true });
    // Exactly at the TTL the key is still held; one millisecond later it has expired.
    const atLimit = claim({ runId: "run_2", createdAt: old.createdAt + HOUR_MS });
    assert.deepEqual(await store.claimIdempotencyKey(atLimit, HOUR_MS), { claimed: false, existing: old });
    const renewed = claim({ bodyHash: "hash-3", runId: "run_3", createdAt: old.createdAt + HOUR_MS + 1 });
    assert.deepEqual(await store.claimIdempotencyKey(renewed, HOUR_MS), { claimed: true });
    // The replacement now holds the key.
    const replay = await store.claimIdempotencyKey(
      claim({ runId: "run_4", createdAt: renewed.createdAt + 1 }),
      HOUR_MS,
    );
    assert.deepEqual(replay, { claimed: false, existing: renewed });
    store.close();
  });

  test(`${backend}: two connections claiming the same key at once: exactly one wins, and one run is made`, async () => {
    const { store, other } = await fresh();
    const second = await other();
    const now = Date.now();
    // As the server does: the claim that wins creates its run; every other one answers with the winner's.
    const claims = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const s = i % 2 === 0 ? store : second;
        const result = await s.claimIdempotencyKey(claim({ runId: `run_${i}`, createdAt: now }), HOUR_MS);
        if (result.claimed) await s.createRun(run({ id: `run_${i}` }));
        return result;
      }),
    );
    const winners = claims.flatMap((c, i) => (c.claimed ? [`run_${i}`] : []));
    assert.equal(winners.length, 1);
    const runIds = new Set(claims.flatMap((c) => (c.claimed ? [] : [c.existing.runId])));
    assert.deepEqual([...runIds], winners, "every loser sees the winning claim");
    const made = [];
    for (let i = 0; i < 20; i++) if (await store.getRun("key-a", `run_${i}`)) made.push(`run_${i}`);
    assert.deepEqual(made, winners, "one run");
    second.close();
    store.close();
  });

  test(`${backend}: text with U+0000 and U+FDD0 round-trips in every field`, async () => {
    const { store } = await fresh();
    const odd = "a\u0000b\uFDD0c\uFDD00";
    const saved = response({ id: `resp_${odd}`, namespace: odd, conversation: odd, body: { text: odd } });
    await store.saveResponse(saved);
    assert.deepEqual(await store.getResponse(odd, saved.id), saved);
    assert.deepEqual(await store.latestInConversation(odd, odd), saved);
    assert.equal(await store.getResponse("a", saved.id), null);
    const made = run({ id: `run_${odd}`, namespace: odd, input: { input: odd }, error: odd, output: odd });
    await store.createRun(made);
    assert.deepEqual(await store.getRun(odd, made.id), made);
    assert.equal((await store.updateRun(made.id, { output: `${odd}!` })).output, `${odd}!`);
    const first = claim({ namespace: odd, key: odd, runId: made.id });
    assert.deepEqual(await store.claimIdempotencyKey(first, HOUR_MS), { claimed: true });
    assert.deepEqual(await store.claimIdempotencyKey(claim({ namespace: odd, key: odd }), HOUR_MS), {
      claimed: false,
      existing: first,
    });
    await store.setSessionOwner(odd, odd);
    assert.equal(await store.sessionOwner(odd), odd);
    assert.equal(await store.deleteResponse(odd, saved.id), true);
    store.close();
  });

  test(`${backend}: a claimed idempotency key survives closing and reopening the store`, async () => {
    const { store, reopen } = await fresh();
    const first = claim();
    assert.deepEqual(await store.claimIdempotencyKey(first, HOUR_MS), { claimed: true });
    store.close();

    const reopened = await reopen();
    assert.deepEqual(await reopened.claimIdempotencyKey(claim({ runId: "run_2" }), HOUR_MS), {
      claimed: false,
      existing: first,
    });
    reopened.close();
  });

  test(`${backend}: pruning idempotency keys deletes those created before the cutoff, in every namespace`, async () => {
    const { store } = await fresh();
    await store.claimIdempotencyKey(claim({ key: "old-a", createdAt: 1_000 }), HOUR_MS);
    await store.claimIdempotencyKey(claim({ key: "old-b", namespace: "key-b", createdAt: 1_999 }), HOUR_MS);
    await store.claimIdempotencyKey(claim({ key: "edge", createdAt: 2_000 }), HOUR_MS);
    await store.claimIdempotencyKey(claim({ key: "new", createdAt: 5_000 }), HOUR_MS);
    assert.equal(await store.pruneIdempotencyKeys(2_000), 2);
    // A pruned key can be claimed again at once, whatever the TTL; a kept one cannot.
    assert.deepEqual(await store.claimIdempotencyKey(claim({ key: "old-a", createdAt: 1_000 }), HOUR_MS), {
      claimed: true,
    });
    assert.equal((await store.claimIdempotencyKey(claim({ key: "edge", createdAt: 2_000 }), HOUR_MS)).claimed, false);
    assert.equal(await store.pruneIdempotencyKeys(0), 0);
    store.close();
  });

  test(`${backend}: a session's owner is the namespace that set it, and null for sessions not made through the API`, async () => {
    const { store } = await fresh();
    await store.setSessionOwner("s1", "key-a");
    assert.equal(await store.sessionOwner("s1"), "key-a");
    assert.equal(await store.sessionOwner("s-cli"), null);
    store.close();
  });

  test(`${backend}: sessions owned by a namespace come most recently active first, skipping deleted ones`, async () => {
    const { store, sessions: openSessions } = await fresh();
    const sessions = await openSessions();
    await sessions.createSession({ id: "s-old", startedAt: 1_000 });
    await sessions.createSession({ id: "s-mid", startedAt: 2_000 });
    await sessions.createSession({ id: "s-new", startedAt: 3_000 });
    await sessions.createSession({ id: "s-gone", startedAt: 4_000 });
    await sessions.createSession({ id: "s-other", startedAt: 5_000 });
    await sessions.createSession({ id: "s-cli", startedAt: 6_000 });
    for (const id of ["s-mid", "s-old", "s-new", "s-gone"]) await store.setSessionOwner(id, "key-a");
    await store.setSessionOwner("s-other", "key-b");
    await store.setSessionOwner("s-never-created", "key-a");

    assert.deepEqual(await store.sessionsOwnedBy("key-a"), ["s-gone", "s-new", "s-mid", "s-old"]);
    assert.equal(await sessions.deleteSession("s-gone"), true);
    // A new message makes the oldest session the most recently active.
    await sessions.appendMessage("s-old", { role: "user", content: "back again" });
    assert.deepEqual(await store.sessionsOwnedBy("key-a"), ["s-old", "s-new", "s-mid"]);
    assert.deepEqual(await store.sessionsOwnedBy("key-a", { limit: 2 }), ["s-old", "s-new"]);
    assert.deepEqual(await store.sessionsOwnedBy("key-a", { limit: 2, offset: 2 }), ["s-mid"]);
    assert.deepEqual(await store.sessionsOwnedBy("key-a", { offset: 1 }), ["s-new", "s-mid"]);
    assert.deepEqual(await store.sessionsOwnedBy("key-a", { limit: 0 }), []);
    for (const limit of [Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.deepEqual(
        await store.sessionsOwnedBy("key-a", { limit }),
        ["s-old", "s-new", "s-mid"],
        `a limit of ${limit} means no limit`,
      );
    }
    assert.deepEqual(await store.sessionsOwnedBy("key-b"), ["s-other"]);
    sessions.close();
    store.close();
  });
}
