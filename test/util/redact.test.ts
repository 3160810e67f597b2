import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { isSecretName, maskToken, redactObject, redactSecrets } from "../../src/util/redact.js";

interface RedactCase {
  id: string;
  input: { args: [string] };
  expect: { equals?: string; contains?: string[]; notContains?: string[] };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/redaction.json", import.meta.url), "utf8"),
) as { cases: RedactCase[] };

for (const c of fixture.cases) {
  test(`redaction case ${c.id}`, () => {
    const out = redactSecrets(c.input.args[0]);
    if (c.expect.equals !== undefined) assert.equal(out, c.expect.equals);
    for (const s of c.expect.contains ?? []) assert.ok(out.includes(s), `${JSON.stringify(out)} lacks ${s}`);
    for (const s of c.expect.notContains ?? []) assert.ok(!out.includes(s), `${JSON.stringify(out)} still has ${s}`);
  });
}

function assertMasked(input: string, secret: string, keep?: string): string {
  const out = redactSecrets(input);
  assert.ok(!out.includes(secret), `${JSON.stringify(out)} still has ${secret}`);
  if (keep !== undefined) assert.ok(out.includes(keep), `${JSON.stringify(out)} lost ${keep}`);
  return out;
}

test("masks long tokens to prefix...suffix and short ones to stars", () => {
  assert.equal(maskToken("abcdefghijklmnopqrstuvwxyz"), "abcdef...wxyz");
  assert.equal(maskToken("short"), "***");
});

test("masks common provider key shapes", () => {
  assertMasked("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123", "AbCdEfGhIjKlMnOp", "sk-ant");
  assertMasked("sk-or-v1-0123456789abcdef0123456789abcdef", "0123456789abcdef0123", "sk-or-");
  assertMasked("token gho_0123456789abcdefghijABCDEFGHIJ", "0123456789abcdefghij");
  assertMasked("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "0123456789_abcdefghij");
  assertMasked("xoxp-1234567890-abcdefghijklmnop", "abcdefghijklmnop");
  assertMasked("aws AKIAIOSFODNN7EXAMPLE here", "IOSFODNN7EXAMPLE", "AKIAIO");
  assertMasked("google AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "A1b2C3d4E5f6G7h8");
  assertMasked("access ya29.a0AfH6SMBx1b2C3d4E5f6G7h8I9j0K1l2", "a0AfH6SMBx1b2C3d4E5f6");
  assertMasked('"refresh_token": "1//0gA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"', "A1b2C3d4E5f6G7h8I9j0");
});

test("a port followed by a double slash in a URL is not taken for a Google refresh token", () => {
  const url = "http://localhost:8081//abcdefghijklmnopqrstuvwxyz0123456789";
  assert.equal(redactSecrets(url), url);
});

test("masks JWTs and bearer tokens", () => {
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  assertMasked(`jwt=${jwt}`, "eyJzdWIiOiIxMjM0NTY3ODkwIn0");
  assertMasked("Authorization: Bearer abc123def456ghi789jkl", "def456ghi789", "Bearer");
  assertMasked("Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", "dXNlcjpwYXNzd29yZDEy");
  assert.equal(redactSecrets("Use Bearer authentication here"), "Use Bearer authentication here");
});

test("masks secret-looking assignments but not their names", () => {
  const out = assertMasked(
    "export OPENAI_API_KEY=abcdefghijklmnopqrstuvwx",
    "ghijklmnopqrst",
    "export OPENAI_API_KEY=",
  );
  assert.equal(out, "export OPENAI_API_KEY=abcdef...uvwx");
  assertMasked("DB_PASSWORD='hunter2hunter2'", "hunter2hunter2", "DB_PASSWORD='");
  assertMasked("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "K7MDENG");
  assertMasked('{"access_token": "ya29.a0AfH6SMBx3c0123456789"}', "a0AfH6SMBx3c0123");
  assertMasked("client_secret: 9f8e7d6c5b4a3f2e1d0c", "6c5b4a3f2e");
  assertMasked("https://api.example.com/v1?api_key=abc123def456ghi789&q=1", "def456ghi", "q=1");
});

test("leaves ordinary text, references and non-secret names alone", () => {
  for (const text of [
    "MAX_TOKENS=4096",
    "TOKEN_COUNT is 12",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
    "OPENAI_API_KEY=${OPENAI_API_KEY}",
    "GITHUB_TOKEN=$(cat token.txt)",
    "password: str",
    '{"max_tokens": 1024, "tokenizer": "cl100k_base"}',
    "the task-management-system works",
    "pip install sk-learn-compatible-estimators",
    "from fal_client_helpers import submit_async_request",
    "npm_config_user_agent=npm/10.8.2 node/v20.20.2",
    "see https://example.com/path?page=2",
  ]) {
    assert.equal(redactSecrets(text), text);
  }
});

test("masks the password in URL credentials and keeps the user", () => {
  assert.equal(redactSecrets("postgres://admin:s3cr3tpw@db:5432/app"), "postgres://admin:***@db:5432/app");
});

test("replaces private key blocks", () => {
  const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----";
  assert.equal(redactSecrets(`key:\n${pem}\ndone`), "key:\n[REDACTED PRIVATE KEY]\ndone");
  assert.equal(redactSecrets("-----BEGIN PRIVATE KEY-----\nMIIEvQ truncated"), "[REDACTED PRIVATE KEY]");
});

test("redacting twice gives the same text", () => {
  const text =
    'MY_TOKEN="supersecretvalue123456789" and sk-proj-abc123def456ghi789jkl012 {"apiKey": "q8Zr2LmNx4Vb7Tk1"}';
  const once = redactSecrets(text);
  assert.equal(redactSecrets(once), once);
});

test("recognises secret names in any casing style", () => {
  for (const name of ["apiKey", "API_KEY", "api-key", "accessToken", "db_password", "client_secret", "GITHUB_PAT"]) {
    assert.ok(isSecretName(name), name);
  }
  for (const name of ["max_tokens", "tokenizer", "PATH", "keyboard", "monkey", "secretary_name"]) {
    assert.ok(!isSecretName(name), name);
  }
});

test("redactObject deep-redacts strings and masks values under secret keys", () => {
  const input = {
    provider: "openai",
    apiKey: "short",
    headers: { Authorization: "Bearer abc123def456ghi789jkl" },
    nested: [{ note: "uses ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" }, 3, null, true],
    usage: { prompt_tokens: 10 },
  };
  const out = redactObject(input);
  assert.equal(out.provider, "openai");
  assert.equal(out.apiKey, "***");
  assert.ok(!out.headers.Authorization.includes("def456ghi789"));
  assert.ok(!JSON.stringify(out.nested).includes("E5f6G7h8I9j0"));
  assert.deepEqual(out.nested.slice(1), [3, null, true]);
  assert.deepEqual(out.usage, { prompt_tokens: 10 });
  assert.equal(input.apiKey, "short", "input is not mutated");
});
