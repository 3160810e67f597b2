/**
 * AWS event-stream binary framing (`application/vnd.amazon.eventstream`):
 * [total length u32][headers length u32][prelude CRC32][headers][payload][message CRC32],
 * all integers big-endian; each header is [name length u8][name][type u8 = 7 string][length u16][value].
 */
import zlib from "node:zlib";

const PRELUDE_BYTES = 8;
const STRING_HEADER = 7;

let table: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3) computed in JavaScript, for Node versions without `zlib.crc32`. */
export function softwareCrc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const nativeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

export function crc32(data: Uint8Array): number {
  return nativeCrc32 ? nativeCrc32(data) >>> 0 : softwareCrc32(data);
}

export function encodeFrame(headers: Record<string, string>, payload: Uint8Array): Buffer {
  const headerParts = Object.entries(headers).map(([name, value]) => {
    const nameBytes = Buffer.from(name, "utf8");
    const valueBytes = Buffer.from(value, "utf8");
    const part = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
    part.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(part, 1);
    part.writeUInt8(STRING_HEADER, 1 + nameBytes.length);
    part.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    valueBytes.copy(part, 4 + nameBytes.length);
    return part;
  });
  const headerBytes = Buffer.concat(headerParts);
  const total = PRELUDE_BYTES + 4 + headerBytes.length + payload.length + 4;
  const frame = Buffer.alloc(total);
  frame.writeUInt32BE(total, 0);
  frame.writeUInt32BE(headerBytes.length, 4);
  frame.writeUInt32BE(crc32(frame.subarray(0, PRELUDE_BYTES)), PRELUDE_BYTES);
  headerBytes.copy(frame, 12);
  Buffer.from(payload).copy(frame, 12 + headerBytes.length);
  frame.writeUInt32BE(crc32(frame.subarray(0, total - 4)), total - 4);
  return frame;
}

/** An `event` message of the given type with a JSON payload (a string payload is sent verbatim). */
export function encodeEvent(eventType: string, payload: unknown): Buffer {
  const text = typeof payload === "string" ? payload : JSON.stringify(payload);
  const headers = { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" };
  return encodeFrame(headers, Buffer.from(text, "utf8"));
}

export interface DecodedFrame {
  headers: Record<string, string>;
  payload: Buffer;
}

/** Splits a buffer of whole frames, checking both CRCs; string headers only. */
export function decodeFrames(data: Uint8Array): DecodedFrame[] {
  const buffer = Buffer.from(data);
  const frames: DecodedFrame[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const total = buffer.readUInt32BE(offset);
    const headersLength = buffer.readUInt32BE(offset + 4);
    const frame = buffer.subarray(offset, offset + total);
    if (frame.length < total) throw new Error(`truncated frame at byte ${offset}`);
    if (crc32(frame.subarray(0, PRELUDE_BYTES)) !== frame.readUInt32BE(PRELUDE_BYTES)) {
      throw new Error(`prelude CRC mismatch at byte ${offset}`);
    }
    if (crc32(frame.subarray(0, total - 4)) !== frame.readUInt32BE(total - 4)) {
      throw new Error(`message CRC mismatch at byte ${offset}`);
    }
    const headers: Record<string, string> = {};
    let at = 12;
    const headersEnd = 12 + headersLength;
    while (at < headersEnd) {
      const nameLength = frame.readUInt8(at);
      const name = frame.toString("utf8", at + 1, at + 1 + nameLength);
      const type = frame.readUInt8(at + 1 + nameLength);
      if (type !== STRING_HEADER) throw new Error(`unsupported header type ${type}`);
      const valueLength = frame.readUInt16BE(at + 2 + nameLength);
      const valueStart = at + 4 + nameLength;
      headers[name] = frame.toString("utf8", valueStart, valueStart + valueLength);
      at = valueStart + valueLength;
    }
    frames.push({ headers, payload: frame.subarray(headersEnd, total - 4) });
    offset += total;
  }
  return frames;
}
