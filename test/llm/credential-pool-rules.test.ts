import assert from "node:assert/strict";
import { test } from "node:test";
import {
  availableAgainAt,
  CredentialPool,
  EXHAUSTED_TTL_DEFAULT_SECONDS,
  isTerminalAuthFailure,
} from "../../src/llm/credential-pool.js";
import { parseResetTime } from "../../src/llm/credential-pool-reset.js";
import type { CredentialRecord } from "../../src/util/credential-record.js";
import { credentialRecord } from "./credential-records.js";

const NOW = 1_772_366_400; // 2026-03-01T12:00:00Z

const record = credentialRecord;

const twoKeys = () => new CredentialPool({ provider: "p", entries: [record("a", 0), record("b", 1)], now: () => NOW });

function statusAfter(statusCode: number | undefined, reason: string): string | null | undefined {
  const pool = twoKeys();
  pool.select();
  pool.markExhaustedAndRotate({ ...(statusCode !== undefined ? { statusCode } : {}), reason });
  return pool.entries().find((entry) => entry.id === "a")?.lastStatus;
}

for (const reason of [
  "token_invalidated",
  "token_revoked",
  "invalid_token",
  "invalid_grant",
  "unauthorized_client",
  "refresh_token_reused",
  "INVALID_TOKEN",
]) {
  test(`a 401 with ${reason} retires the credential for good`, () => {
    assert.equal(statusAfter(401, reason), "dead");
  });
}

test("terminal wording without a 401 only exhausts the credential", () => {
  assert.equal(statusAfter(403, "token_revoked"), "exhausted");
  assert.equal(statusAfter(undefined, "token_invalidated"), "exhausted");
  assert.equal(statusAfter(429, "invalid_grant"), "exhausted");
});

test("account and classifier reasons are not terminal, even on a 401", () => {
  assert.equal(statusAfter(401, "account_deactivated"), "exhausted");
  assert.equal(statusAfter(401, "auth_permanent"), "exhausted");
  assert.equal(statusAfter(401, "token_expired"), "exhausted");
});

test("isTerminalAuthFailure needs both the 401 and a known reason", () => {
  assert.equal(isTerminalAuthFailure({ statusCode: 401, reason: "invalid_grant" }), true);
  assert.equal(isTerminalAuthFailure({ statusCode: 401 }), false);
  assert.equal(isTerminalAuthFailure({ statusCode: 403, reason: "invalid_grant" }), false);
});

test("marking with nothing selected yet marks the entry a selection picks, then moves on", () => {
  const pool = twoKeys();
  assert.equal(pool.markExhaustedAndRotate({ statusCode: 429 })?.id, "b");
  const a = pool.entries().find((entry) => entry.id === "a");
  assert.equal(a?.lastStatus, "exhausted");
  assert.equal(a?.lastErrorCode, 429);
  assert.equal(a?.lastStatusAt, NOW);
  assert.equal(pool.current()?.id, "b");
});

test("marking an empty pool does nothing", () => {
  const pool = new CredentialPool({ provider: "p", entries: [], now: () => NOW });
  assert.equal(pool.markExhaustedAndRotate({ statusCode: 429 }), null);
  assert.deepEqual(pool.entries(), []);
});

test("a reset time in milliseconds is stored in seconds", () => {
  const pool = twoKeys();
  pool.select();
  pool.markExhaustedAndRotate({ statusCode: 429, resetAt: (NOW + 90) * 1000 });
  assert.equal(pool.entries().find((entry) => entry.id === "a")?.lastErrorResetAt, NOW + 90);
});

test("an ISO-8601 reset time is accepted", () => {
  const pool = twoKeys();
  pool.select();
  pool.markExhaustedAndRotate({ statusCode: 429, resetAt: "2026-03-01T13:00:00Z" });
  assert.equal(pool.entries().find((entry) => entry.id === "a")?.lastErrorResetAt, NOW + 3600);
});

test("an unusable reset time leaves the default cooldown", () => {
  const pool = twoKeys();
  pool.select();
  pool.markExhaustedAndRotate({ statusCode: 429, resetAt: "soon" });
  const a = pool.entries().find((entry) => entry.id === "a") as CredentialRecord;
  assert.equal(a.lastErrorResetAt, null);
  assert.equal(availableAgainAt(a), NOW + EXHAUSTED_TTL_DEFAULT_SECONDS);
});

test("a stored reset time in milliseconds already past makes the entry available", () => {
  const stale = record("a", 0, {
    lastStatus: "exhausted",
    lastStatusAt: NOW - 60,
    lastErrorCode: 429,
    lastErrorResetAt: (NOW - 30) * 1000,
  });
  assert.equal(availableAgainAt(stale), NOW - 30);
  const pool = new CredentialPool({ provider: "p", entries: [stale], now: () => NOW });
  assert.equal(pool.hasAvailable(), true);
  assert.equal(pool.select()?.id, "a");
});

test("parseResetTime reads seconds, milliseconds, numeric strings and ISO dates", () => {
  assert.equal(parseResetTime(NOW), NOW);
  assert.equal(parseResetTime(1e12), 1e12);
  assert.equal(parseResetTime(1e12 + 1000), 1e9 + 1);
  assert.equal(parseResetTime(` ${NOW} `), NOW);
  assert.equal(parseResetTime(`${NOW * 1000}`), NOW);
  assert.equal(parseResetTime("1772366400.5"), 1772366400.5);
  assert.equal(parseResetTime("2026-03-01T12:00:00Z"), NOW);
  assert.equal(parseResetTime("2026-03-01T12:00:00+01:00"), NOW - 3600);
});

test("parseResetTime rejects what names no time", () => {
  for (const value of [
    0,
    -5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    "",
    "  ",
    "0",
    "soon",
    "March 1",
    "2026-13-45",
    null,
  ]) {
    assert.equal(parseResetTime(value), null, String(value));
  }
  assert.equal(parseResetTime(undefined), null);
  assert.equal(parseResetTime({}), null);
});
