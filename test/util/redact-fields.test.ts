import assert from "node:assert/strict";
import { test } from "node:test";
import { isSecretName, redactObject, redactSecrets } from "../../src/util/redact.js";

const HEX = "9f8e7d6c5b4a3f2e1d0c";
const HEX_MASKED = "9f8e7d...1d0c";

test("a YAML field is masked however its list dash, colon and value are spaced", () => {
  assert.equal(redactSecrets(`- api_key: ${HEX}`), `- api_key: ${HEX_MASKED}`);
  assert.equal(redactSecrets(`-   api_token: ${HEX}`), `-   api_token: ${HEX_MASKED}`);
  assert.equal(redactSecrets(`api_key : ${HEX}`), `api_key : ${HEX_MASKED}`);
  assert.equal(redactSecrets(`api_key:    ${HEX}`), `api_key:    ${HEX_MASKED}`);
  assert.equal(redactSecrets(`api_key: ${HEX}   `), `api_key: ${HEX_MASKED}`);
  assert.equal(
    redactSecrets(`settings:\n  password: ${HEX}\nname: x`),
    `settings:\n  password: ${HEX_MASKED}\nname: x`,
  );
});

test("a YAML value needs a digit somewhere, not at its start", () => {
  assert.equal(redactSecrets("api_token: abcdef0123456789abcd"), "api_token: abcdef...abcd");
  assert.equal(redactSecrets("token_type: refresh_token"), "token_type: refresh_token");
  assert.equal(redactSecrets("password_policy: alphanumeric-symbols"), "password_policy: alphanumeric-symbols");
});

test("only a whole `name: value` line is a YAML field; prose, timestamps and other names are left alone", () => {
  for (const text of [
    "Reminder, renew the token: 2025-01-31",
    "token_expires: 2024-05-01T10:00:00Z",
    `commit: ${HEX}`,
    "model_version: 2024-05-13",
  ]) {
    assert.equal(redactSecrets(text), text);
  }
});

test("a quoted field is masked whatever the spacing around its separator", () => {
  assert.equal(redactSecrets('{"password":"hunter2hunter2"}'), '{"password":"***"}');
  assert.equal(redactSecrets('{"password" : "hunter2hunter2"}'), '{"password" : "***"}');
  assert.equal(redactSecrets("{'api_key':  'abcdefghij0123456789'}"), "{'api_key':  'abcdef...6789'}");
});

test("the masked value keeps the quotes it had; an empty secret stays empty", () => {
  assert.equal(redactSecrets('DB_PASSWORD="hunter2hunter2"'), 'DB_PASSWORD="***"');
  assert.equal(redactSecrets('API_KEY="abcdefghij0123456789"'), 'API_KEY="abcdef...6789"');
  assert.equal(redactSecrets("API_KEY='abcdefghij0123456789'"), "API_KEY='abcdef...6789'");
  assert.equal(redactSecrets("API_KEY=abcdefghij0123456789"), "API_KEY=abcdef...6789");
  assert.equal(redactSecrets('API_KEY=""'), 'API_KEY=""');
  assert.equal(redactSecrets('{"password": ""}'), '{"password": ""}');
  assert.deepEqual(redactObject({ password: "" }), { password: "" });
});

test("a value is taken as already masked only when all of it has the masked shape", () => {
  assert.equal(redactSecrets("API_KEY=prefix-abcdef...89xy"), "API_KEY=prefix...89xy");
  assert.equal(redactSecrets("API_KEY=abcdef...89xyMORESECRET123"), "API_KEY=abcdef...T123");
  assert.equal(redactSecrets("postgres://admin:***@db:5432/app"), "postgres://admin:***@db:5432/app");
  assert.equal(redactSecrets("postgres://admin:abcdef...wxyz@db/app"), "postgres://admin:abcdef...wxyz@db/app");
});

