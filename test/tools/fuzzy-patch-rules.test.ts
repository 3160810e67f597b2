import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { describeLocations, escapeDriftError, suspiciousIndentError } from "../../src/tools/fuzzy-guards.js";
import { fuzzyFindAndReplace } from "../../src/tools/fuzzy-patch.js";
import { foldText } from "../../src/util/folded-text.js";

const NOT_FOUND =
  "Could not find old_string in the file, even allowing for whitespace, indentation and typography differences. Read the file again and copy the text exactly.";

const refused = (content: string, error: string) => ({ content, count: 0, strategy: null, error });
const replaced = (content: string, strategy: string, count = 1) => ({ content, count, strategy, error: null });

describe("old text that is only whitespace", () => {
  test("is refused before any search", () => {
    const content = "alpha\n   \nbeta\n";
    const error = "old_string is only whitespace, which matches too loosely: give non-blank text to replace";
    assert.deepEqual(fuzzyFindAndReplace(content, "   ", "XXX"), refused(content, error));
    assert.deepEqual(fuzzyFindAndReplace(content, "\n\t\n", "XXX", { replaceAll: true }), refused(content, error));
  });
});

describe("tabs and carriage returns sent as backslash sequences", () => {
  test("\\t becomes a tab when the replaced text has a tab, whatever strategy matched", () => {
    assert.deepEqual(
      fuzzyFindAndReplace('\tprint("before")', '\tprint("before")', '\\tprint("after")'),
      replaced('\tprint("after")', "exact"),
    );
    assert.deepEqual(
      fuzzyFindAndReplace(
        'def hello():\n\tprint("before")\n',
        'def hello():\n\\tprint("before")\n',
        'def hello():\n\\tprint("after")\n',
      ),
      replaced('def hello():\n\tprint("after")\n', "escape_normalized"),
    );
  });
  test("\\n is never converted, even next to a converted \\t", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("def foo():\n\tpass\n", "def foo():\n\tpass\n", "def bar():\\n\\treturn 1\\n"),
      replaced("def bar():\\n\treturn 1\\n", "exact"),
    );
  });
  test("a file that spells out \\t keeps the new text's \\t", () => {
    assert.deepEqual(
      fuzzyFindAndReplace('sep = "\\t"\n', 'sep = "\\t"', 'sep = "\\tab"'),
      replaced('sep = "\\tab"\n', "exact"),
    );
  });
  test("\\r becomes a carriage return only when the replaced text has one", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("line1\r\nline2\r\n", "line1\\r\\nline2\\r\\n", "replaced\\r\\n"),
      replaced("replaced\r\\n", "escape_normalized"),
    );
    assert.deepEqual(fuzzyFindAndReplace("\ta\n", "\ta", "\\tb\\r"), replaced("\tb\\r\n", "exact"));
  });
});

describe("escaped quotes", () => {
  test("are not unescaped to find a match; a file without them gets an escape-drift error", () => {
    const content = "x = 'a'\n";
    assert.deepEqual(
      fuzzyFindAndReplace(content, "x = \\'a\\'", "x = \\'b\\'"),
      refused(
        content,
        "Escape-drift: old_string contains \\' but the file has no such sequence there; a backslash was probably added in front of the quote in transit. Read the file again and send the text with plain ' characters, without backslashes.",
      ),
    );
    assert.match(
      fuzzyFindAndReplace('say("hi")', 'say(\\"hi\\")', 'say(\\"bye\\")').error!,
      /^Escape-drift: old_string and new_string contain \\"/,
    );
  });
  test("a similar match is refused when both texts carry an escape the matched text lacks", () => {
    const content = "def f():\n    x = 'a'\n    return x\n";
    const old = "def f():\n    x = \\'a\\'\n    return x";
    assert.deepEqual(
      fuzzyFindAndReplace(content, old, "def f():\n    x = \\'b\\'\n    return x"),
      refused(
        content,
        "Escape-drift: old_string and new_string contain \\' but the file has no such sequence there; a backslash was probably added in front of the quote in transit. Read the file again and send the text with plain ' characters, without backslashes.",
      ),
    );
    assert.deepEqual(
      fuzzyFindAndReplace(content, old, "def f():\n    x = 'b'\n    return x"),
      replaced("def f():\n    x = 'b'\n    return x\n", "block_anchor"),
    );
  });
  test("escapes the matched text has are kept", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("line\n  x = \\'a\\'\nline", "line\nx = \\'a\\'\nline", "line\nx = \\'b\\'\nline"),
      replaced("line\nx = \\'b\\'\nline", "line_trimmed"),
    );
  });
  test("the guard itself", () => {
    assert.equal(escapeDriftError("x = \\'a\\'", "x = \\'a\\'", "x = \\'b\\'"), null);
    assert.equal(escapeDriftError("x = 'a'", "x = 'a'", "x = \\'b\\'"), null);
    assert.equal(escapeDriftError("x = 'a'", "x = \\'a\\'", "x = 'b'"), null);
    assert.equal(escapeDriftError("plain", "plain"), null);
  });
});

