import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  AuthStoreError,
  loadAuthStore,
  mergeFromDisk,
  persistPoolEntries,
  saveAuthStore,
  updateAuthStore,
} from "../../src/state/auth-store.js";
import type { CredentialRecord } from "../../src/util/credential-record.js";
import { credentialRecord } from "../llm/credential-records.js";

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

function tempStore(): string {
  const home = mkdtempSync(join(tmpdir(), "hermes-auth-"));
  return join(home, "auth.json");
}

const record = (id: string, extra: Partial<CredentialRecord> = {}) => credentialRecord(id, 0, extra);

test("a missing auth.json loads as an empty store", () => {
  assert.deepEqual(loadAuthStore(tempStore()), { version: 1, credentialPool: {} });
});

test("round trip keeps records and unknown sections, and the file is mode 0600", async () => {
  const path = tempStore();
  const data = {
    version: 1,
    credentialPool: { openrouter: [record("a", { refreshToken: "r1", lastStatus: "exhausted", lastErrorCode: 429 })] },
    providers: { nous: { note: "kept as is" } },
  };
  await saveAuthStore(path, data);
  assert.deepEqual(loadAuthStore(path), data);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test("records missing optional fields get defaults on load", () => {
  const path = tempStore();
  writeFileSync(path, JSON.stringify({ credentialPool: { p: [{ id: "x", accessToken: "sk" }] } }));
  const [loaded] = loadAuthStore(path).credentialPool.p ?? [];
  assert.equal(loaded?.label, "x");
  assert.equal(loaded?.lastStatus, null);
  assert.equal(loaded?.requestCount, 0);
  assert.equal(loaded?.source, "manual");
});

test("a corrupt auth.json is reported with its path and never overwritten", async () => {
  const path = tempStore();
  const garbage = '{"credentialPool": {"p": [ {"id": "a", ';
  writeFileSync(path, garbage);
  assert.throws(
    () => loadAuthStore(path),
    (error: Error) => error instanceof AuthStoreError && error.message.includes(path),
  );
  await assert.rejects(saveAuthStore(path, { version: 1, credentialPool: {} }), AuthStoreError);
  await assert.rejects(
    updateAuthStore(path, () => undefined),
    AuthStoreError,
  );
  assert.equal(readFileSync(path, "utf8"), garbage);
});

test("a well-formed file with the wrong shape is reported too", () => {
  const path = tempStore();
  writeFileSync(path, JSON.stringify({ credentialPool: { p: [{ id: 7 }] } }));
  assert.throws(() => loadAuthStore(path), /credentialPool\.p\.0/);
});

test("env-seeded credentials are never written", async () => {
  const path = tempStore();
  const entries = [
    record("manual-1"),
    record("env-1", { source: "env:OPENROUTER_API_KEY", accessToken: "sk-secret-env" }),
  ];
  const merged = await persistPoolEntries(path, "openrouter", entries);
  assert.deepEqual(
    merged.map((r) => r.id),
    ["manual-1", "env-1"],
    "the caller keeps its env entry in memory",
  );
  const text = readFileSync(path, "utf8");
  assert.ok(!text.includes("sk-secret-env"));
  assert.deepEqual(
    loadAuthStore(path).credentialPool.openrouter?.map((r) => r.id),
    ["manual-1"],
  );
});

test("interleaved async writers in one process are serialised by the lock", async () => {
  const path = tempStore();
  await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      updateAuthStore(path, async (data) => {
        const list = data.credentialPool.p ?? [];
        await new Promise((resolve) => setImmediate(resolve)); // yield while holding the lock
        data.credentialPool.p = [...list, record(`k${i}`)];
        return data;
      }),
    ),
  );
  assert.equal(loadAuthStore(path).credentialPool.p?.length, 20);
});

test("two processes writing at once lose nothing", async () => {
  const path = tempStore();
  const storeModule = new URL("../../src/state/auth-store.ts", import.meta.url).href;
  const writer = (name: string) => `
    import { updateAuthStore } from ${JSON.stringify(storeModule)};
    for (let i = 0; i < 25; i++) {
      await updateAuthStore(${JSON.stringify(path)}, (data) => {
        const list = data.credentialPool.shared ?? [];
        list.push({ id: "${name}-" + i, accessToken: "sk", requestCount: 0 });
        data.credentialPool.shared = list;
      });
    }`;
  const spawnWriter = (name: string) =>
    run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", writer(name)], { cwd: repoRoot });
  await Promise.all([spawnWriter("one"), spawnWriter("two")]);
  const ids = loadAuthStore(path).credentialPool.shared?.map((r) => r.id) ?? [];
  assert.equal(ids.length, 50);
  assert.equal(new Set(ids).size, 50);
});

test("a stale lock left by a crashed process is broken", async () => {
  const path = tempStore();
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 999999, token: "dead" }));
  const old = new Date(Date.now() - 60_000);
  utimesSync(`${path}.lock`, old, old);
  await saveAuthStore(path, { version: 1, credentialPool: { p: [record("a")] } }, { staleMs: 10_000, timeoutMs: 2000 });
  assert.equal(loadAuthStore(path).credentialPool.p?.[0]?.id, "a");
});

