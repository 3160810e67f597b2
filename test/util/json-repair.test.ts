import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { repairToolArguments } from "../../src/util/json-repair.js";

interface RepairCase {
  id: string;
  input: { args: [unknown, string?] };
  expect: {
    equals?: string;
    parsesTo?: unknown;
    validJson?: boolean;
    parsedFields?: Record<string, unknown>;
    parsedFieldContains?: Record<string, string>;
  };
}

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/hermes-cases/json-repair.json", import.meta.url), "utf8"),
) as { cases: RepairCase[] };

function parseObject(text: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  assert.ok(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), `not an object: ${text}`);
  return parsed as Record<string, unknown>;
}

for (const c of fixture.cases) {
  test(`json-repair case ${c.id}`, () => {
    const out = repairToolArguments(...c.input.args);
    assert.equal(typeof out, "string");
    const parsed = parseObject(out);
    const { expect } = c;
    if (expect.equals !== undefined) assert.equal(out, expect.equals);
    if (expect.parsesTo !== undefined) assert.deepEqual(parsed, expect.parsesTo);
    if (expect.parsedFields) {
      for (const [key, value] of Object.entries(expect.parsedFields)) assert.deepEqual(parsed[key], value, key);
    }
    if (expect.parsedFieldContains) {
      for (const [key, sub] of Object.entries(expect.parsedFieldContains)) {
        const field = parsed[key];
        assert.equal(typeof field, "string", key);
        assert.ok((field as string).includes(sub), `${key}=${String(field)} lacks ${sub}`);
      }
    }
  });
}

test("non-object JSON values become an empty object", () => {
  assert.equal(repairToolArguments("[1, 2]"), "{}");
  assert.equal(repairToolArguments("42"), "{}");
  assert.equal(repairToolArguments('"text"'), "{}");
  assert.equal(repairToolArguments({ a: 1 }), "{}");
  assert.equal(repairToolArguments("   \n\t"), "{}");
});

test("closes nested containers innermost first", () => {
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": {"b": [1, 2')), { a: { b: [1, 2] } });
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": [{"x": 1}, {"y": 2')), { a: [{ x: 1 }, { y: 2 }] });
});

test("a closer that skips an open bracket closes it first", () => {
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": [1, 2}')), { a: [1, 2] });
});

test("drops an incomplete trailing member but keeps the complete ones", () => {
  assert.deepEqual(JSON.parse(repairToolArguments('{"command": "ls", "timeout": 30, "background":')), {
    command: "ls",
    timeout: 30,
  });
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": 1, "b": tru')), { a: 1 });
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": 1, "b"')), { a: 1 });
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": {"b": 1, "c":')), { a: { b: 1 } });
});

test("trailing commas in nested objects and a tab inside a string", () => {
  assert.deepEqual(JSON.parse(repairToolArguments('{"a": {"b": 1,}, "c": "x\ty",}')), { a: { b: 1 }, c: "x\ty" });
});

test("cutting a truncated document keeps escaped and non-ASCII text before the cut intact", () => {
  const repaired = repairToolArguments('{"a": "x\ny\tz", "b": "\u{1F600} caf\u00e9", "c": tru');
  assert.deepEqual(JSON.parse(repaired), { a: "x\ny\tz", b: "\u{1F600} caf\u00e9" });
});

test("very deep nesting is not repaired", () => {
  assert.equal(repairToolArguments(`{"a": ${"[".repeat(10_000)}`), "{}");
});

test("content after the top-level object is not guessed at", () => {
  assert.equal(repairToolArguments('{"a": 1} and then prose'), "{}");
  assert.equal(repairToolArguments('Sure! {"a": 1}'), "{}");
});

test("escaped quotes inside strings do not end the string", () => {
  assert.deepEqual(JSON.parse(repairToolArguments('{"q": "say \\"hi\\"",}')), { q: 'say "hi"' });
});

test("valid input is returned unchanged", () => {
  const text = '{ "path" : "/tmp/x",\n  "n": 1 }';
  assert.equal(repairToolArguments(text), text);
});
