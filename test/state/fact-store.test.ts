import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { factSimilarity, normalizeFact } from "../../src/state/fact-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";
import { openFactStore, relevanceQuery } from "../../src/state/sqlite-fact-store.js";
import { tempDir } from "./temp-dir.js";

function fresh() {
  return openFactStore(join(tempDir("hermes-facts-"), "facts.db"));
}

test("facts are found by the meaningful words of a question, best match first", () => {
  const store = fresh();
  try {
    store.add({ text: "The user's editor is Helix", source: "user" }, 1);
    store.add({ text: "The user deploys with Fly.io", source: "user" }, 2);
    store.add({ text: "The user's cat is called Miso", source: "user" }, 3);
    const hits = store.search("which editor should I configure for this repo?");
    assert.deepEqual(
      hits.map((hit) => hit.fact.text),
      ["The user's editor is Helix"],
    );
    assert.deepEqual(
      store.search("how do we deploy").map((h) => h.fact.text),
      ["The user deploys with Fly.io"],
    );
    assert.deepEqual(store.search("what is the weather"), [], "no shared word, nothing recalled");
    assert.deepEqual(store.search("?!"), [], "a query of punctuation matches nothing and does not throw");
  } finally {
    store.close();
  }
});

test("the same fact said twice, or nearly the same, is consolidated into one with a mention count", () => {
  const store = fresh();
  try {
    const first = store.add({ text: "The user prefers tabs over spaces", source: "user" }, 1);
    assert.equal(first.action, "added");
    const again = store.add({ text: "the user prefers tabs over spaces!", source: "user" }, 2);
    assert.equal(again.action, "merged");
    const near = store.add({ text: "The user really prefers tabs over spaces", source: "user" }, 3);
    assert.equal(near.action, "merged");
    assert.equal(store.count(), 1);
    assert.equal(store.list()[0]!.mentions, 3);
    assert.equal(store.list()[0]!.text, "The user really prefers tabs over spaces", "the newest wording is kept");
    assert.equal(store.add({ text: "The user prefers dark themes", source: "user" }, 4).action, "added");
    assert.equal(store.count(), 2);
  } finally {
    store.close();
  }
});

test("a newer value for the same subject replaces the older one", () => {
  const store = fresh();
  try {
    store.add({ text: "The user's editor is Vim", subject: "user.editor", source: "user" }, 1);
    const write = store.add({ text: "The user's editor is Helix", subject: "user.editor", source: "user" }, 2);
    assert.deepEqual(
      [write.action, write.action === "merged" ? write.previous : ""],
      ["merged", "The user's editor is Vim"],
    );
    assert.deepEqual(
      store.list().map((f) => f.text),
      ["The user's editor is Helix"],
    );
    assert.deepEqual(store.search("vim"), [], "the old value is no longer found");
  } finally {
    store.close();
  }
});

test("facts are forgotten by id or by text, and reset empties the store", () => {
  const store = fresh();
  try {
    const a = store.add({ text: "The user's editor is Helix", source: "user" }, 1);
    store.add({ text: "The user deploys with Fly.io", source: "user" }, 2);
    store.add({ text: "The user's team deploys on Fridays", source: "user" }, 3);
    assert.equal(store.forget({ id: a.fact.id }), 1);
    assert.equal(store.forget({ text: "DEPLOYS" }), 2);
    assert.equal(store.forget({ text: "  " }), 0, "an empty needle removes nothing");
    store.add({ text: "The user lives in Lisbon", source: "user" }, 4);
    assert.equal(store.reset(), 1);
    assert.equal(store.count(), 0);
    assert.deepEqual(store.search("Lisbon"), []);
  } finally {
    store.close();
  }
});

test("facts survive closing and reopening the file; a newer schema is refused with advice", () => {
  const path = join(tempDir("hermes-facts-"), "facts.db");
  const store = openFactStore(path);
  store.add({ text: "The user's editor is Helix", source: "user", sessionId: "s1" }, 5);
  store.close();
  const reopened = openFactStore(path);
  assert.equal(reopened.search("editor")[0]?.fact.sessionId, "s1");
  reopened.close();
  const db = openSqliteDatabase(path);
  db.pragma("user_version = 99");
  db.close();
  assert.throws(() => openFactStore(path), /newer hermes .*upgrade hermes or move the file aside/);
});

test("vector similarity finds a fact with no word in common, and fuses with word matches", () => {
  const store = fresh();
  try {
    const editor = Float32Array.from([1, 0, 0]);
    const deploy = Float32Array.from([0, 1, 0]);
    store.add({ text: "The user's editor is Helix", source: "user", embedding: editor }, 1);
    store.add({ text: "The user deploys with Fly.io", source: "user", embedding: deploy }, 2);
    const hits = store.search("text editing program", { embedding: Float32Array.from([0.9, 0.1, 0]) });
    assert.deepEqual(
      hits.map((h) => h.fact.text),
      ["The user's editor is Helix"],
    );
    const both = store.search("deploys", { embedding: Float32Array.from([0.9, 0.1, 0]) });
    assert.deepEqual(both.map((h) => h.fact.text).sort(), [
      "The user deploys with Fly.io",
      "The user's editor is Helix",
    ]);
  } finally {
    store.close();
  }
});

test("the relevance query quotes every word and drops the filler", () => {
  assert.equal(relevanceQuery('what is "my" editor (NEAR) x*'), '"editor" OR "near"');
  assert.equal(relevanceQuery("the a an"), null);
  assert.equal(normalizeFact("  The, User's   EDITOR! "), "the user s editor");
  assert.equal(factSimilarity("a b c d", "a b c d e"), 0.8);
  assert.equal(factSimilarity("", "a"), 0);
});
