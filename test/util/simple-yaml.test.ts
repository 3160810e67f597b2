import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { parse } from "yaml";
import { readSimpleYaml } from "../../src/util/simple-yaml.js";

/** What the full parser makes of `text`, or "error" when it refuses it. */
function fullParse(text: string): unknown {
  try {
    return parse(text, { logLevel: "error" });
  } catch {
    return "error";
  }
}

/** Asserts the simple reader either declines `text` or agrees with the full parser; returns whether it read it. */
function agrees(text: string): boolean {
  const simple = readSimpleYaml(text);
  if (simple === undefined) return false;
  assert.deepStrictEqual(simple, fullParse(text), `simple reader differs on ${JSON.stringify(text)}`);
  return true;
}

test("reads the bundled skills' front matter exactly as the yaml package does", () => {
  const root = new URL("../../skills/software-development/", import.meta.url);
  const names = readdirSync(root);
  assert.ok(names.length >= 4);
  for (const name of names) {
    const text = readFileSync(new URL(`${name}/SKILL.md`, root), "utf8");
    const frontmatter = text.slice(3, text.indexOf("\n---", 3));
    assert.ok(agrees(frontmatter), `${name} needed the full parser`);
  }
});

test("reads plain, quoted and listed strings, nested mappings and comments", () => {
  const read = [
    "name: x\ndescription: Fix C# code, fast:really",
    "version: 1.0.0\nauthor: Ann O'Neil",
    "description: 'It''s \"quoted\" # not a comment'",
    'description: "single \' inside, colon: here"',
    "description: \u00a0padded with no-break spaces\u00a0",
    "tags: [a, 'b, c', \"d]\", e f]",
    "tags: []\nother: [ ]",
    "platforms:\n  - linux\n  -   'macos'\nname: y",
    "platforms:\n- linux\n- windows\nname: y",
    "metadata:\n  hermes:\n    tags: [git]\n\n    category: dev\n  other: x\nname: z",
    "# leading comment\n\nname: a\n  # indented comment\ndescription: b",
    "empty:\nname: x",
    "url: http://x.example:8080/a?b=c\nratio: 12:30\nemoji: ok 😀",
    "values: [+, ., e5, ~x, 1.2.3, 0x1g, Infinity]",
  ];
  for (const text of read) assert.ok(agrees(text), `declined ${JSON.stringify(text)}`);
});

test("reads nulls, booleans, decimal numbers and trailing comments in block values", () => {
  const read = [
    "version: 1.0\ncount: 3\nratio: 0.25\nneg: -7\nzero: 0\nbig: 123456789012345",
    "a: true\nb: False\nc: TRUE\nd: null\ne: ~\nf: Null\ng:",
    "comment: value # trailing\nquoted: 'x' # note\ndq: \"y\"   # note\nnum: 5 # five",
    "list:\n  - 1\n  - true\n  - ~\n  - text # why\nafter: 2.50",
    "compression:\n  enabled: true\n  threshold: 0.5\nmodel:\n  default: anthropic/claude-opus-4.6\n  provider: openrouter",
  ];
  for (const text of read) assert.ok(agrees(text), `declined ${JSON.stringify(text)}`);
});

test("declines what it cannot read exactly, so the full parser decides", () => {
  const declined = [
    "hex: 0x1F",
    "octal: 0o17",
    "exp: 1e3",
    "plus: +1",
    "lead: 007",
    "negzero: -0",
    "negzero: -0.0",
    "dot: .5",
    "trail: 5.",
    "under: 1_000",
    "yes: True\nquoted: 'x'# glued",
    "flowcomment: [a, b] # c",
    "inf: .inf",
    'escaped: "a\\nb"',
    "block: |\n  text",
    "folded: >\n  text",
    "anchor: &a x",
    "alias: *a",
    "tagged: !!str 1",
    "multi: first\n  second",
    "flow: {a: b}",
    "list: [a, b,]",
    "list: [a, [b]]",
    "list: [1, 2]",
    "dash: -x",
    "key:value",
    "dup: a\ndup: b",
    "true: yes",
    "__proto__: x",
    "tab:\tx",
    "crlf: x\r\nother: y",
    "  indented: top",
    "a:\n  b: c\n d: e",
    "seq:\n  - a\n  b: c",
    "seq:\n  - a\n    b",
    "seq:\n  - key: value",
    "seq:\n  -",
    "unclosed: 'abc",
    "'quoted key': x",
    "? complex\n: key",
    "%YAML 1.2\n---\nx: y",
    "",
    "# only a comment",
  ];
  for (const text of declined) assert.equal(readSimpleYaml(text), undefined, JSON.stringify(text));
});

