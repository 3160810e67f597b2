import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { redactSecrets, TOKEN_SHAPES } from "../../src/util/redact.js";
import { SHORTEST_TOKEN } from "../../src/util/redact-split.js";

const TAIL = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0";
/** The 58 characters of an age key body, from the bech32 alphabet. */
const BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".repeat(2).slice(0, 58);

/** One token per shape, in table order. */
const EXAMPLES = [
  `sk-proj-${TAIL}`,
  `sk_live_${TAIL}`,
  `sk_${TAIL}`,
  `ghs_${TAIL}`,
  `github_pat_${TAIL}`,
  `glpat-${TAIL}`,
  `glrtr-${TAIL}`,
  `GR1348941${TAIL}`,
  `xoxb-${TAIL}`,
  `xapp-${TAIL}`,
  "ASIAIOSFODNN7EXAMPLE",
  `AGE-SECRET-KEY-1${BECH32}`,
  `age1${BECH32.toLowerCase()}`,
  `AIza${TAIL}`,
  `ya29.${TAIL}`,
  `1//${TAIL}`,
  `hf_${TAIL}`,
  `r8_${TAIL}`,
  `npm_${TAIL}`,
  `pypi-${TAIL}`,
  `dop_v1_${TAIL}`,
  `gsk_${TAIL}`,
  `pplx-${TAIL}`,
  `fal_${TAIL}`,
  `ntn_${TAIL}`,
  `tvly-${TAIL}`,
  `fc-${TAIL}`,
  `exa_${TAIL}`,
  `syt_${TAIL}`,
  `SG.${TAIL}.${TAIL}`,
  `bb_live_${TAIL}`,
  `gAAAA${TAIL}`,
  `hsk-${TAIL}`,
  `mem0_${TAIL}`,
  `brv_${TAIL}`,
  `retaindb_${TAIL}`,
  `pk-lf-${TAIL}`,
  `am_org_${TAIL}`,
  `xai-${TAIL}`,
  `fpk_${TAIL}`,
  `eyJ${TAIL}.eyJ${TAIL}.${TAIL}`,
  `123456789:AA${TAIL}`,
];

function matches(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  const found = pattern.test(text);
  pattern.lastIndex = 0;
  return found;
}

test("every token-shape keyword is a literal piece of its pattern", () => {
  for (const { keywords, pattern } of TOKEN_SHAPES) {
    const literal = pattern.source.replace(/\\([^a-zA-Z0-9])/g, "$1");
    assert.ok(keywords.length > 0, pattern.source);
    for (const word of keywords) assert.ok(literal.includes(word), `"${word}" is not in ${pattern.source}`);
  }
});

test("every token shape has an example that it matches and that holds one of its keywords", () => {
  assert.equal(EXAMPLES.length, TOKEN_SHAPES.length);
  TOKEN_SHAPES.forEach(({ keywords, pattern }, i) => {
    const example = EXAMPLES[i]!;
    assert.ok(matches(pattern, example), `${pattern.source} misses ${example}`);
    assert.ok(
      keywords.some((word) => example.includes(word)),
      `${example} has none of ${keywords}`,
    );
    assert.ok(!redactSecrets(`token ${example} here`).includes(TAIL.slice(6, 30)), example);
  });
});

test("no token shape matches text that lacks all of its keywords", () => {
  const fixture = JSON.parse(
    readFileSync(new URL("../fixtures/hermes-cases/redaction.json", import.meta.url), "utf8"),
  ) as { cases: Array<{ input: { args: [string] } }> };
  const corpus = [
    ...EXAMPLES,
    ...fixture.cases.map((c) => c.input.args[0]),
    readFileSync(import.meta.filename, "utf8"),
  ];
  for (const text of corpus) {
    for (const { keywords, pattern } of TOKEN_SHAPES) {
      if (matches(pattern, text))
        assert.ok(
          keywords.some((word) => text.includes(word)),
          `${pattern.source}: ${text}`,
        );
    }
  }
});

