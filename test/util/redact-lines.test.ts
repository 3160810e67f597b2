import assert from "node:assert/strict";
import { test } from "node:test";
import { redactSecrets } from "../../src/util/redact.js";
import { linesContaining, linesWith, replaceOnLines } from "../../src/util/redact-lines.js";

const TEXT = "alpha\nbeta key\n\ngamma key key\ndelta";

test("linesWith and linesContaining give each line holding a hit once, in order", () => {
  const spans = linesWith(TEXT, /key/g);
  assert.deepEqual(
    spans.map(([start, end]) => TEXT.slice(start, end)),
    ["beta key", "gamma key key"],
  );
  assert.deepEqual(linesContaining(TEXT, "a"), linesWith(TEXT, /a/g));
  assert.deepEqual(
    linesContaining(TEXT, "a").map(([start, end]) => TEXT.slice(start, end)),
    ["alpha", "beta key", "gamma key key", "delta"],
  );
  assert.deepEqual(linesWith("no hit here", /key/g), []);
  assert.deepEqual(linesContaining("last line key", "key"), [[0, 13]]);
});

test("replaceOnLines changes only the given lines and hands the replacer line-local offsets", () => {
  const filler = "x".repeat(200);
  const text = `${filler}\nbeta key\n${filler}\ngamma key key\n${filler}`;
  const offsets: number[] = [];
  const out = replaceOnLines(text, linesWith(text, /key/g), /key/g, (match: string, offset: number, line: string) => {
    offsets.push(offset);
    assert.equal(line.slice(offset, offset + match.length), match);
    return "KEY";
  });
  assert.equal(out, `${filler}\nbeta KEY\n${filler}\ngamma KEY KEY\n${filler}`);
  assert.deepEqual(offsets, [5, 6, 10]);
  assert.equal(
    replaceOnLines(text, [[0, 5]], /key/g, () => "x"),
    text,
  );
  assert.equal(
    replaceOnLines(text, [], /x/g, () => "y"),
    text,
  );
});

test("when the lines make up most of the text, one pass over it gives the same result", () => {
  const text = Array.from({ length: 50 }, (_, i) => `line ${i} key=${i}`).join("\n");
  const lines = linesWith(text, /key/g);
  assert.equal(lines.length, 50);
  const upper = (match: string) => match.toUpperCase();
  assert.equal(replaceOnLines(text, lines, /key=\d+/g, upper), text.replace(/key=\d+/g, upper));
});

test("secrets deep in a long multi-line text are found on their own lines", () => {
  const filler = Array.from(
    { length: 400 },
    (_, i) => `line ${i}: nothing to see (${i * 7}) at https://example.com/${i}`,
  );
  filler[37] = "export API_KEY=abcdef1234567890abcdef";
  filler[120] = "  password: hunter2hunter2";
  filler[250] = "clone https://ghuser:s3cretpassw0rd@example.com/repo.git";
  filler[300] = "callback ?access_token=abcdef1234567890&page=2";
  filler[399] = "call +14155552671 or +4930123456, not x1+2=3";
  const out = redactSecrets(filler.join("\n")).split("\n");
  assert.equal(out[37], "export API_KEY=abcdef...cdef");
  assert.equal(out[120], "  password: ***");
  assert.equal(out[250], "clone https://ghuser:***@example.com/repo.git");
  assert.equal(out[300], "callback ?access_token=***&page=2");
  assert.equal(out[399], "call +141****2671 or +493****3456, not x1+2=3");
  assert.deepEqual(
    out.filter((_, i) => ![37, 120, 250, 300, 399].includes(i)),
    filler.filter((_, i) => ![37, 120, 250, 300, 399].includes(i)),
  );
});

test("a token wrapped across lines among many other wrapped lines is masked where it is", () => {
  const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
  // Lines ending and starting in token characters would be joined too: these are wrapped in brackets.
  const words = Array.from({ length: 200 }, (_, i) => `(word ${i}, wrapped\nonto the next line)`);
  // The first piece is too short to be a token on its own, so the two are joined.
  const text = `${words.join("\n")}\n${token.slice(0, 8)}\n${token.slice(8)}\n${words.join("\n")}`;
  const out = redactSecrets(text);
  assert.ok(!out.includes(token.slice(8, 30)), "the second piece is hidden");
  assert.ok(out.startsWith(`${words.join("\n")}\n`));
  assert.ok(out.endsWith(`\n${words.join("\n")}`));
});
