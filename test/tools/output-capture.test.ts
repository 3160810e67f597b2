import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { cleanTerminalOutput, HeadTailBuffer, RingBuffer, stripAnsi } from "../../src/tools/output-capture.js";

describe("output capture", () => {
  test("strips colour codes, OSC titles and cursor moves", () => {
    assert.equal(stripAnsi("\u001b[1;31mred\u001b[0m \u001b]0;title\u0007plain\u001b[2K"), "red plain");
  });

  test("collapses carriage-return progress lines to their last state", () => {
    assert.equal(cleanTerminalOutput("10%\r50%\r100%\ndone\r\n"), "100%\ndone\n");
  });

  test("HeadTailBuffer keeps everything while under its size", () => {
    const buffer = new HeadTailBuffer(5, 5);
    buffer.append("abc");
    buffer.append("defg");
    assert.equal(buffer.text(), "abcdefg");
  });

  test("HeadTailBuffer keeps the head and tail and marks the dropped middle", () => {
    const buffer = new HeadTailBuffer(4, 6);
    for (let i = 0; i < 100; i++) buffer.append("0123456789");
    const text = buffer.text();
    assert.ok(text.startsWith("0123"));
    assert.ok(text.endsWith("456789"));
    assert.match(text, /output truncated: 990 characters removed of 1000/);
    assert.equal(buffer.totalChars, 1000);
  });

  test("RingBuffer drops the oldest text and keeps absolute offsets", () => {
    const ring = new RingBuffer(5);
    ring.append("abc");
    const mark = ring.end;
    ring.append("defgh");
    assert.equal(ring.text(), "defgh");
    assert.equal(ring.droppedChars, 3);
    assert.equal(ring.since(mark), "defgh");
    assert.equal(ring.since(6), "gh");
    assert.equal(ring.since(ring.end), "");
  });
});
