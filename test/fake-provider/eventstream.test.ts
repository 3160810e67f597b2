/** The AWS event-stream framing used by the fake Bedrock converse-stream endpoint. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { crc32, decodeFrames, encodeEvent, encodeFrame, softwareCrc32 } from "./eventstream.js";

test("both CRC-32 implementations give the standard check value", () => {
  const check = new TextEncoder().encode("123456789");
  assert.equal(softwareCrc32(check), 0xcbf43926);
  assert.equal(crc32(check), 0xcbf43926);
  assert.equal(softwareCrc32(new Uint8Array()), 0);
});

test("a frame carries its lengths, headers and payload and survives a round trip", () => {
  const frame = encodeEvent("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "héllo" } });
  assert.equal(frame.readUInt32BE(0), frame.length);
  const decoded = decodeFrames(Buffer.concat([frame, encodeFrame({ a: "b" }, Buffer.from("x"))]));
  assert.deepEqual(decoded[0]?.headers, {
    ":event-type": "contentBlockDelta",
    ":content-type": "application/json",
    ":message-type": "event",
  });
  assert.deepEqual(JSON.parse(decoded[0]!.payload.toString()), { contentBlockIndex: 0, delta: { text: "héllo" } });
  assert.deepEqual(decoded[1]?.headers, { a: "b" });
});

test("decoding rejects a frame whose message CRC does not match", () => {
  const frame = encodeEvent("messageStop", { stopReason: "end_turn" });
  const at = frame.length - 6;
  frame.writeUInt8(frame.readUInt8(at) ^ 0xff, at);
  assert.throws(() => decodeFrames(frame), /message CRC mismatch/);
});
