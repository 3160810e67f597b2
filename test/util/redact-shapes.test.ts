import assert from "node:assert/strict";
import { test } from "node:test";
import { redactSecrets } from "../../src/util/redact.js";

/** Each input and exactly what redaction makes of it. */
function expectAll(pairs: Array<[string, string]>): void {
  for (const [input, output] of pairs) assert.equal(redactSecrets(input), output, JSON.stringify(input));
}

test("Fireworks keys need 30 characters after fw-, fw_ or fpk_", () => {
  const body = "A".repeat(30);
  expectAll([
    [`fw-${body}`, "fw-AAA...AAAA"],
    [`fw_${body}`, "fw_AAA...AAAA"],
    [`fpk_${body}`, "fpk_AA...AAAA"],
    [`fw_${body.slice(1)}`, `fw_${body.slice(1)}`],
    ["fw-tooshort fw_tooshort fpk_tooshort", "fw-tooshort fw_tooshort fpk_tooshort"],
  ]);
});

test("every GitLab token family is masked from 10 body characters on; runner tokens may hold dots", () => {
  for (const prefix of [
    "glpat",
    "gloas",
    "gldt",
    "glcbt",
    "glptt",
    "glft",
    "glimt",
    "glagent",
    "glsoat",
    "glffct",
    "glwt",
  ]) {
    assert.equal(
      redactSecrets(`${prefix}-AbCdEfGhIjKlMnOpQrSt`),
      `${`${prefix}-AbCdEfGhIjKlMnOpQrSt`.slice(0, 6)}...QrSt`,
    );
    assert.equal(
      redactSecrets(`${prefix}-AbCdEfGhIj`),
      prefix.length + 11 < 18 ? "***" : `${prefix.slice(0, 6)}...GhIj`,
    );
    assert.equal(redactSecrets(`${prefix}-AbCdEfGhI`), `${prefix}-AbCdEfGhI`);
  }
  expectAll([
    ["glrt-AbCdEfGhIjKlMnOpQrStUvWxYz1.01.abcdefghi x", "glrt-A...fghi x"],
    ["glrtr-AbC.01.defghijk.", "glrtr-...hijk."],
    ["GR1348941AbCdEfGhIj", "GR1348...GhIj"],
    ["GR1348941AbCdEfGhI", "GR1348941AbCdEfGhI"],
    ["myglpat-AbCdEfGhIjKlMnOpQrSt", "myglpat-AbCdEfGhIjKlMnOpQrSt"],
    ["the glossary explains gitlab tokens", "the glossary explains gitlab tokens"],
  ]);
});

test("AgentMail keys have a 20-character body of letters and digits and end there", () => {
  expectAll([
    [`leaked am_${"a1".repeat(10)} here`, "leaked am_a1a...a1a1 here"],
    [`am_org_${"Zq7k".repeat(5)}`, "am_org...Zq7k"],
    [`am_${"a1".repeat(10)}_x`, `am_${"a1".repeat(10)}_x`],
    [`am_${"a1".repeat(9)}a`, `am_${"a1".repeat(9)}a`],
    ["schema.am_example_identifier_123", "schema.am_example_identifier_123"],
  ]);
});

test("xAI keys need 40 characters, ElevenLabs sk_ keys 30", () => {
  expectAll([
    [`xai-${"x".repeat(40)}`, "xai-xx...xxxx"],
    [`xai-${"x".repeat(39)}`, `xai-${"x".repeat(39)}`],
    [`with key sk_${"c".repeat(30)}`, "with key sk_ccc...cccc"],
    [`sk_${"c".repeat(29)}`, `sk_${"c".repeat(29)}`],
  ]);
});

test("an sk- key may hold single dots between its characters, but never ends on one", () => {
  expectAll([
    ["leaked sk-ws-H.EEPXREE.pFau.MEUCIQC6UnD-jj2aABCDEFGHIJKLMNOP here", "leaked sk-ws-...MNOP here"],
    ["key sk-proj1.abcdefghij. Next", "key sk-pro...ghij. Next"],
    ["sk-a..b1234567890", "sk-a..b1234567890"],
    ["text sk-abc.def here", "text sk-abc.def here"],
  ]);
});

