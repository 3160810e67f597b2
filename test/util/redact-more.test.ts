import assert from "node:assert/strict";
import { test } from "node:test";
import { redactObject, redactSecrets } from "../../src/util/redact.js";

/** Each input and exactly what redaction makes of it. */
function expectAll(pairs: Array<[string, string]>): void {
  for (const [input, output] of pairs) assert.equal(redactSecrets(input), output, JSON.stringify(input));
}

function unchanged(texts: string[]): void {
  expectAll(texts.map((text): [string, string] => [text, text]));
}

/** 58 characters of the bech32 alphabet, both cases of which an age key may use. */
const AGE_BODY = "70".repeat(29);
const HEX32 = "0123456789abcdef0123456789abcdef";

test("age identities and recipients with a 58-character bech32 body are masked", () => {
  expectAll([
    [`generated AGE-SECRET-KEY-1${"K".repeat(29)}${"k".repeat(29)} ok`, "generated AGE-SE...kkkk ok"],
    [`AGE-SECRET-KEY-1${"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".repeat(2).slice(0, 58)}`, "AGE-SE...KHCE"],
    [`age1${AGE_BODY}`, "age170...7070"],
    [`recipient: age1${AGE_BODY}.`, "recipient: age170...7070."],
    [`age1${AGE_BODY.slice(0, 20)}\x1b${AGE_BODY.slice(20)}`, "age170...7070"],
  ]);
});

test("age-like text of another length, alphabet or position is left alone", () => {
  unchanged([
    `age1${AGE_BODY}7`,
    `age1${AGE_BODY.slice(1)}`,
    `age1${AGE_BODY}-x`,
    `xage1${AGE_BODY}`,
    `AGE-SECRET-KEY-1${"b".repeat(10)}${"i".repeat(10)}${"o".repeat(10)}${"K".repeat(28)}`,
    `age1${"1".repeat(58)}`,
    `AGE-SECRET-KEY-1${"B".repeat(58)}`,
    "the ages1 catalogued sites were visited",
    "AGE-SECRET-KEY-SHORT",
  ]);
});

test("a Zhipu key, 32 lower-case hex digits, a dot and 16+ letters or digits, is masked", () => {
  expectAll([
    [`key ${HEX32}.AbCdEfGhIjKlMnOpQr x`, "key 012345...OpQr x"],
    [`${HEX32}.AbCdEfGhIjKlMnOp`, "012345...MnOp"],
    [`"${HEX32}.AbCdEfGhIjKlMnOp"`, '"012345...MnOp"'],
    [`(${HEX32}.AbCdEfGhIjKlMnOp)`, "(012345...MnOp)"],
  ]);
});

test("hashes naming files and longer dotted ids are no Zhipu keys", () => {
  unchanged([
    `${HEX32}.AbCdEfGhIjKlMnO`,
    "d41d8cd98f00b204e9800998ecf8427e.sqlite3",
    `${HEX32.toUpperCase()}.AbCdEfGhIjKlMnOpQr`,
    `${HEX32.slice(1)}.AbCdEfGhIjKlMnOpQr`,
    `v.${HEX32}.AbCdEfGhIjKlMnOpQr`,
    `-${HEX32}.AbCdEfGhIjKlMnOpQr`,
    `_${HEX32}.AbCdEfGhIjKlMnOpQr`,
    `x${HEX32}.AbCdEfGhIjKlMnOpQr`,
    `${HEX32}.AbCdEfGhIjKlMnOpQr.txt`,
    `${HEX32}.AbCdEfGhIjKlMnOpQr-2`,
    `${HEX32}.AbCdEfGhIjKlMnOpQr_2`,
    `${HEX32}.AbCdEfGhIj_KlMnOpQr`,
    `${HEX32}..AbCdEfGhIjKlMnOpQr`,
  ]);
});

