import assert from "node:assert/strict";
import { test } from "node:test";
import { isSecretName, maskToken, redactObject, redactSecrets } from "../../src/util/redact.js";

test("every secret word and word pair makes a name secret, in any spelling; neighbours of them do not", () => {
  const secret = [
    "apikey",
    "GITHUB_TOKEN",
    "clientSecret",
    "db_password",
    "smtp-passwd",
    "gpg_passphrase",
    "aws_credential",
    "credentials",
    "gitlab_pat",
    "Authorization",
    "session_cookie",
    "OPENAI_API_KEY",
    "accessKey",
    "private-key",
    "SECRET_KEY",
    "oauth_client_secret",
    "auth_key",
  ];
  for (const name of secret) assert.equal(isSecretName(name), true, name);
  const plain = [
    "keyboard",
    "api",
    "access_level",
    "private_notes",
    "client_id",
    "key",
    "auth",
    "tokenizer_path",
    "pathname",
  ];
  for (const name of plain) assert.equal(isSecretName(name), false, name);
});

test("a masked token keeps 6 + 4 characters from 18 characters on; shorter ones become ***", () => {
  assert.equal(maskToken("a".repeat(17)), "***");
  assert.equal(maskToken("abcdef0123456789xy"), "abcdef...89xy");
});

test("an already masked value is left as it is, and a masked-looking fragment inside a longer value is not", () => {
  assert.equal(redactSecrets("password: ***"), "password: ***");
  assert.equal(redactSecrets("API_KEY=abcdef...89xy"), "API_KEY=abcdef...89xy");
  assert.equal(redactSecrets("API_KEY=prefix-abcdef...89xy-more-text-7"), "API_KEY=prefix...xt-7");
});

test("a variable reference in a secret field is not a secret; a value that only starts like one is", () => {
  assert.equal(redactSecrets("OPENAI_API_KEY=$OPENAI_KEY"), "OPENAI_API_KEY=$OPENAI_KEY");
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable reference, written literally
  assert.equal(redactSecrets("OPENAI_API_KEY=${VAULT_KEY}"), "OPENAI_API_KEY=${VAULT_KEY}");
  assert.match(redactSecrets("OPENAI_API_KEY=abc$def1234567890xyz"), /^OPENAI_API_KEY=(\*\*\*|abc\$de\.\.\.)/);
});

test("Basic and Token are schemes only after an Authorization header; Bearer is one anywhere", () => {
  const token = "abcDEF1234567890ghijKL";
  assert.equal(redactSecrets(`Basic ${token} is a word here`), `Basic ${token} is a word here`);
  assert.equal(redactSecrets(`Token ${token} as prose`), `Token ${token} as prose`);
  assert.doesNotMatch(redactSecrets(`Authorization: Basic ${token}`), new RegExp(token));
  assert.doesNotMatch(redactSecrets(`authorization = "Token ${token}"`), new RegExp(token));
  assert.doesNotMatch(redactSecrets(`curl -H 'x: 1' then Bearer ${token}`), new RegExp(token));
  assert.equal(redactSecrets(`Bearers ${token} walk`), `Bearers ${token} walk`);
});

test("non-strings and empty strings pass through; class instances inside objects are left alone", () => {
  assert.equal(redactSecrets(""), "");
  assert.equal(redactSecrets(undefined as unknown as string), undefined);
  assert.equal(redactSecrets(42 as unknown as string), 42);
  const when = new Date(0);
  const out = redactObject({ when, nested: { password: "hunter2-hunter2" }, list: ["sk-abc123def456ghi789"] });
  assert.equal(out.when, when);
  assert.equal(out.nested.password, "***");
  assert.notEqual(out.list[0], "sk-abc123def456ghi789");
  assert.equal(redactObject(null), null);
});
