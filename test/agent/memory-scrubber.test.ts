import assert from "node:assert/strict";
import { test } from "node:test";
import { fenceMemoryContext, MemoryContextScrubber, stripMemoryContext } from "../../src/agent/memory-scrubber.js";

function scrub(chunks: string[]): string {
  const scrubber = new MemoryContextScrubber();
  return chunks.map((chunk) => scrubber.feed(chunk)).join("") + scrubber.flush();
}

test("strips fenced memory from a finished text, including an unclosed fence at the end", () => {
  assert.equal(stripMemoryContext("a <memory-context>x</memory-context>  b"), "a b");
  assert.equal(stripMemoryContext("a <MEMORY-CONTEXT>x</Memory-Context>\nb"), "a b");
  assert.equal(stripMemoryContext("keep <memory-context>half"), "keep ");
});

test("the streaming scrubber hides a fence however the text is cut into chunks", () => {
  const text =
    "Hello <memory-context>\nsecret: the vault code is 1234\n</memory-context>\nworld <memory-context>two</memory-context>!";
  const expected = stripMemoryContext(text);
  assert.equal(expected, "Hello world !");
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j += 3) {
      const visible = scrub([text.slice(0, i), text.slice(i, j), text.slice(j)]);
      assert.equal(visible, expected, `cut at ${i} and ${j}`);
    }
  }
  assert.equal(scrub([...text]), expected, "one character per chunk");
});

test("text that only looks like the start of a tag is released, at the latest on flush", () => {
  const scrubber = new MemoryContextScrubber();
  assert.equal(scrubber.feed("a <memo"), "a ");
  assert.equal(scrubber.feed("randum"), "<memorandum");
  assert.equal(scrubber.feed(" x <mem"), " x ");
  assert.equal(scrubber.flush(), "<mem");
});

test("an unclosed fence hides the rest of the stream", () => {
  assert.equal(scrub(["before <memory-con", "text>recalled", " facts"]), "before ");
});

test("fencing labels recalled memory as background and drops nested fences", () => {
  const fenced = fenceMemoryContext("The user is Ada.<memory-context>old</memory-context>");
  assert.ok(fenced.startsWith("<memory-context>\n"));
  assert.ok(fenced.endsWith("\n</memory-context>"));
  assert.match(fenced, /not a new message from the user/);
  assert.equal(fenced.match(/<memory-context>/g)?.length, 1);
  assert.equal(fenceMemoryContext("   "), "");
});