test("known prefixes are masked from a 10-character body on", () => {
  expectAll([
    ["leaked ghp_abc123def4 here", "leaked *** here"],
    ["ghp_abc123def", "ghp_abc123def"],
    ["key pplx-abcdef1234 here", "key *** here"],
    ["pplx-abcdef123", "pplx-abcdef123"],
    ["hf_abcdef1234 npm_abcdef1234 gsk_abcdef1234", "*** *** ***"],
    ["bb_live_abcdef1234", "bb_liv...1234"],
    ["hsk-abcdef1234 mem0_abcdef1234 brv_abcdef1234", "*** *** ***"],
    ["retaindb_abcdef1234", "retain...1234"],
    ["pk-lf-abcd1234", "***"],
    ["pk-lf-abcd123", "pk-lf-abcd123"],
    ["gAAAAabcdefghijklmnopqrst", "gAAAAa...qrst"],
    ["gAAAAabcdefghijklmnopqrs", "gAAAAabcdefghijklmnopqrs"],
  ]);
});

test("a Telegram bot token keeps its bot id and loses everything after the colon", () => {
  expectAll([
    ["bot123456789:ABCDEfghij-KLMNopqrst_UVWXyz12345", "bot123456789:***"],
    ["x=12345678:ABCDEfghij-KLMNopqrst_UVWXyz12345", "x=12345678:***"],
    ["1234567:ABCDEfghij-KLMNopqrst_UVWXyz12345", "1234567:ABCDEfghij-KLMNopqrst_UVWXyz12345"],
    ["12345678:ABCDEfghij-KLMNopqrst_UVWXyz12", "12345678:***"],
    ["12345678:ABCDEfghij-KLMNopqrst_UVWXyz1", "12345678:ABCDEfghij-KLMNopqrst_UVWXyz1"],
  ]);
});

test("JWTs of one, two and three parts are masked; parts may end in '='", () => {
  expectAll([
    ["leaked header: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 here", "leaked header: eyJhbG...VCJ9 here"],
    ["before eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0 after", "before eyJhbG...wIn0 after"],
    ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0=.abc123def456ghij", "eyJhbG...ghij"],
    ["eyJhbGciOiJIU", "***"],
    ["eyJhbGciOiJI", "eyJhbGciOiJI"],
    ["eyJust a normal word", "eyJust a normal word"],
  ]);
});

test("a lone token of 8+ characters as URL userinfo is masked; a user name is not", () => {
  expectAll([
    [
      "git remote set-url origin https://MYPASSWORDWASDISLAYEDHERE@github.com/u/r.git",
      "git remote set-url origin https://MYPASS...HERE@github.com/u/r.git",
    ],
    ["ssh://longtoken1234567@gitlab.com/p.git", "ssh://***@gitlab.com/p.git"],
    ["ftp://abcd1234@h/x", "ftp://***@h/x"],
    ["ftp://abcd123@h/x", "ftp://abcd123@h/x"],
    ["https://git@github.com/user/repo.git", "https://git@github.com/user/repo.git"],
    ["https://example.com/search?q=user@example.com", "https://example.com/search?q=user@example.com"],
  ]);
});

test("a known token split by ESC, a zero-width space or a line break is still masked", () => {
  const tail = "1234567890ABCDEF1234567890abcdef";
  expectAll([
    [`ghp_abcdef\u200b${tail}`, "ghp_ab...cdef"],
    [`ghp_abcdef\u001b${tail}`, "ghp_ab...cdef"],
    [`xx ghp_abcdef\n${tail} yy`, "xx ghp_ab...cdef yy"],
  ]);
});

test("a split token is not joined to the next line when its first piece is a token already or a name follows", () => {
  expectAll([
    [`Token: ghp_${"F".repeat(29)}\nbutton [ref=e3]`, "Token: ghp_FF...FFFF\nbutton [ref=e3]"],
    ["ghp_abcdef\nMYKEY12345=1", "ghp_abcdef\nMYKEY12345=1"],
    ["ghp_abcdef\nnot a token, 1234567890", "ghp_abcdef\nnot a token, 1234567890"],
    ["xghp_abcdef\u200b1234567890", "xghp_abcdef\u200b1234567890"],
  ]);
});