test("waiting for a live lock is bounded", async () => {
  const path = tempStore();
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 1, token: "alive" }));
  const started = Date.now();
  await assert.rejects(
    saveAuthStore(path, { version: 1, credentialPool: {} }, { timeoutMs: 150 }),
    (error: Error) => error instanceof AuthStoreError && /locked/.test(error.message),
  );
  assert.ok(Date.now() - started < 2000);
  assert.equal(readFileSync(`${path}.lock`, "utf8").includes("alive"), true, "someone else's lock is left alone");
});

test("a token refreshed by another process is adopted, not overwritten", async () => {
  const path = tempStore();
  const original = record("oauth-1", { authType: "oauth", accessToken: "at-1", refreshToken: "rt-1" });
  await persistPoolEntries(path, "nous", [original]);
  // Another process refreshes the single-use token pair and writes it.
  await updateAuthStore(path, (data) => {
    const entry = data.credentialPool.nous?.[0];
    if (entry) Object.assign(entry, { accessToken: "at-2", refreshToken: "rt-2" });
  });
  // This process still holds rt-1 in memory and persists a status change.
  const stale = {
    ...original,
    requestCount: 4,
    lastStatus: "exhausted" as const,
    lastStatusAt: 100,
    lastErrorCode: 429,
  };
  const merged = await persistPoolEntries(path, "nous", [stale]);
  assert.equal(merged[0]?.refreshToken, "rt-2");
  assert.equal(merged[0]?.accessToken, "at-2");
  assert.equal(merged[0]?.lastStatus, "exhausted", "our own newer status survives");
  const onDisk = loadAuthStore(path).credentialPool.nous?.[0];
  assert.equal(onDisk?.refreshToken, "rt-2");
  assert.equal(onDisk?.requestCount, 4);
});

test("mergeFromDisk: timestamps decide, memory-only and disk-only entries are kept", () => {
  const memory = [
    record("a", { accessToken: "mine", tokenUpdatedAt: 200 }),
    record("b", { accessToken: "old", tokenUpdatedAt: 100 }),
    record("env", { source: "env:X" }),
  ];
  const disk = [
    record("a", { accessToken: "theirs", tokenUpdatedAt: 150 }),
    record("b", { accessToken: "new", tokenUpdatedAt: 300, lastStatus: "dead", lastStatusAt: 50 }),
    record("c"),
  ];
  const merged = mergeFromDisk(memory, disk);
  assert.deepEqual(
    merged.map((r) => [r.id, r.accessToken]),
    [
      ["a", "mine"],
      ["b", "new"],
      ["env", "sk-env"],
      ["c", "sk-c"],
    ],
  );
  assert.equal(merged[1]?.lastStatus, "dead", "a status mark made elsewhere is adopted");
});

test("an auth.json in the original's shape is read, rotates keys on a 429, and is written back in its own shape", async () => {
  const { startFakeProvider } = await import("../fake-provider/server.js");
  const { openRuntime } = await import("../../src/runtime/runtime.js");
  const home = mkdtempSync(join(tmpdir(), "hermes-auth-"));
  const entry = (id: string, token: string, priority: number) => ({
    id,
    label: id,
    auth_type: "api_key",
    priority,
    source: "manual",
    access_token: token,
    refresh_token: null,
    last_status: null,
    last_status_at: null,
    last_error_code: null,
    last_error_reason: null,
    last_error_reset_at: null,
    request_count: 0,
  });
  const path = join(home, "auth.json");
  writeFileSync(
    path,
    JSON.stringify({ version: 1, credential_pool: { custom: [entry("k1", "key-one", 0), entry("k2", "key-two", 1)] } }),
  );
  const fake = await startFakeProvider({
    script: [{ fault: { kind: "status", status: 429, message: "Rate limit reached" } }, { text: "second key works" }],
  });
  writeFileSync(join(home, "config.yaml"), `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\n`);
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true }).catch(async (error) => {
    await fake.close();
    throw error;
  });
  try {
    const result = await runtime.createAgent().runConversation("go");
    assert.equal(result.finalResponse, "second key works");
    const posts = fake.requests.filter((r) => r.method === "POST");
    assert.deepEqual(
      posts.map((r) => r.headers.authorization),
      ["Bearer key-one", "Bearer key-two"],
    );
  } finally {
    await runtime.close();
    await fake.close();
  }
  const written = JSON.parse(readFileSync(path, "utf8"));
  assert.equal(written.credentialPool, undefined, "still the original's shape");
  const k1 = written.credential_pool.custom.find((r: { id: string }) => r.id === "k1");
  assert.equal(k1.last_status, "exhausted");
  assert.equal(k1.last_error_code, 429);
  assert.equal(k1.access_token, "key-one");
});
