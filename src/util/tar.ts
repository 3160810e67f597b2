/**
 * The ustar archive format, as much of it as backups need: headers for files and directories
 * (a pax record carries a path longer than the 100 bytes a header holds), and a streaming reader
 * that reports every entry's kind, so the caller can refuse links and devices.
 */

const BLOCK = 512;
const NAME_BYTES = 100;
/** Long names and pax records are small; a larger one is a hostile or broken archive. */
const METADATA_MAX_BYTES = 1024 * 1024;
const TRUNCATED = "the archive ends in the middle of an entry (truncated download?)";

export type TarEntryKind = "file" | "directory" | "symlink" | "hardlink" | "device" | "fifo" | "other";

export interface TarHeader {
  path: string;
  kind: TarEntryKind;
  mode: number;
  size: number;
  /** Epoch seconds. */
  mtime: number;
}

export class TarFormatError extends Error {
  override name = "TarFormatError";
}

/** Two zero blocks end an archive. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

/** Zero bytes that bring an entry's body of `size` bytes to a whole block. */
export function tarPadding(size: number): Buffer {
  return Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);
}

function writeOctal(block: Buffer, value: number, offset: number, width: number): void {
  const digits = Math.floor(value).toString(8);
  if (digits.length < width) {
    block.write(`${digits.padStart(width - 1, "0")}\0`, offset, width, "latin1");
    return;
  }
  // Too large for octal digits: base-256, flagged by the high bit of the first byte.
  let rest = BigInt(Math.floor(value));
  for (let i = offset + width - 1; i > offset; i--) {
    block[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  block[offset] = 0x80;
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i]!;
  return sum;
}

function headerBlock(name: string, typeflag: string, mode: number, size: number, mtime: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  block.write(name, 0, NAME_BYTES, "utf8");
  writeOctal(block, mode & 0o7777, 100, 8);
  writeOctal(block, 0, 108, 8);
  writeOctal(block, 0, 116, 8);
  writeOctal(block, size, 124, 12);
  writeOctal(block, mtime, 136, 12);
  block.write(typeflag, 156, 1, "latin1");
  block.write("ustar\u000000", 257, 8, "latin1");
  block.write(`${checksum(block).toString(8).padStart(6, "0")}\0 `, 148, 8, "latin1");
  return block;
}

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length++;
  return `${length}${body}`;
}

/** The header block(s) of one entry; the body (files only) and its padding follow. */
export function tarHeader(entry: TarHeader): Buffer {
  if (entry.kind !== "file" && entry.kind !== "directory") {
    throw new TarFormatError(`cannot write a ${entry.kind} entry (${entry.path})`);
  }
  const name = entry.kind === "directory" && !entry.path.endsWith("/") ? `${entry.path}/` : entry.path;
  const typeflag = entry.kind === "directory" ? "5" : "0";
  const size = entry.kind === "file" ? entry.size : 0;
  const main = headerBlock(name, typeflag, entry.mode, size, entry.mtime);
  if (Buffer.byteLength(name) <= NAME_BYTES) return main;
  const pax = Buffer.from(paxRecord("path", name));
  return Buffer.concat([
    headerBlock("PaxHeader", "x", 0o644, pax.length, entry.mtime),
    pax,
    tarPadding(pax.length),
    main,
  ]);
}

/** Exact-length reads over a stream of chunks. */
class ChunkReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (at least one), or null at the end of the stream. */
  async some(max: number): Promise<Buffer | null> {
    if (this.buffered === 0) {
      const next = await this.source.next();
      if (next.done) return null;
      this.chunks.push(next.value);
      this.buffered += next.value.length;
    }
    const first = this.chunks[0]!;
    const taken = first.subarray(0, Math.min(max, first.length));
    if (taken.length === first.length) this.chunks.shift();
    else this.chunks[0] = first.subarray(taken.length);
    this.buffered -= taken.length;
    return taken;
  }

  /** Exactly `length` bytes; null at a clean end; an error when the stream stops midway. */
  async exactly(length: number): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    let got = 0;
    while (got < length) {
      const part = await this.some(length - got);
      if (!part) {
        if (got === 0) return null;
        throw new TarFormatError(TRUNCATED);
      }
      parts.push(part);
      got += part.length;
    }
    return Buffer.concat(parts);
  }
}

