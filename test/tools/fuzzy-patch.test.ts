import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type FuzzyReplaceResult, fuzzyFindAndReplace, unifiedDiff } from "../../src/tools/fuzzy-patch.js";

interface PatchCase {
  id: string;
  input: { args: [string, string, string, { replaceAll?: boolean }?] };
  expect: {
    fields?: Partial<FuzzyReplaceResult>;
    fieldContains?: Record<string, string[]>;
    fieldContainsCI?: Record<string, string[]>;
    notNull?: Array<keyof FuzzyReplaceResult>;
  };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/fuzzy-patch.json", import.meta.url), "utf8"),
) as { cases: PatchCase[] };

function field(result: FuzzyReplaceResult, name: string): string {
  const value = result[name as keyof FuzzyReplaceResult];
  assert.equal(typeof value, "string", `${name} is ${String(value)}`);
  return value as string;
}

for (const c of fixture.cases) {
  test(`fuzzy-patch case ${c.id}`, () => {
    const result = fuzzyFindAndReplace(...c.input.args);
    const { expect } = c;
    for (const [name, value] of Object.entries(expect.fields ?? {})) {
      assert.deepEqual(result[name as keyof FuzzyReplaceResult], value, name);
    }
    for (const [name, subs] of Object.entries(expect.fieldContains ?? {})) {
      for (const sub of subs) assert.ok(field(result, name).includes(sub), `${name} lacks ${JSON.stringify(sub)}`);
    }
    for (const [name, subs] of Object.entries(expect.fieldContainsCI ?? {})) {
      for (const sub of subs) assert.ok(field(result, name).toLowerCase().includes(sub.toLowerCase()), name);
    }
    for (const name of expect.notNull ?? []) assert.notEqual(result[name], null, name);
  });
}

test("line_trimmed matches lines whose surrounding whitespace differs and re-indents", () => {
  const content = "function f() {\n    if (x) {\n        go();\n    }\n}\n";
  const result = fuzzyFindAndReplace(content, "if (x) {\n    go();\n}", "if (y) {\n    stop();\n}");
  assert.equal(result.strategy, "line_trimmed");
  assert.equal(result.content, "function f() {\n    if (y) {\n        stop();\n    }\n}\n");
});

test("escape_normalized finds literal \\n sequences but writes the new text's \\n as it is", () => {
  const result = fuzzyFindAndReplace("a\nb\nc", "a\\nb", "x\\ny");
  assert.equal(result.strategy, "escape_normalized");
  assert.equal(result.content, "x\\ny\nc");
});

test("trimmed_boundary ignores whitespace around the old text", () => {
  const result = fuzzyFindAndReplace("call(a)", "\ncall(a)\n", "\ncall(b)\n");
  assert.equal(result.strategy, "trimmed_boundary");
  assert.equal(result.content, "call(b)");
});

test("block_anchor accepts a similar middle between matching first and last lines", () => {
  const content = "start\ndef compute(a, b):\n    total = a + b\n    return total\nend\n";
  const old = "def compute(a, b):\n    total = a+b  # sum\n    return total";
  const result = fuzzyFindAndReplace(content, old, "def compute(a, b):\n    return a + b");
  assert.equal(result.strategy, "block_anchor");
  assert.equal(result.content, "start\ndef compute(a, b):\n    return a + b\nend\n");
});

test("block_anchor rejects a middle that has nothing in common", () => {
  const content = "begin\nalpha beta gamma delta\nfinish\n";
  const result = fuzzyFindAndReplace(content, "begin\n0123456789 !!\nfinish", "x");
  assert.equal(result.count, 0);
  assert.notEqual(result.error, null);
});

test("context_aware finds a block by one anchor and most lines", () => {
  const content = "a()\nb()\nc()\nd()\n";
  const result = fuzzyFindAndReplace(content, "a()\nb()\nc()\nX()", "z()");
  assert.equal(result.strategy, "context_aware");
  assert.equal(result.content, "z()\n");
});

test("an ambiguous fuzzy match is an error naming the count, and replaceAll resolves it", () => {
  const content = "  x = 1\nmid\n  x = 1\n";
  const ambiguous = fuzzyFindAndReplace(content, "x = 1\n", "x = 2\n");
  assert.equal(ambiguous.count, 0);
  assert.equal(ambiguous.content, content);
  assert.match(ambiguous.error ?? "", /Found 2 matches/);
  const all = fuzzyFindAndReplace(content, "x = 1\n", "x = 2\n", { replaceAll: true });
  assert.equal(all.count, 2);
  assert.equal(all.content, "  x = 2\nmid\n  x = 2\n");
});

test("CRLF files are matched with LF old text and keep CRLF", () => {
  const result = fuzzyFindAndReplace("one\r\ntwo\r\nthree\r\n", "one\ntwo\n", "1\n2\n");
  assert.equal(result.content, "1\r\n2\r\nthree\r\n");
});

test("curly quotes in the file survive an edit typed with straight quotes", () => {
  const content = "say \u201chello\u201d to them";
  const result = fuzzyFindAndReplace(content, 'say "hello" to them', 'say "hello" to everyone');
  assert.equal(result.strategy, "unicode_normalized");
  assert.equal(result.content, "say \u201chello\u201d to everyone");
});

test("unifiedDiff returns nothing for equal texts and a header plus hunk otherwise", () => {
  assert.equal(unifiedDiff("same\n", "same\n", "f.txt"), "");
  assert.equal(
    unifiedDiff("a\nb\nc\n", "a\nB\nc\n", "f.txt"),
    "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
  );
});

test("unifiedDiff keeps distant changes in separate hunks and marks a missing final newline", () => {
  const oldLines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const newLines = [...oldLines];
  newLines[1] = "changed 2";
  newLines[17] = "changed 18";
  const diff = unifiedDiff(`${oldLines.join("\n")}\n`, newLines.join("\n"), "x");
  const headers = diff.split("\n").filter((l) => l.startsWith("@@"));
  assert.deepEqual(headers, ["@@ -1,5 +1,5 @@", "@@ -15,6 +15,6 @@"]);
  assert.ok(diff.endsWith("+line 20\n\\ No newline at end of file\n"));
});

test("unifiedDiff output applies with patch(1)", () => {
  const dir = mkdtempSync(join(os.tmpdir(), "hermes-diff-"));
  try {
    const before = Array.from({ length: 60 }, (_, i) => `row ${i % 7} ${i}`).join("\n") + "\n";
    const lines = before.split("\n");
    lines.splice(3, 2, "inserted a", "inserted b", "inserted c");
    lines.splice(30, 1);
    lines.splice(50, 0, "late addition");
    const after = lines.join("\n");
    writeFileSync(join(dir, "f.txt"), before);
    writeFileSync(join(dir, "f.diff"), unifiedDiff(before, after, "f.txt"));
    execFileSync("patch", ["-p1", "-s", "-i", "f.diff"], { cwd: dir });
    assert.equal(readFileSync(join(dir, "f.txt"), "utf8"), after);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("unifiedDiff handles pure insertions and deletions", () => {
  assert.equal(unifiedDiff("", "x\n", "n"), "--- a/n\n+++ b/n\n@@ -0,0 +1 @@\n+x\n");
  assert.equal(unifiedDiff("x\ny\n", "y\n", "n"), "--- a/n\n+++ b/n\n@@ -1,2 +1 @@\n-x\n y\n");
});