/** mulberry32: a small seeded generator, so a failing input can be reproduced. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = ["name", "description", "version", "a", "b-c", "_x", "tags", "Name"];
const ODD_KEYS = ["True", "null", "k.x", "1", "name"];
const PIECES = [
  "a",
  "word",
  " ",
  "  ",
  ":",
  ": ",
  "#",
  " #",
  ",",
  "[",
  "]",
  "{",
  "}",
  "'",
  "''",
  '"',
  "\\",
  "-",
  "- ",
  "?",
  "!",
  "&",
  "*",
  "|",
  ">",
  "%",
  "@",
  "`",
  "~",
  ".",
  "0",
  "1",
  "1.0",
  "-3",
  "0.25",
  "007",
  "-0",
  "1e3",
  " # c",
  "True",
  "FALSE",
  "Null",
  "e",
  "x",
  "true",
  "null",
  "\u00a0",
  "é",
  "😀",
  "\t",
];

/** Pieces that rarely make a value special, so many documents stay inside the simple subset. */
const TAME = [
  "a",
  "word",
  " ",
  "x",
  "1",
  ".",
  "é",
  "😀",
  "\u00a0",
  "-",
  "'",
  "e",
  ":",
  "#",
  "2",
  "0.5",
  "true",
  " # c",
];

function randomValue(next: () => number): string {
  const pieces = next() < 0.5 ? TAME : PIECES;
  let text = "";
  const count = 1 + Math.floor(next() * 5);
  for (let i = 0; i < count; i++) text += pieces[Math.floor(next() * pieces.length)];
  return text;
}

function randomDocument(next: () => number): string {
  const lines: string[] = [];
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const entries = 1 + Math.floor(next() * 3);
  for (let e = 0; e < entries; e++) {
    const indent = next() < 0.95 ? "" : " ";
    const key = next() < 0.9 ? pick(KEYS) : pick(ODD_KEYS);
    const shape = next();
    if (shape < 0.45) lines.push(`${indent}${key}: ${randomValue(next)}`);
    else if (shape < 0.6) lines.push(`${indent}${key}: "${randomValue(next)}"`);
    else if (shape < 0.7) lines.push(`${indent}${key}: '${randomValue(next)}'`);
    else if (shape < 0.8) lines.push(`${indent}${key}: [${randomValue(next)}, ${randomValue(next)}]`);
    else if (shape < 0.9) {
      lines.push(`${indent}${key}:`);
      const itemIndent = pick(["", "  ", "    "]);
      for (let i = 0; i < 1 + Math.floor(next() * 3); i++) lines.push(`${itemIndent}- ${randomValue(next)}`);
    } else {
      lines.push(`${indent}${key}:`);
      for (let i = 0; i < 1 + Math.floor(next() * 3); i++) lines.push(`  ${pick(KEYS)}: ${randomValue(next)}`);
    }
    if (next() < 0.1) lines.push(pick(["", "# note", "   # note", "  "]));
  }
  return lines.join("\n");
}

test("on thousands of generated documents the reader either declines or agrees with the yaml package", () => {
  const next = generator(20_240_611);
  let read = 0;
  const total = 4000;
  for (let i = 0; i < total; i++) if (agrees(randomDocument(next))) read++;
  // The generator is meant to be hostile; still, a fair share must go through the simple reader.
  assert.ok(read > total / 10, `only ${read} of ${total} documents were read`);
});
