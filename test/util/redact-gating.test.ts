import assert from "node:assert/strict";
import { test } from "node:test";
import { isSecretName, redactObject, redactSecrets } from "../../src/util/redact.js";

/** Each input and exactly what redaction makes of it. */
function expectAll(pairs: Array<[string, string]>): void {
  for (const [input, output] of pairs) assert.equal(redactSecrets(input), output, JSON.stringify(input));
}

function unchanged(texts: string[]): void {
  expectAll(texts.map((text): [string, string] => [text, text]));
}

test("an env lookup assigned to a secret name is code, not a secret", () => {
  unchanged([
    "MY_API_KEY=os.getenv('OPENAI_API_KEY')",
    'API_TOKEN=os.getenv("MY_API_TOKEN")',
    "HA_TOKEN=os.environ.get('HOMEASSISTANT_TOKEN')",
    "MY_SECRET=os.environ['MY_SECRET']",
    "api_key=process.env.API_KEY",
    "API_KEY=$ENV{KEY}",
    'api_key: os.getenv("OPENAI_API_KEY")',
  ]);
});

test("a name that merely starts with a secret word is not a secret name", () => {
  for (const name of ["token_count", "password_policy", "token_type", "secret_name"])
    assert.equal(isSecretName(name), false, name);
  for (const name of [
    "MY_TOKEN_COUNT",
    "secret_value",
    "raw_secret",
    "SECRET_TOKEN",
    "openai_key",
    "APIToken",
    "secrets",
  ]) {
    assert.equal(isSecretName(name), true, name);
  }
  unchanged([
    "/metrics?token_count=17&session_id=public",
    "password_policy=strict",
    "token_type: refresh_token1234567890",
  ]);
});

test("lower-case secret names are masked; a bare one only at the start of a line", () => {
  expectAll([
    ["password=hunter2hunter2", "password=***"],
    ["password='mysecretvalue123'", "password='***'"],
    ["openai_key=xyzzyplugh1234567890abcd", "openai_key=xyzzyp...abcd"],
    ["client_secret=abc", "client_secret=***"],
    ["  export password=x1", "  export password=***"],
    ["5|password=x1", "5|password=***"],
    ["I have password=foo and other things", "I have password=foo and other things"],
    ["foo_pass = hunter2hunter2", "foo_pass = hunter2hunter2"],
  ]);
});

test("dotted config keys holding a secret word are masked", () => {
  expectAll([
    ["spring.datasource.password=Sup3rS3cret!", "spring.datasource.password=***"],
    ["app.api.key=ak_live_998877", "app.api.key=***"],
    ["db.password=hunter2verylongpassword", "db.password=hunter...word"],
    ["server.port=8080\nspring.datasource.username=admin", "server.port=8080\nspring.datasource.username=admin"],
  ]);
});

