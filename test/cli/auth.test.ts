import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerAuthCommands } from "../../src/cli/commands/auth.js";
import { PROVIDERS } from "../../src/llm/providers.js";
import { loadCredentialPool, persistPool } from "../../src/runtime/credentials.js";
import { AuthStoreError, loadAuthStore } from "../../src/state/auth-store.js";
import { runNode } from "../helpers/run-node.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const NOW = 1_700_000_000;
const KEY_ONE = "sk-or-v1-aaaaaaaaaaaaaaaa1111";
const KEY_TWO = "sk-or-v1-bbbbbbbbbbbbbbbb2222";

function auth(home: string, args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) {
  return run(
    (program, io) =>
      registerAuthCommands(program, io, {
        now: () => NOW,
        env: opts.env ?? {},
        readSecret: async () => opts.stdin ?? "",
      }),
    home,
    ["auth", ...args],
  );
}

const authPath = (home: string) => join(home, "auth.json");

test("auth add, list, status, remove and reset round trip through auth.json", async () => {
  const home = tempHome();
  const first = await auth(home, ["add", "openrouter", "--key", KEY_ONE, "--label", "work"]);
  assert.match(first.out, /Added work \(sk-o…1111\) to the openrouter pool in .*auth\.json: 1 stored key\./);
  const second = await auth(home, ["add", "or"], { stdin: `${KEY_TWO}\n` });
  assert.match(second.out, /Added key-2 .* 2 stored keys/);
  assert.equal(statSync(authPath(home)).mode & 0o777, 0o600);

  const listed = await auth(home, ["list"], { env: { OPENROUTER_API_KEY: "sk-or-v1-fromtheenvironment99" } });
  assert.match(listed.out, /^openrouter \(fill_first\):/m);
  assert.match(listed.out, /1\. OPENROUTER_API_KEY +sk-o…nt99 +env:OPENROUTER_API_KEY/);
  assert.match(listed.out, /2\. work +sk-o…1111 +manual/);
  assert.match(listed.out, /3\. key-2 +sk-o…2222 +manual/);
  for (const secret of [KEY_ONE, KEY_TWO, "fromtheenvironment"]) assert.ok(!listed.out.includes(secret));

  // A run exhausts the first key for ten minutes and persists that.
  const pool = loadCredentialPool(home, "openrouter", {}, {}, { now: () => NOW });
  assert.ok(pool);
  assert.equal(pool.select()?.label, "work");
  pool.markExhaustedAndRotate({ statusCode: 429, reason: "rate_limit", resetAt: NOW + 600 });
  await persistPool(home, pool);

  const status = await auth(home, ["status"]);
  assert.match(status.out, /openrouter \(fill_first\): 1 of 2 available/);
  assert.match(status.out, /work +sk-o…1111 +exhausted \(HTTP 429 rate_limit\), available again in 10m 0s/);
  assert.match(status.out, /key-2 +sk-o…2222 +available/);

  const reset = await auth(home, ["reset", "openrouter"]);
  assert.match(reset.out, /Reset 1 key of openrouter/);
  assert.match((await auth(home, ["status"])).out, /2 of 2 available/);

  const removed = await auth(home, ["remove", "openrouter", "work"]);
  assert.match(removed.out, /Removed work \(sk-o…1111\) from the openrouter pool/);
  const stored = loadAuthStore(authPath(home)).credentialPool.openrouter ?? [];
  assert.deepEqual(
    stored.map((r) => r.label),
    ["key-2"],
  );
  await assert.rejects(auth(home, ["remove", "openrouter", "work"]), /no key "work" in the openrouter pool/);
});

