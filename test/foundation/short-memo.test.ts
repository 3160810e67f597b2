import assert from "node:assert/strict";
import { test } from "node:test";
import { shortMemo } from "../../src/util/short-memo.js";

test("a short memo reuses the last answer for the same key until it is older than its time, and recomputes for another key", () => {
  let now = 1_000;
  const recent = shortMemo<string>(30_000, () => now);
  const computed: string[] = [];
  const ask = (key: string) =>
    recent(key, () => {
      computed.push(key);
      return `${key}@${now}`;
    });
  assert.equal(ask("a"), "a@1000");
  now += 29_999;
  assert.equal(ask("a"), "a@1000", "reused within its time");
  assert.equal(ask("b"), "b@30999", "another key is looked up");
  assert.equal(ask("a"), "a@30999", "only the last key is kept");
  now += 30_000;
  assert.equal(ask("a"), "a@60999", "too old: looked up again");
  assert.deepEqual(computed, ["a", "b", "a", "a"]);
});