test("a name holding the word secret is secret on its own, not only in the pairs", () => {
  assert.equal(isSecretName("JWT_SECRET"), true);
  assert.equal(isSecretName("webhookSecret"), true);
  assert.equal(redactSecrets("JWT_SECRET=hunter2hunter2hunter2"), "JWT_SECRET=hunter...ter2");
});

test("beyond the secret names, keys, signatures, OAuth codes, sessions and JWTs are secret query parameters", () => {
  assert.equal(redactSecrets("https://x.test/a?key=abcdefghij0123456789"), "https://x.test/a?key=abcdef...6789");
  for (const name of ["code", "session", "jwt", "auth", "sig", "X-Amz-Signature", "X-Goog-Signature"]) {
    assert.equal(
      redactSecrets(`https://x.test/cb?state=ok&${name}=Q1w2E3r4T5y6U7i8O9p0&next=1`),
      `https://x.test/cb?state=ok&${name}=Q1w2E3...9p0&next=1`.replace("9p0&", "O9p0&"),
      name,
    );
  }
  for (const text of [
    "https://example.com/search?q=x&hotkey=ctrl-alt-delete",
    "https://example.com/search?keyword=redaction&signup=true",
    "https://example.com/map?zipcode=90210&encode=utf8&sessions_page=2",
  ]) {
    assert.equal(redactSecrets(text), text);
  }
});

test("Bearer takes any run of spaces; Basic and Token count only right after the header", () => {
  assert.equal(redactSecrets("Authorization: Bearer  abc123def456ghi789jkl"), "Authorization: Bearer  abc123...9jkl");
  assert.equal(redactSecrets("Authorization:Basic dXNlcjpwYXNzd29yZDEyMw=="), "Authorization:Basic dXNlcj...Mw==");
  const prose = "Authorization: failed. Basic troubleshooting-step-1 applies";
  assert.equal(redactSecrets(prose), prose);
});

test("a token shape inside a longer word is not a token", () => {
  assert.equal(redactSecrets("task-1234567890abcdef"), "task-1234567890abcdef");
  assert.equal(redactSecrets("the ask-1234567890abcdef"), "the ask-1234567890abcdef");
  assert.equal(redactSecrets("(sk-1234567890abcdef)"), "(sk-123...cdef)");
});

test("fal_, exa_ and syt_ tokens need a digit anywhere in them, and nothing without one is masked", () => {
  for (const prefix of ["fal_", "exa_", "syt_"]) {
    assert.equal(redactSecrets(`${prefix}abcdefghijklmnop1234`), `${prefix}ab...1234`);
    const name = `${prefix}client_helpers_for_async_calls`;
    assert.equal(redactSecrets(name), name);
  }
});

test("redactObject takes a bare string or array, and keeps undefined fields", () => {
  assert.equal(redactObject("Bearer abc123def456ghi789jkl"), "Bearer abc123...9jkl");
  assert.deepEqual(redactObject(["Bearer abc123def456ghi789jkl", 1]), ["Bearer abc123...9jkl", 1]);
  assert.deepEqual(redactObject({ note: undefined, count: 2 }), { note: undefined, count: 2 });
});

test("a YAML credential in quotes, or followed by a comment, is masked; the quotes and the comment stay", () => {
  assert.equal(redactSecrets(`api_key: ${HEX} # prod`), `api_key: ${HEX_MASKED} # prod`);
  assert.equal(redactSecrets(`api_key: "${HEX}"`), `api_key: "${HEX_MASKED}"`);
  assert.equal(
    redactSecrets(`  api_key: '${HEX}'  # rotated monthly`),
    `  api_key: '${HEX_MASKED}'  # rotated monthly`,
  );
  assert.equal(redactSecrets('password: "hunter two"'), 'password: "***"');
  assert.equal(redactSecrets('title: "nothing secret 123456789"'), 'title: "nothing secret 123456789"');
  assert.equal(redactSecrets("token: none yet # ask ops"), "token: none yet # ask ops");
});
