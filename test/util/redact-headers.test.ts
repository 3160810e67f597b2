import assert from "node:assert/strict";
import { test } from "node:test";
import { redactSecrets } from "../../src/util/redact.js";

test("a bare token as userinfo is masked over http and ws as well as https and wss", () => {
  assert.equal(
    redactSecrets("git clone http://abcdef1234567@host.example/x.git"),
    "git clone http://***@host.example/x.git",
  );
  assert.equal(redactSecrets("connect ws://abcdef1234567@host.example/socket"), "connect ws://***@host.example/socket");
});

test("Authorization headers are found however they are spaced", () => {
  const cases: Array<[string, string]> = [
    ["Bearer  abcdef1234567890XYZ", "Bearer  abcdef...0XYZ"],
    ["authorization:Digest opaqueDigestValue1234567890", "authorization:Digest opaque...7890"],
    ["Authorization : Digest opaqueDigestValue1234567890", "Authorization : Digest opaque...7890"],
    ["Authorization: Digest  opaqueDigestValue1234567890", "Authorization: Digest  opaque...7890"],
    ["Authorization:Basic dXNlcjpwYXNzd29yZDEyMw==", "Authorization:Basic dXNlcj...Mw=="],
    ["Authorization : Basic dXNlcjpwYXNzd29yZDEyMw==", "Authorization : Basic dXNlcj...Mw=="],
  ];
  for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input);
});

test("a credential without a digit, or Basic outside a header, is left alone", () => {
  for (const text of [
    "Authorization: Digest opaqueDigestValueWithoutDigits",
    "Basic dXNlcjpwYXNzd29yZDEyMw== troubleshooting",
  ]) {
    assert.equal(redactSecrets(text), text);
  }
});

test("API-key headers are masked in curl commands, quoted or not, and their quotes stay", () => {
  const cases: Array<[string, string]> = [
    ["curl -H 'x-api-key: Q1w2E3r4T5y6U7i8O9p0' https://a.test", "curl -H 'x-api-key: Q1w2E3...O9p0' https://a.test"],
    ['curl -H "X-Goog-Api-Key: Q1w2E3r4T5y6U7i8O9p0"', 'curl -H "X-Goog-Api-Key: Q1w2E3...O9p0"'],
    ["X-Auth-Token:Q1w2E3r4T5y6U7i8O9p0", "X-Auth-Token:Q1w2E3...O9p0"],
    ['{"headers": "x-access-token: shortone"}', '{"headers": "x-access-token: ***"}'],
  ];
  for (const [input, expected] of cases) assert.equal(redactSecrets(input), expected, input);
  for (const text of ["Monkey: banana", "x-api-keys-rotated: weekly"]) assert.equal(redactSecrets(text), text);
});
