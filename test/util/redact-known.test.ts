import assert from "node:assert/strict";
import { test } from "node:test";
import { redactObject, redactSecrets } from "../../src/util/redact.js";
import { registerSecretValue } from "../../src/util/redact-known.js";

test("a registered value of any shape is masked in text and in JSON-like values", () => {
  const value = "plain words used as a password";
  assert.equal(redactSecrets(`the password is ${value}.`), `the password is ${value}.`);
  assert.equal(registerSecretValue(value), true);
  assert.equal(redactSecrets(`the password is ${value}.`), "the password is plain ...word.");
  assert.deepEqual(redactObject({ note: `x ${value} y` }), { note: "x plain ...word y" });
});

test("a value shorter than 8 characters is not registered, so ordinary words stay readable", () => {
  assert.equal(registerSecretValue("8080"), false);
  assert.equal(registerSecretValue("        "), false, "blank values are not secrets");
  assert.equal(redactSecrets("listening on 8080"), "listening on 8080");
});

test("a registered value that contains another is masked whole", () => {
  registerSecretValue("inner-secret-1");
  registerSecretValue("outer-inner-secret-1-suffix");
  assert.equal(redactSecrets("got outer-inner-secret-1-suffix"), "got outer-...ffix");
  assert.equal(redactSecrets("got inner-secret-1"), "got ***");
});
