import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  type ApiRunRecord,
  type ApiServerStore,
  type IdempotencyRecord,
  openApiServerStore,
  type StoredResponse,
} from "../../src/state/api-store.js";
import { openSessionStore, SessionStoreError } from "../../src/state/session-store.js";
import { SqliteApiServerStore } from "../../src/state/sqlite-api-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SCHEMA_VERSION } from "../../src/state/sqlite-schema.js";
import { tempDir } from "./temp-dir.js";

const HOUR_MS = 3_600_000;
const STORE_MODULE = pathToFileURL(join(import.meta.dirname, "..", "..", "src", "state", "sqlite-api-store.ts")).href;

/**
 * A child process that opens the store, says "ready", waits for "go" on stdin, then claims keys
 * key-0..key-(n-1) one by one, upward or downward, and prints the indexes it won.
 */
const CLAIM_WORKER = `
const [moduleUrl, path, label, n, direction] = process.argv.slice(1);
const { SqliteApiServerStore } = await import(moduleUrl);
const store = await SqliteApiServerStore.open(path);
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.destroy();
const won = [];
for (let step = 0; step < Number(n); step++) {
  const i = direction === "up" ? step : Number(n) - 1 - step;
  const record = { namespace: "key-a", key: "key-" + i, bodyHash: "h", runId: label + "-" + i, createdAt: Date.now() };
  if ((await store.claimIdempotencyKey(record, 3_600_000)).claimed) won.push(i);
}
store.close();
process.stdout.write(JSON.stringify(won) + "\\n");
`;

interface ClaimWorker {
  ready: Promise<void>;
  go(): void;
  won: Promise<number[]>;
}

