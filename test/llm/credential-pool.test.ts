import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import {
  availableAgainAt,
  CredentialPool,
  type CredentialPoolOptions,
  EXHAUSTED_TTL_401_SECONDS,
  EXHAUSTED_TTL_DEFAULT_SECONDS,
} from "../../src/llm/credential-pool.js";
import type { CredentialRecord } from "../../src/util/credential-record.js";
import { credentialRecord } from "./credential-records.js";

interface Step {
  call: string;
  args?: unknown[];
  nowOffsetSeconds?: number;
  expect?: {
    fields?: Record<string, unknown>;
    returns?: unknown;
    isNull?: boolean;
    entryFields?: Record<string, Record<string, unknown>>;
    notSelectedIds?: string[];
  };
}

interface Case {
  id: string;
  now: string;
  input: { config: Omit<CredentialPoolOptions, "now"> };
  steps: Step[];
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/credential-pool.json", import.meta.url), "utf8"),
) as { cases: Case[] };

function checkStep(step: Step, result: unknown): void {
  const expect = step.expect;
  if (!expect) return;
  if (expect.isNull) assert.equal(result, null);
  if ("returns" in expect) assert.deepEqual(result, expect.returns);
  if (expect.fields) {
    assert.ok(result && typeof result === "object", `${step.call} returned ${JSON.stringify(result)}`);
    for (const [field, value] of Object.entries(expect.fields)) {
      assert.deepEqual((result as Record<string, unknown>)[field], value, `${step.call}: ${field}`);
    }
  }
  if (expect.entryFields) {
    const entries = result as CredentialRecord[];
    for (const [id, fields] of Object.entries(expect.entryFields)) {
      const entry = entries.find((e) => e.id === id) as Record<string, unknown> | undefined;
      assert.ok(entry, `entry ${id} missing`);
      for (const [field, value] of Object.entries(fields)) assert.deepEqual(entry[field], value, `${id}.${field}`);
    }
  }
  if (expect.notSelectedIds) {
    const id = (result as CredentialRecord | null)?.id;
    assert.ok(id === undefined || !expect.notSelectedIds.includes(id), `${id} should not be selected`);
  }
}

for (const c of fixture.cases) {
  test(`fixture ${c.id}`, () => {
    const base = Date.parse(c.now) / 1000;
    const build = (entries: CredentialRecord[], offset: number) =>
      new CredentialPool({ ...c.input.config, entries, now: () => base + offset });
    let pool = build(c.input.config.entries, 0);
    for (const step of c.steps) {
      if (step.call === "reload") {
        pool = build(pool.entries(), step.nowOffsetSeconds ?? 0);
        continue;
      }
      const method = (pool as unknown as Record<string, (...args: unknown[]) => unknown>)[step.call];
      assert.equal(typeof method, "function", `no method ${step.call}`);
      checkStep(step, method?.apply(pool, step.args ?? []));
    }
  });
}

const NOW = 1_772_366_400;

const record = credentialRecord;

test("random strategy picks among available entries using the given random source", () => {
  const entries = [record("a", 0), record("b", 1), record("c", 2, { lastStatus: "dead" })];
  const draws = [0.9, 0.1, 0.6];
  const pool = new CredentialPool({
    provider: "p",
    entries,
    strategy: "random",
    now: () => NOW,
    random: () => draws.shift() ?? 0,
  });
  assert.equal(pool.select()?.id, "b");
  assert.equal(pool.select()?.id, "a");
  assert.equal(pool.select()?.id, "b", "the dead entry is never drawn");
});

test("least_used spreads requests: each select counts a request", () => {
  const entries = [record("a", 0, { requestCount: 2 }), record("b", 1, { requestCount: 0 })];
  const pool = new CredentialPool({ provider: "p", entries, strategy: "least_used", now: () => NOW });
  const picks = [pool.select()?.id, pool.select()?.id, pool.select()?.id, pool.select()?.id];
  assert.deepEqual(picks, ["b", "b", "a", "b"]);
  assert.deepEqual(
    pool.entries().map((e) => e.requestCount),
    [3, 3],
  );
});

test("round_robin cycles through every available entry and skips exhausted ones", () => {
  const entries = [
    record("a", 0),
    record("b", 1, { lastStatus: "exhausted", lastStatusAt: NOW, lastErrorCode: 429 }),
    record("c", 2),
  ];
  const pool = new CredentialPool({ provider: "p", entries, strategy: "round_robin", now: () => NOW });
  assert.deepEqual([pool.select()?.id, pool.select()?.id, pool.select()?.id], ["a", "c", "a"]);
});

test("401 cooldown is five minutes and other failures one hour", () => {
  let now = NOW;
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0), record("b", 1)], now: () => now });
  pool.select();
  assert.equal(pool.markExhaustedAndRotate({ statusCode: 401 })?.id, "b");
  assert.equal(pool.markExhaustedAndRotate({ statusCode: 429 }), null);
  assert.equal(pool.hasAvailable(), false);
  now = NOW + EXHAUSTED_TTL_401_SECONDS - 1;
  assert.equal(pool.select(), null);
  now = NOW + EXHAUSTED_TTL_401_SECONDS;
  assert.equal(pool.select()?.id, "a");
  const [a, b] = pool.entries();
  assert.equal(a?.lastStatus, "ok");
  assert.equal(a?.lastErrorCode, null);
  assert.equal(b?.lastStatus, "exhausted");
  assert.equal(availableAgainAt(b as CredentialRecord), NOW + EXHAUSTED_TTL_DEFAULT_SECONDS);
});

test("a provider reset time overrides the default cooldown, in both directions", () => {
  let now = NOW;
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0), record("b", 1)], now: () => now });
  pool.select();
  pool.markExhaustedAndRotate({ statusCode: 429, resetAt: NOW + 30 });
  assert.equal(pool.entries()[0]?.lastErrorResetAt, NOW + 30);
  now = NOW + 30;
  assert.equal(pool.select()?.id, "a", "available again long before the one-hour default");
});

test("a reset time already in the past frees the entry at once", () => {
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0)], now: () => NOW });
  pool.select();
  assert.equal(pool.markExhaustedAndRotate({ statusCode: 429, resetAt: NOW - 5 })?.id, "a");
  assert.equal(pool.entries()[0]?.lastStatus, "ok");
});

test("terminal reasons kill only on a 401", () => {
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0), record("b", 1)], now: () => NOW });
  pool.select();
  pool.markExhaustedAndRotate({ statusCode: 429, reason: "token_invalidated" });
  assert.equal(pool.entries()[0]?.lastStatus, "exhausted");
  pool.markExhaustedAndRotate({ statusCode: 403, reason: "token_revoked" });
  assert.equal(pool.entries()[1]?.lastStatus, "exhausted");
});

test("select and entries hand out copies, not the pool's own records", () => {
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0)], now: () => NOW });
  const picked = pool.select() as CredentialRecord;
  picked.lastStatus = "dead";
  (pool.entries()[0] as CredentialRecord).accessToken = "tampered";
  assert.equal(pool.current()?.lastStatus, "ok");
  assert.equal(pool.current()?.accessToken, "sk-a");
});

test("replaceEntries adopts fresher records and keeps the current selection", () => {
  const pool = new CredentialPool({ provider: "p", entries: [record("a", 0), record("b", 1)], now: () => NOW });
  pool.select();
  pool.replaceEntries([record("a", 0, { accessToken: "sk-new" }), record("b", 1)]);
  assert.equal(pool.current()?.accessToken, "sk-new");
  pool.replaceEntries([record("b", 0)]);
  assert.equal(pool.current(), null);
});
