import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type ApiServerStore, openApiServerStore } from "../../src/state/api-store.js";
import { openSessionStore } from "../../src/state/session-store.js";
import { SqliteApiServerStore } from "../../src/state/sqlite-api-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { SCHEMA_VERSION } from "../../src/state/sqlite-schema.js";
import { apiStoreContract, claim, HOUR_MS, response } from "./api-store-contract.js";
import { tempDir } from "./temp-dir.js";

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

apiStoreContract("sqlite", async () => {
  const { store, path } = await freshStore();
  return {
    store,
    location: path,
    sessions: () => openSessionStore(path),
    reopen: () => SqliteApiServerStore.open(path),
    other: () => SqliteApiServerStore.open(path),
  };
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
    DROP TABLE cron_jobs; DROP TABLE cron_runs; DROP TABLE cron_leases; DROP TABLE import_marks;
    ALTER TABLE messages DROP COLUMN archived;`);
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