function claimWorker(path: string, label: string, n: number, direction: "up" | "down"): ClaimWorker {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", CLAIM_WORKER, STORE_MODULE, path, label, String(n), direction],
    { stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
    if (stdout.startsWith("ready\n")) markReady();
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const won = new Promise<number[]>((resolve, reject) =>
    child.on("exit", (code) => {
      markReady();
      if (code === 0) resolve(JSON.parse(stdout.slice("ready\n".length)) as number[]);
      else reject(new Error(`claim worker ${label} exited with ${code}: ${stderr}`));
    }),
  );
  return { ready, go: () => child.stdin.end("go\n"), won };
}

async function freshStore(): Promise<{ store: ApiServerStore; path: string }> {
  const path = join(tempDir(), "state.db");
  return { store: await openApiServerStore(path), path };
}

function response(overrides: Partial<StoredResponse> = {}): StoredResponse {
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

function run(overrides: Partial<ApiRunRecord> = {}): ApiRunRecord {
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

function claim(overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return { namespace: "key-a", key: "idem-1", bodyHash: "hash-1", runId: "run_1", createdAt: Date.now(), ...overrides };
}

test("no read returns another namespace's responses, conversations, runs, keys or sessions", async () => {
  const { store, path } = await freshStore();
  await store.saveResponse(response({ conversation: "chat" }));
  await store.createRun(run());
  await store.setSessionOwner("s-a", "key-a");
  const sessions = await openSessionStore(path);
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

test("a response id saved by one namespace cannot be overwritten by another", async () => {
  const { store, path } = await freshStore();
  await store.saveResponse(response());
  await assert.rejects(store.saveResponse(response({ namespace: "key-b", body: { stolen: true } })), (error) => {
    assert.ok(error instanceof SessionStoreError);
    assert.match(error.message, /resp_1/);
    assert.equal(error.location, path);
    return true;
  });
  assert.deepEqual((await store.getResponse("key-a", "resp_1"))?.body, response().body);
  assert.equal(await store.getResponse("key-b", "resp_1"), null);
  store.close();
});

test("a response round-trips every field and its JSON body; saving it again updates it", async () => {
  const { store } = await freshStore();
  const saved = response({ previousResponseId: "resp_0", conversation: "chat", messageCount: 7 });
  await store.saveResponse(saved);
  assert.deepEqual(await store.getResponse("key-a", "resp_1"), saved);

  const completed = { ...saved, messageCount: 9, body: { id: "resp_1", status: "completed" } };
  await store.saveResponse(completed);
  assert.deepEqual(await store.getResponse("key-a", "resp_1"), completed);
  assert.equal(await store.getResponse("key-a", "resp_missing"), null);
  store.close();
});

test("deleting a response removes only that one and says whether it existed", async () => {
  const { store } = await freshStore();
  await store.saveResponse(response({ id: "resp_1" }));
  await store.saveResponse(response({ id: "resp_2" }));
  assert.equal(await store.deleteResponse("key-a", "resp_1"), true);
  assert.equal(await store.deleteResponse("key-a", "resp_1"), false);
  assert.equal(await store.getResponse("key-a", "resp_1"), null);
  assert.equal((await store.getResponse("key-a", "resp_2"))?.id, "resp_2");
  store.close();
});

test("the latest response of a conversation is the newest one, not the last saved", async () => {
  const { store } = await freshStore();
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

test("a run round-trips its JSON input and usage, and a null usage stays null", async () => {
  const { store } = await freshStore();
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

test("updating a run changes only the patched fields, stamps updatedAt and returns the record", async () => {
  const { store } = await freshStore();
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

  const cleared = await store.updateRun("run_1", { usage: null, error: "late failure" });
  assert.equal(cleared.usage, null);
  assert.equal(cleared.error, "late failure");
  store.close();
});

test("updating a run that does not exist throws an error naming it", async () => {
  const { store } = await freshStore();
  await assert.rejects(store.updateRun("run_missing", { status: "running" }), /run_missing/);
  store.close();
});

test("a duplicate run id is reported as a store error naming the file", async () => {
  const { store, path } = await freshStore();
  await store.createRun(run());
  await assert.rejects(store.createRun(run()), (error) => {
    assert.ok(error instanceof SessionStoreError);
    assert.ok(error.message.includes(path));
    return true;
  });
  store.close();
});

test("after a restart, queued and running runs become interrupted with the error; finished ones are kept", async () => {
  const { store, path } = await freshStore();
  await store.createRun(run({ id: "run_q", status: "queued" }));
  await store.createRun(run({ id: "run_r", status: "running", namespace: "key-b" }));
  await store.createRun(run({ id: "run_c", status: "completed", output: "ok" }));
  await store.createRun(run({ id: "run_f", status: "failed", error: "boom" }));
  await store.createRun(run({ id: "run_x", status: "cancelled" }));
  store.close();

  const restarted = await SqliteApiServerStore.open(path);
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

test("an idempotency key is claimed once; a repeat within the TTL gets the first claim back", async () => {
  const { store } = await freshStore();
  const first = claim();
  assert.deepEqual(await store.claimIdempotencyKey(first, HOUR_MS), { claimed: true });
  const replay = await store.claimIdempotencyKey(
    claim({ bodyHash: "hash-2", runId: "run_2", createdAt: first.createdAt + 1000 }),
    HOUR_MS,
  );
  assert.deepEqual(replay, { claimed: false, existing: first });
  store.close();
});

test("an expired idempotency key is replaced by the new claim", async () => {
  const { store } = await freshStore();
  const old = claim({ createdAt: 1_000_000 });
  assert.deepEqual(await store.claimIdempotencyKey(old, HOUR_MS), { claimed: true });
  // Exactly at the TTL the key is still held; one millisecond later it has expired.
  const atLimit = claim({ runId: "run_2", createdAt: old.createdAt + HOUR_MS });
  assert.deepEqual(await store.claimIdempotencyKey(atLimit, HOUR_MS), { claimed: false, existing: old });
  const fresh = claim({ bodyHash: "hash-3", runId: "run_3", createdAt: old.createdAt + HOUR_MS + 1 });
  assert.deepEqual(await store.claimIdempotencyKey(fresh, HOUR_MS), { claimed: true });
  // The replacement now holds the key.
  const replay = await store.claimIdempotencyKey(claim({ runId: "run_4", createdAt: fresh.createdAt + 1 }), HOUR_MS);
  assert.deepEqual(replay, { claimed: false, existing: fresh });
  store.close();
});

test("two connections claiming the same key at once: exactly one wins", async () => {
  const { store, path } = await freshStore();
  const other = await SqliteApiServerStore.open(path);
  const now = Date.now();
  const claims = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      (i % 2 === 0 ? store : other).claimIdempotencyKey(claim({ runId: `run_${i}`, createdAt: now }), HOUR_MS),
    ),
  );
  const winners = claims.filter((c) => c.claimed);
  assert.equal(winners.length, 1);
  const runIds = new Set(claims.flatMap((c) => (c.claimed ? [] : [c.existing.runId])));
  assert.equal(runIds.size, 1, "every loser sees the same winning claim");
  other.close();
  store.close();
});

test("two processes claiming the same keys at once: each key goes to exactly one of them", {
  timeout: 60_000,
}, async () => {
  const { store, path } = await freshStore();
  const n = 300;
  // Opposite directions, so each process reaches keys the other is about to claim.
  const workers = [claimWorker(path, "A", n, "up"), claimWorker(path, "B", n, "down")];
  await Promise.all(workers.map((w) => w.ready));
  for (const worker of workers) worker.go();
  const [a, b] = await Promise.all(workers.map((w) => w.won));
  assert.deepEqual(
    [...a!, ...b!].sort((x, y) => x - y),
    Array.from({ length: n }, (_, i) => i),
    "no key was won twice or by nobody",
  );
  // Each key holds the run of the process that won it.
  for (const [label, won] of [
    ["A", a!],
    ["B", b!],
  ] as const) {
    for (const i of won.slice(0, 20)) {
      const held = await store.claimIdempotencyKey(claim({ key: `key-${i}` }), HOUR_MS);
      assert.equal(held.claimed ? null : held.existing.runId, `${label}-${i}`);
    }
  }
  store.close();
});

test("a claimed idempotency key survives closing and reopening the store", async () => {
  const { store, path } = await freshStore();
  const first = claim();
  assert.deepEqual(await store.claimIdempotencyKey(first, HOUR_MS), { claimed: true });
  store.close();

  const reopened = await openApiServerStore(path);
  assert.deepEqual(await reopened.claimIdempotencyKey(claim({ runId: "run_2" }), HOUR_MS), {
    claimed: false,
    existing: first,
  });
  reopened.close();
});

test("pruning idempotency keys deletes those created before the cutoff, in every namespace", async () => {
  const { store } = await freshStore();
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

test("a session's owner is the namespace that set it, and null for sessions not made through the API", async () => {
  const { store } = await freshStore();
  await store.setSessionOwner("s1", "key-a");
  assert.equal(await store.sessionOwner("s1"), "key-a");
  assert.equal(await store.sessionOwner("s-cli"), null);
  store.close();
});

test("sessions owned by a namespace come most recently active first, skipping deleted ones", async () => {
  const { store, path } = await freshStore();
  const sessions = await openSessionStore(path);
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
  assert.deepEqual(await store.sessionsOwnedBy("key-b"), ["s-other"]);
  sessions.close();
  store.close();
});

test("a version-2 state.db upgrades to the API tables and keeps its sessions and messages", async () => {
  const path = join(tempDir(), "state.db");
  // A database as the session store wrote it before the API tables existed.
  const sessions = await openSessionStore(path);
  await sessions.createSession({ id: "s-kept", title: "Kept chat", startedAt: 1_000 });
  await sessions.appendMessage("s-kept", { role: "user", content: "remember the zeppelin" });
  sessions.close();
  const raw = openSqliteDatabase(path);
  raw.exec(`DROP TABLE api_responses; DROP TABLE api_runs; DROP TABLE api_idempotency_keys;
    DROP TABLE api_session_owners; DELETE FROM schema_version WHERE version > 2;
    DROP TABLE gateway_inbound; DROP TABLE gateway_deliveries; DROP TABLE gateway_pairing_requests;
    DROP TABLE gateway_approved_users; DROP TABLE gateway_session_routes; DROP TABLE gateway_home_channels;
    DROP TABLE cron_jobs; DROP TABLE cron_runs; DROP TABLE cron_leases; DROP TABLE import_marks;`);
  assert.equal(raw.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'api_%'").pluck().get(), 0);
  raw.close();

  const store = await SqliteApiServerStore.open(path);
  await store.setSessionOwner("s-kept", "key-a");
  await store.saveResponse(response({ sessionId: "s-kept", conversation: "chat" }));
  assert.deepEqual(await store.sessionsOwnedBy("key-a"), ["s-kept"]);
  assert.equal((await store.latestInConversation("key-a", "chat"))?.sessionId, "s-kept");
  store.close();

  const check = openSqliteDatabase(path, { readonly: true });
  assert.deepEqual(
    check.prepare("SELECT version FROM schema_version ORDER BY version").pluck().all(),
    Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
  );
  assert.equal(check.pragma("integrity_check", { simple: true }), "ok");
  check.close();

  const reopened = await openSessionStore(path);
  assert.equal((await reopened.getSession("s-kept"))?.title, "Kept chat");
  assert.deepEqual(await reopened.getMessages("s-kept"), [{ role: "user", content: "remember the zeppelin" }]);
  assert.equal((await reopened.search("zeppelin")).length, 1);
  reopened.close();
});