test("YAML values under secret names are masked, also behind a line-number gutter", () => {
  expectAll([
    ["password: Sup3rS3cret!", "password: ***"],
    ["db_password: hunter2", "db_password: ***"],
    ["spring.datasource.password: hunter2", "spring.datasource.password: ***"],
    ["secrets: hunter2hunter2hunter2hh", "secrets: hunter...r2hh"],
    ["APIToken: abc123def456ghi789jklmn", "APIToken: abc123...klmn"],
    ["5|      ADS_API_TOKEN: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "5|      ADS_API_TOKEN: 9f8e7d...b1a0"],
    ["6:  db_password: x", "6:  db_password: ***"],
    ["7\tpassword: x", "7\tpassword: ***"],
    ["8-password: x", "8-password: ***"],
  ]);
});

test("a form body masks each secret pair and keeps the others", () => {
  expectAll([["password=mysecret&username=bob&token=opaqueValue", "password=***&username=bob&token=***"]]);
});

test("_PASS and _PW suffixes are secret, and an upper-case name may have spaces around '='", () => {
  expectAll([
    ["MYSQL_PASS=ghi789", "MYSQL_PASS=***"],
    ["DB_PW=jkl012", "DB_PW=***"],
    ["FOO_PASS = hunter2hunter2", "FOO_PASS = ***"],
    ["FOO_PASS\t=\thunter2hunter2", "FOO_PASS\t=\t***"],
  ]);
});

test("an Authorization header of any scheme is masked when its credential holds a digit", () => {
  expectAll([
    ["Authorization: Digest opaqueDigestValue1234567890", "Authorization: Digest opaque...7890"],
    ["Proxy-Authorization: Negotiate YIIabc123def456", "Proxy-Authorization: Negotiate ***"],
    ["Authorization: Digest abc123def45", "Authorization: Digest abc123def45"],
    [
      "Authorization: failed. Basic troubleshooting-step-1 applies",
      "Authorization: failed. Basic troubleshooting-step-1 applies",
    ],
  ]);
});

test("a secret field inside escaped JSON is masked at the same escape depth", () => {
  expectAll([
    [
      '{"output": "{\\"api_key\\": \\"q8Zr2LmNx4Vb7Tk1Pw9Hs3Jd\\"}"}',
      '{"output": "{\\"api_key\\": \\"q8Zr2L...s3Jd\\"}"}',
    ],
    ['"{\\\\\\"password\\\\\\": \\\\\\"hunter2\\\\\\"}"', '"{\\\\\\"password\\\\\\": \\\\\\"***\\\\\\"}"'],
    ['{\\"token\\": \\"CPU\\"}', '{\\"token\\": \\"CPU\\"}'],
  ]);
});

test("weak names mask only credential-looking values; strong names mask anything", () => {
  unchanged([
    'IDENTITY_TOKEN="bailu"',
    '{"token": "CPU"}',
    "token: CPU",
    "runtime.token=local",
    "per_layer_token_embd.weight=CPU",
  ]);
  expectAll([
    ["id_token=local", "id_token=***"],
    ['{"key_material": "CPU"}', '{"key_material": "***"}'],
    ['{"bearer": "local"}', '{"bearer": "***"}'],
    ["SECRET_TOKEN=bailu", "SECRET_TOKEN=***"],
    ["CUSTOM_TOKEN=opaqueValue123456789", "CUSTOM_TOKEN=opaque...6789"],
  ]);
});

test("a weak name's value looks like a credential when long hex, a long token run, or mixed at 12+", () => {
  expectAll([
    ["GITHUB_TOKEN=0123456789abcdef", "GITHUB_TOKEN=***"],
    ["GITHUB_TOKEN=abcdefghijklmnopqrst", "GITHUB_TOKEN=abcdef...qrst"],
    ["GITHUB_TOKEN=abcdefghijklmnopqrs", "GITHUB_TOKEN=abcdefghijklmnopqrs"],
    ["GITHUB_TOKEN=abcdefABCDEF", "GITHUB_TOKEN=***"],
    ["GITHUB_TOKEN=abcdefABCDE", "GITHUB_TOKEN=abcdefABCDE"],
    ["GITHUB_TOKEN=abcdef123456", "GITHUB_TOKEN=***"],
    ["GITHUB_TOKEN=ABCDEF123456", "GITHUB_TOKEN=***"],
    ["GITHUB_TOKEN=abcdefghijkl", "GITHUB_TOKEN=abcdefghijkl"],
    ["GITHUB_TOKEN=abcdefghij.kl mn", "GITHUB_TOKEN=abcdefghij.kl mn"],
  ]);
});

test("type names, empty markers and URLs under a secret name are left alone", () => {
  unchanged([
    "password: str",
    "token: null",
    "PASSWORD=None",
    "auth_token_url: https://x.test/a",
    "API_KEY=https://vault/x",
  ]);
});

test("redactObject applies the same gate to fields", () => {
  assert.deepEqual(
    redactObject({
      token: "CPU",
      api_key: "x",
      password: "p",
      token_count: "abcdefghijklmnopqrstuvwxyz",
      cache_key: "opaqueValue123456789",
    }),
    {
      token: "CPU",
      api_key: "***",
      password: "***",
      token_count: "abcdefghijklmnopqrstuvwxyz",
      cache_key: "opaque...6789",
    },
  );
});
