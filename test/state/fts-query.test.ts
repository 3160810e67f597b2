import assert from "node:assert/strict";
import { test } from "node:test";
import { toFtsQuery } from "../../src/state/fts-query.js";

test("every term is quoted so FTS5 operators in user text are inert", () => {
  assert.equal(toFtsQuery("foo bar"), '"foo" "bar"');
  assert.equal(toFtsQuery('"foo AND ('), '"foo AND ("');
  assert.equal(toFtsQuery("foo AND ("), '"foo"');
  assert.equal(toFtsQuery("NEAR(a b)"), '"NEAR(a" "b)"');
  assert.equal(toFtsQuery("col:val -x ^y"), '"col:val" "-x" "^y"');
  assert.equal(toFtsQuery('say "hi'), '"say" "hi"');
  assert.equal(toFtsQuery('foo"bar'), '"foobar"');
});

test("phrases, OR between terms and trailing-star prefixes keep their meaning", () => {
  assert.equal(toFtsQuery('"exact phrase" other'), '"exact phrase" "other"');
  assert.equal(toFtsQuery("cats OR dogs"), '"cats" OR "dogs"');
  assert.equal(toFtsQuery("OR cats OR"), '"cats"');
  assert.equal(toFtsQuery("tok*"), '"tok"*');
});

test("input with no words gives no query", () => {
  for (const input of ["", "   ", "*", "()", '""', "AND OR", "'"]) assert.equal(toFtsQuery(input), null, input);
});

test("non-Latin words are kept", () => {
  assert.equal(toFtsQuery("日本語 café"), '"日本語" "café"');
});