describe("typography folding", () => {
  test("ideographic and other typographic spaces match an ASCII space, and stay in the file", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("標題\u3000第一章\nbody text\n", "標題 第一章", "標題 第二章"),
      replaced("標題\u3000第二章\nbody text\n", "unicode_normalized"),
    );
    for (const space of ["\u2000", "\u2001", "\u2004", "\u2005", "\u2006", "\u2008", "\u200a", "\u205f", "\u3000"]) {
      assert.equal(foldText(`a${space}b`), "a b", `U+${space.codePointAt(0)!.toString(16)}`);
      assert.deepEqual(
        fuzzyFindAndReplace(`a${space}b = 1;`, "a b = 1;", "a b = 2;"),
        replaced(`a${space}b = 2;`, "unicode_normalized"),
      );
    }
  });
  test("the older folds still apply", () => {
    assert.equal(foldText("\u201cx\u201d \u2014 \u2026\u00a0"), '"x" -- ... ');
  });
  test("the replaced middle takes the file's typographic characters for multi-character stand-ins", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("one \u2014 two \u2014 three", "one -- two -- three", "one -- 2 -- three"),
      replaced("one \u2014 2 \u2014 three", "unicode_normalized"),
    );
  });
});

describe("whitespace_normalized", () => {
  test("collapses spaces and tabs", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("foo \t bar\nbaz", "foo bar", "X"),
      replaced("X\nbaz", "whitespace_normalized"),
    );
  });
  test("never lets a space stand for a line break", () => {
    assert.deepEqual(fuzzyFindAndReplace("foo\nbar", "foo bar", "X"), refused("foo\nbar", NOT_FOUND));
    assert.deepEqual(fuzzyFindAndReplace("foo \nbar", "foo bar", "X"), refused("foo \nbar", NOT_FOUND));
  });
});

describe("ambiguous matches", () => {
  test("the error lists each place as L<line>: <line text>", () => {
    const content = "def foo():\n    pass\ndef bar():\n    return 1\n";
    assert.deepEqual(
      fuzzyFindAndReplace(content, "def ", "x "),
      refused(
        content,
        "Found 2 matches for old_string. Provide more context (neighbouring lines) to make it unique, or use replace_all=true to change every one. Matches:\n  L1: def foo():\n  L3: def bar():",
      ),
    );
  });
  test("five places at most, long lines cut", () => {
    const content = Array.from({ length: 7 }, (_, i) => `  item ${i}`).join("\n");
    const starts = [...content.matchAll(/item/g)].map((m) => m.index!);
    assert.equal(
      describeLocations(content, starts),
      "  L1: item 0\n  L2: item 1\n  L3: item 2\n  L4: item 3\n  L5: item 4\n  ... and 2 more",
    );
    const long = `x${"y".repeat(100)}`;
    assert.equal(describeLocations(`a\n${long}`, [2]), `  L2: ${long.slice(0, 77)}...`);
    assert.equal(describeLocations(`a\n${long.slice(0, 80)}`, [2]), `  L2: ${long.slice(0, 80)}`);
    assert.equal(
      describeLocations(`a\n${long}`, [5, 90]),
      `  L2: ${long.slice(0, 77)}...\n  L2: ${long.slice(0, 77)}...`,
    );
  });
});