test("E.164 phone numbers keep their first and last four characters, short ones two", () => {
  expectAll([
    ["call +14155552671 now", "call +141****2671 now"],
    ["+14155552671", "+141****2671"],
    ["+12345678", "+123****5678"],
    ["+1234567", "+1****67"],
    ["+123456789012345", "+123****2345"],
    ["x+14155552671.", "x+141****2671."],
    ["+14155552671_x", "+141****2671_x"],
    ["tel:+442071838750,+14155552671", "tel:+442****8750,+141****2671"],
  ]);
  assert.equal(redactSecrets(redactSecrets("call +14155552671 now")), "call +141****2671 now");
});

test("a plus sign before too few or too many digits, a zero, or letters is no phone number", () => {
  unchanged([
    "+123456",
    "+0123456789",
    "+1234567890123456",
    "+14155552671abc",
    "2026-11-27T02:00:00+05:30",
    "2026-11-27T02:00:00+0530",
    "1 + 1234567 = x",
    "a+b",
  ]);
});

test("a password name masks a variable reference or path; other secret names keep them", () => {
  expectAll([
    ["DB_PASSWORD=$HOME/x", "DB_PASSWORD=***"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, meant literally
    ["MYSQL_PASS=${VAULT_PW}", "MYSQL_PASS=***"],
    ["DB_PW=/run/user/$UID/pw", "DB_PW=***"],
    ["PASSPHRASE=$HOME/x", "PASSPHRASE=***"],
    ["db_password: ~/secrets/db", "db_password: ***"],
    ['"password": "$DB_PASS"', '"password": "***"'],
  ]);
  unchanged([
    "API_TOKEN=$HOME/.config/token",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell reference, meant literally
    "API_KEY=${VAULT_KEY}",
    "API_KEY=$(gpgconf --list-dirs)",
    "GITHUB_TOKEN=/run/secrets/github",
    "SECRET_KEY=$A:$B",
    '"api_key": "$API_KEY"',
  ]);
  assert.deepEqual(redactObject({ password: "$HOME/x", apiKey: "$OPENAI_KEY", db_pw: "/etc/pw", token: "/run/t" }), {
    password: "***",
    apiKey: "$OPENAI_KEY",
    db_pw: "***",
    token: "/run/t",
  });
});

test("a value is a reference or path only as a whole, and a path segment may itself be a secret", () => {
  expectAll([
    ["API_KEY=$abc!def", "API_KEY=***"],
    ["API_KEY=${{", "API_KEY=***"],
    ["ADMIN_SECRET=$2b$10$abcdefghijk", "ADMIN_SECRET=$2b$10...hijk"],
    ["AWS_SECRET_ACCESS_KEY=/wJalrXUtnFEMIK7MDENG/bPxRfiCYEXAMPLEKEY", "AWS_SECRET_ACCESS_KEY=/wJalr...EKEY"],
  ]);
  unchanged(["AWS_SECRET_ACCESS_KEY=/home/user/.aws/secret_access_key.txt", "API_KEY=~/keys/openai.key"]);
});

test("a token right after an escape sequence of JSON text is masked; inside a word it is not", () => {
  expectAll([
    ['{"text":"line one\\nghp_abcdefghij1234567890"}', '{"text":"line one\\nghp_ab...7890"}'],
    ["\\tghp_abcdefghij1234567890", "\\tghp_ab...7890"],
    ["\\u00e9sk-proj-abc123def456ghi789", "\\u00e9sk-pro...i789"],
    ["\\x1bghp_abcdefghij1234567890", "\\x1bghp_ab...7890"],
  ]);
  unchanged([
    "myghp_abcdefghij1234567890",
    "\\u00eghp_abcdefghij1234567890",
    "\\x1ghp_abcdefghij1234567890",
    "n1ghp_abcdefghij1234567890",
  ]);
});

test("text with dots but no hex run before one, and no plus sign, is returned as it is", () => {
  const text = "The build finished in 12 seconds. Version 1.2.3 of deadbeef.txt shipped.";
  assert.equal(redactSecrets(text), text);
});