test("auth add refuses a duplicate key, an unknown provider, and an empty key", async () => {
  const home = tempHome();
  await auth(home, ["add", "anthropic", "--key", "sk-ant-api03-zzzzzzzzzzzz"]);
  await assert.rejects(
    auth(home, ["add", "claude", "--key", "sk-ant-api03-zzzzzzzzzzzz"]),
    /already in the anthropic pool as "key-1"/,
  );
  await assert.rejects(auth(home, ["add", "nowhere", "--key", "x"]), /unknown provider "nowhere"/);
  await assert.rejects(auth(home, ["add", "anthropic"], { stdin: "  \n" }), /no key given/);
  await assert.rejects(
    auth(home, ["add", "vertex-ai", "--key", "ya29.some-token-that-would-expire"]),
    /vertex takes no API key: it signs requests with Google credentials \(VERTEX_CREDENTIALS_PATH/,
  );
  assert.deepEqual(loadAuthStore(join(home, "auth.json")).credentialPool.vertex ?? [], [], "nothing was stored");
});

test("environment keys join the pool first and are never written to auth.json", async () => {
  const home = tempHome();
  await auth(home, ["add", "openrouter", "--key", KEY_ONE]);
  writeFileSync(join(home, "config.yaml"), "credential_pool_strategies:\n  openrouter: round_robin\n");
  const pool = loadCredentialPool(
    home,
    "openrouter",
    { credential_pool_strategies: { openrouter: "round_robin" } },
    { OPENROUTER_API_KEY: "sk-or-v1-envkeyenvkeyenvkey" },
  );
  assert.ok(pool);
  assert.equal(pool.strategy, "round_robin");
  assert.deepEqual(
    pool.entries().map((e) => e.source),
    ["env:OPENROUTER_API_KEY", "manual"],
  );
  pool.select();
  await persistPool(home, pool);
  const text = readFileSync(authPath(home), "utf8");
  assert.ok(!text.includes("envkey"));
  assert.equal(loadAuthStore(authPath(home)).credentialPool.openrouter?.length, 1);
  assert.match((await auth(home, ["list"])).out, /openrouter \(round_robin\)/);

  assert.equal(loadCredentialPool(tempHome(), "openrouter", {}, {}), undefined, "no keys, no pool");
});

test("a corrupt auth.json is reported with its path and left untouched", async () => {
  const home = tempHome();
  const corrupt = '{"version": 1, "credentialPool": {"openrouter": [ { "id": "a", ';
  writeFileSync(authPath(home), corrupt);
  for (const args of [["list"], ["status"], ["add", "openrouter", "--key", KEY_ONE], ["reset", "openrouter"]]) {
    const result = await auth(home, args);
    assert.equal(result.exitCode, 1, `auth ${args.join(" ")} exits 1`);
    assert.match(result.err, new RegExp(`${authPath(home).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON`));
  }
  const healthy = tempHome();
  await auth(healthy, ["add", "openrouter", "--key", KEY_ONE]);
  const pool = loadCredentialPool(healthy, "openrouter", {}, {});
  assert.ok(pool);
  await assert.rejects(persistPool(home, pool), AuthStoreError);
  assert.throws(() => loadCredentialPool(home, "openrouter", {}, {}), AuthStoreError);
  assert.equal(readFileSync(authPath(home), "utf8"), corrupt);
});

/** Runs the real `hermes` entry in a child process with no provider keys in its environment. */
function hermes(home: string, args: string[], stdin = ""): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string | undefined> = { ...process.env, HERMES_HOME: home };
  for (const spec of PROVIDERS) for (const name of spec.keyEnvVars) delete env[name];
  return runNode(["--import", "tsx", "src/cli/main.ts", ...args], { env, stdin }).then(({ code, stdout, stderr }) => ({
    code,
    out: stdout,
    err: stderr,
  }));
}

test("the hermes binary reads a piped key, lists it masked, and exits 1 on a corrupt auth.json", async () => {
  const home = tempHome();
  const added = await hermes(home, ["auth", "add", "deepseek", "--label", "main"], `${KEY_TWO}\n`);
  assert.equal(added.code, 0, added.err);
  const listed = await hermes(home, ["auth", "list", "deepseek"]);
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, /1\. main +sk-o…2222 +manual/);

  writeFileSync(authPath(home), "not json at all");
  const broken = await hermes(home, ["auth", "status"]);
  assert.equal(broken.code, 1);
  assert.ok(broken.err.includes(`${authPath(home)}: not valid JSON`), broken.err);
  assert.equal(readFileSync(authPath(home), "utf8"), "not json at all");
});