test("passes skipped for lack of a literal still run, in any letter case, when it is there", () => {
  assert.equal(redactSecrets("AUTHORIZATION: BEARER abc123def456ghi789jkl"), "AUTHORIZATION: BEARER abc123...9jkl");
  assert.equal(redactSecrets("authorization: token abc123def456ghi789jkl"), "authorization: token abc123...9jkl");
  assert.equal(redactSecrets("HTTPS://u:pw12345@host/x"), "HTTPS://u:***@host/x");
  assert.equal(redactSecrets("{'password': 'hunter2hunter2'}"), "{'password': '***'}");
  assert.equal(redactSecrets("  api_token: 9f8e7d6c5b4a3f2e1d0c"), "  api_token: 9f8e7d...1d0c");
  assert.equal(redactSecrets("GET /x?sig=abcdef0123456789abcd"), "GET /x?sig=abcdef...abcd");
  assert.equal(redactSecrets('{"output":"hello-bench\\n","exit_code":0}'), '{"output":"hello-bench\\n","exit_code":0}');
});

/** The sources of the regular expressions that `redactSecrets(text)` runs as replace passes. */
function passesRunOn(text: string): string[] {
  const original = RegExp.prototype[Symbol.replace];
  const sources: string[] = [];
  RegExp.prototype[Symbol.replace] = function (this: RegExp, ...args: unknown[]) {
    sources.push(this.source);
    return Reflect.apply(original, this, args) as string;
  } as typeof original;
  try {
    redactSecrets(text);
  } finally {
    RegExp.prototype[Symbol.replace] = original;
  }
  return sources;
}

test("text without any pass's literal runs no pass at all; each literal brings its own pass back", () => {
  for (const text of [
    "hello world",
    "The build finished in 12 seconds.\nAll 48 files were formatted.",
    // A name pass needs a secret word on the line.
    "a = b\nsay 'hi'",
  ]) {
    assert.deepEqual(passesRunOn(text), [], text);
  }
  // A URL pass needs an `@` on the line of the `://`, a YAML pass a secret word on the line.
  const colonPasses = /:\\\/\\\/|\[ \\t\]\*:/;
  for (const text of ["see https://example.com\nmail me@example.com", "note: hi"]) {
    assert.deepEqual(
      passesRunOn(text).filter((source) => colonPasses.test(source)),
      [],
      text,
    );
  }
  const triggers: Array<[string, RegExp]> = [
    ["-----BEGIN PRIVATE KEY-----", /PRIVATE KEY/],
    ["see https://me@example.com", /:\\\/\\\//],
    ["api_key = b", /=/],
    ['say "token"', /\["'\]/],
    ["say 'token'", /\["'\]/],
    ["token: hi", /\[ \\t\]\*:/],
    ["bearer", /Bearer\|Basic\|Token/],
    ["basic", /Bearer\|Basic\|Token/],
    ["token", /Bearer\|Basic\|Token/],
  ];
  for (const [text, pass] of triggers) {
    const run = passesRunOn(text);
    assert.ok(
      run.some((source) => pass.test(source)),
      `${JSON.stringify(text)} ran ${JSON.stringify(run)}`,
    );
  }
  TOKEN_SHAPES.forEach(({ keywords, pattern }) => {
    for (const word of keywords) {
      assert.ok(passesRunOn(`x ${word} y`).includes(pattern.source), word);
    }
  });
});

test("no token shape matches fewer characters than the split-token search looks at", () => {
  TOKEN_SHAPES.forEach(({ pattern }, i) => {
    const example = EXAMPLES[i]!;
    let shortest = example.length;
    for (let length = example.length; length > 0; length--) {
      if (matches(pattern, example.slice(0, length))) shortest = length;
    }
    assert.ok(shortest >= SHORTEST_TOKEN, `${pattern.source} matches ${example.slice(0, shortest)}`);
  });
});