describe("indentation guard", () => {
  const crlf =
    "if (cd >= bestD) continue;\r\n        if (data.cells[cand[0] + ',' + cand[1]] === 'OBSTACLE') continue;\r\n        bestD = cd; best = cand;\r\n";
  const old =
    "if (cd >= bestD) continue;\n        if (data.cells[cand[0] + ',' + cand[1]] === 'OBSTACLE') continue;\n        bestD = cd; best = cand;";

  test("new lines deeper than any old line, with no block opened, are refused when the match was not verbatim", () => {
    const slip =
      "if (cd >= bestD) continue;\n                const ck = 1;\n                const k = 2;\n        bestD = cd; best = cand;";
    assert.deepEqual(
      fuzzyFindAndReplace(crlf, old, slip),
      refused(
        crlf,
        "Suspicious indentation in new_string: 2 line(s) are indented more than the 8 column(s) of old_string's deepest line, yet neither text opens a block with ':', '{' or '('. Fix the indentation of \"const ck = 1;\" and try again.",
      ),
    );
    const lf = crlf.replaceAll("\r\n", "\n");
    assert.match(fuzzyFindAndReplace(lf, old.replaceAll("        ", "    "), slip).error!, /^Suspicious indentation/);
  });
  test("the same depth passes, and a verbatim match is trusted", () => {
    const same = "if (cd >= bestD) continue;\n        const ck = 1;\n        bestD = cd; best = cand;";
    assert.deepEqual(
      fuzzyFindAndReplace(crlf, old, same),
      replaced("if (cd >= bestD) continue;\r\n        const ck = 1;\r\n        bestD = cd; best = cand;\r\n", "exact"),
    );
    assert.deepEqual(
      fuzzyFindAndReplace("a = 1\nb = 2\n", "a = 1", "a = 1\n    c = 3"),
      replaced("a = 1\n    c = 3\nb = 2\n", "exact"),
    );
  });
  test("a block opener in either text allows deeper lines", () => {
    assert.equal(suspiciousIndentError("a = 1\nb = 2", "a = 1\nif a > 0:\n    b = 2"), null);
    assert.equal(suspiciousIndentError("f(\n  x)", "f(\n      x)"), null);
    assert.equal(suspiciousIndentError("a = 1", "a = 1 {  \n    b"), null);
    assert.match(suspiciousIndentError("a = 1", "a = 1\n    b")!, /^Suspicious indentation in new_string: 1 line\(s\)/);
    assert.equal(suspiciousIndentError("  a", "  b\n  c"), null);
    assert.equal(suspiciousIndentError("a", "\n\n"), null);
  });
});

describe("similarity for one- and two-line old text", () => {
  test("every line at least 80% similar matches, as the last resort", () => {
    assert.deepEqual(
      fuzzyFindAndReplace(
        "const value = computeTotal(a)\n",
        "const value = computeTotl(a)",
        "const value = computeTotal(b)",
      ),
      replaced("const value = computeTotal(b)\n", "context_aware"),
    );
    assert.deepEqual(
      fuzzyFindAndReplace(
        "  alpha = one(1)\n  beta = two(2)\nend\n",
        "alpha = one(1)\nbeta = tw(2)",
        "alpha = 1\nbeta = 2",
      ),
      replaced("  alpha = 1\n  beta = 2\nend\n", "context_aware"),
    );
  });
  test("the 80% bound", () => {
    assert.deepEqual(fuzzyFindAndReplace("abcde fghij\n", "abcde fghXY", "Q"), replaced("Q\n", "context_aware"));
    assert.deepEqual(fuzzyFindAndReplace("abcde\n", "abcdX", "Q"), replaced("Q\n", "context_aware"));
    assert.deepEqual(fuzzyFindAndReplace("abcde fghij\n", "abcde fgXYZ", "Q"), refused("abcde fghij\n", NOT_FOUND));
    assert.deepEqual(fuzzyFindAndReplace("abcde\nxyz\n", "abcde\nxqq", "Q"), refused("abcde\nxyz\n", NOT_FOUND));
  });
  test("line endings: a final newline is consumed, a CR is kept", () => {
    assert.deepEqual(
      fuzzyFindAndReplace("const value = computeTotal(a)\nnext\n", "const value = computeTotl(a)\n", "X\n"),
      replaced("X\nnext\n", "context_aware"),
    );
    assert.deepEqual(
      fuzzyFindAndReplace("foo = computeTotal(a)\r\nnext\r\n", "foo = computeTotl(a)", "foo = 1"),
      replaced("foo = 1\r\nnext\r\n", "context_aware"),
    );
  });
  test("replace_all refuses several approximate matches", () => {
    const content = "value = computeTotal(a)\nother\nvalue = computeTotal(a)\n";
    assert.deepEqual(
      fuzzyFindAndReplace(content, "value = computeTotl(a)", "v = 0", { replaceAll: true }),
      refused(
        content,
        "Found 2 approximate matches (context_aware); replace_all only applies to text that matches exactly. Give the precise text, whitespace included.",
      ),
    );
    assert.match(
      fuzzyFindAndReplace(content, "value = computeTotl(a)", "v = 0").error!,
      /^Found 2 matches for old_string\./,
    );
    assert.deepEqual(
      fuzzyFindAndReplace(content, "value = computeTotal(a)", "v = 0", { replaceAll: true }),
      replaced("v = 0\nother\nv = 0\n", "exact", 2),
    );
  });
});
