import assert from "node:assert/strict";
import { test } from "node:test";
import { fallbackTitle, sessionIdNew } from "../../src/state/titles.js";

test("session ids are YYYYMMDD_HHMMSS_xxxxxx in UTC and sort by creation time", () => {
  const id = sessionIdNew(new Date(Date.UTC(2025, 0, 2, 3, 4, 5)));
  assert.match(id, /^20250102_030405_[0-9a-f]{6}$/);
  const later = sessionIdNew(new Date(Date.UTC(2025, 0, 2, 3, 4, 6)));
  assert.ok(id < later);
  assert.notEqual(sessionIdNew(), sessionIdNew());
});

test("session ids drawn in one second never repeat within a process", () => {
  const second = new Date(Date.UTC(2026, 10, 25, 7, 24, 4));
  const ids = new Set(Array.from({ length: 20_000 }, () => sessionIdNew(second)));
  // 20,000 draws of 24 random bits repeat about 12 times by chance.
  assert.equal(ids.size, 20_000);
  for (const id of ids) assert.match(id, /^20261125_072404_[0-9a-f]{6}$/);
});

test("fallback titles are one line and cut at a word boundary", () => {
  assert.equal(fallbackTitle("  Fix the\nbuild  "), "Fix the build");
  const long = fallbackTitle("Please help me refactor the authentication module so that tokens refresh properly", 40);
  assert.ok(long.length <= 40);
  assert.ok(long.endsWith("…"));
  assert.equal(long, "Please help me refactor the…");
});