function readNumber(block: Buffer, offset: number, width: number): number {
  const field = block.subarray(offset, offset + width);
  if (field[0]! & 0x80) {
    let value = BigInt(field[0]! & 0x7f);
    for (let i = 1; i < width; i++) value = (value << 8n) | BigInt(field[i]!);
    return Number(value);
  }
  const text = field
    .toString("latin1")
    .replace(/[\0 ]+$/, "")
    .trim();
  if (text === "") return 0;
  if (!/^[0-7]+$/.test(text))
    throw new TarFormatError(`a header field holds ${JSON.stringify(text)}, not an octal number`);
  return Number.parseInt(text, 8);
}

function storedChecksum(block: Buffer): number | undefined {
  try {
    return readNumber(block, 148, 8);
  } catch {
    return undefined;
  }
}

function readString(block: Buffer, offset: number, width: number): string {
  const field = block.subarray(offset, offset + width);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? width : end).toString("utf8");
}

const KINDS: Record<string, TarEntryKind> = {
  "0": "file",
  "\0": "file",
  "7": "file",
  "5": "directory",
  "2": "symlink",
  "1": "hardlink",
  "3": "device",
  "4": "device",
  "6": "fifo",
};

function paxPath(body: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const space = body.indexOf(0x20, at);
    const length = space === -1 ? Number.NaN : Number(body.toString("latin1", at, space));
    if (!Number.isInteger(length) || length <= space - at || at + length > body.length) {
      throw new TarFormatError("a pax header of the archive is malformed");
    }
    const record = body.toString("utf8", space + 1, at + length - 1);
    const equals = record.indexOf("=");
    if (equals > 0 && record.slice(0, equals) === "path") path = record.slice(equals + 1);
    at += length;
  }
  return path;
}

export interface TarEntry extends TarHeader {
  /** The body; read it (or not) before asking for the next entry. */
  body(): AsyncGenerator<Buffer>;
}

/** The entries of an (uncompressed) tar stream, in order. */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry> {
  const reader = new ChunkReader(source[Symbol.asyncIterator]());
  let longPath: string | undefined;
  for (;;) {
    const block = await reader.exactly(BLOCK);
    if (!block || block.every((byte) => byte === 0)) return;
    if (storedChecksum(block) !== checksum(block)) {
      throw new TarFormatError("a header's checksum does not match: this is not a tar archive, or it is damaged");
    }
    const typeflag = block.toString("latin1", 156, 157);
    const size = readNumber(block, 124, 12);
    const padded = size + tarPadding(size).length;
    if (typeflag === "x" || typeflag === "g" || typeflag === "L") {
      if (size > METADATA_MAX_BYTES) throw new TarFormatError(`a metadata entry of ${size} bytes is not plausible`);
      const body = await reader.exactly(padded);
      if (!body) throw new TarFormatError(TRUNCATED);
      if (typeflag === "x") longPath = paxPath(body.subarray(0, size)) ?? longPath;
      if (typeflag === "L") longPath = readString(body, 0, size);
      continue;
    }
    const prefix = block.toString("latin1", 257, 262) === "ustar" ? readString(block, 345, 155) : "";
    const name = readString(block, 0, NAME_BYTES);
    const path = longPath ?? (prefix ? `${prefix}/${name}` : name);
    longPath = undefined;
    const kind = KINDS[typeflag] ?? "other";
    let remaining = padded;
    let bodyRead = false;
    yield {
      path,
      kind,
      mode: readNumber(block, 100, 8),
      size,
      mtime: readNumber(block, 136, 12),
      async *body() {
        if (bodyRead) throw new TarFormatError(`the body of ${path} was already read`);
        bodyRead = true;
        let unread = size;
        while (unread > 0) {
          const part = await reader.some(Math.min(unread, 64 * 1024));
          if (!part) throw new TarFormatError(TRUNCATED);
          unread -= part.length;
          remaining -= part.length;
          yield part;
        }
      },
    };
    while (remaining > 0) {
      const part = await reader.some(remaining);
      if (!part) throw new TarFormatError(TRUNCATED);
      remaining -= part.length;
    }
  }
}
