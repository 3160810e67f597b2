import assert from "node:assert/strict";
import { test } from "node:test";
import { bearerToken, createKeyRing, namespaceFor } from "../../src/api-server/auth.js";

const KEY_A = "first-key-0123456789";
const KEY_B = "second-key-9876543210";

test("the bearer token is read from a well-formed header only", () => {
  assert.equal(bearerToken("Bearer abc"), "abc");
  assert.equal(bearerToken("bearer abc"), "abc", "the scheme is case-insensitive");
  assert.equal(bearerToken("Bearer \t abc \t "), "abc", "spaces and tabs around the token are allowed");
  assert.equal(bearerToken(undefined), undefined);
  assert.equal(bearerToken(""), undefined);
  assert.equal(bearerToken("Basic abc"), undefined);
  assert.equal(bearerToken("XBearer abc"), undefined, "the scheme starts the header");
  assert.equal(bearerToken("Bearer abc def"), undefined, "one token, nothing after it");
  assert.equal(bearerToken("Bearerabc"), undefined);
});

test("each key authenticates to its own namespace; anything else to none", () => {
  const ring = createKeyRing([KEY_A, KEY_B]);
  assert.equal(ring.shared, true);
  assert.equal(ring.authenticate(`Bearer ${KEY_A}`), namespaceFor(KEY_A));
  assert.equal(ring.authenticate(`Bearer ${KEY_B}`), namespaceFor(KEY_B));
  assert.notEqual(namespaceFor(KEY_A), namespaceFor(KEY_B));
  assert.equal(ring.authenticate(`Bearer ${KEY_A}x`), undefined);
  assert.equal(ring.authenticate(`Bearer ${KEY_A.slice(0, -1)}`), undefined);
  assert.equal(ring.authenticate(undefined), undefined);
  assert.equal(ring.authenticate("Bearer "), undefined);
  assert.equal(createKeyRing([KEY_A]).shared, false);
});

test("namespaces are short, stable and do not reveal the key", () => {
  const ns = namespaceFor(KEY_A);
  assert.match(ns, /^k[0-9a-f]{16}$/);
  assert.equal(namespaceFor(KEY_A), ns);
  assert.ok(!ns.includes(KEY_A.slice(0, 6)));
});

test("keys outside ASCII are compared as UTF-8", () => {
  const key = "ключ-ключ-ключ-ключ";
  const ring = createKeyRing([key]);
  assert.equal(ring.authenticate(`Bearer ${key}`), namespaceFor(key));
  assert.equal(ring.authenticate("Bearer ключ-ключ-ключ-ключь"), undefined);
});
