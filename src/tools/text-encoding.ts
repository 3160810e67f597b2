/**
 * How a text file is encoded, so the file tools can edit it without changing a byte they did
 * not mean to: UTF-8 (with or without a BOM), UTF-16 with a BOM, and otherwise an 8-bit
 * encoding read as windows-1252, whose 256 byte values map one-to-one to characters (a Latin-1
 * file round-trips exactly). Line endings are reported too: a file that uses CRLF throughout is
 * edited as LF text and written back with CRLF.
 */

export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";
export type LineEnding = "lf" | "crlf" | "mixed" | "none";

export interface TextFormat {
  encoding: TextEncoding;
  bom: boolean;
  lineEnding: LineEnding;
}

export interface DecodedText extends TextFormat {
  /** The text with the BOM removed; CRLF kept as it is in the file. */
  text: string;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export function lineEndingOf(text: string): LineEnding {
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = text.match(/\n/g)?.length ?? 0;
  if (lf === 0) return "none";
  if (crlf === lf) return "crlf";
  return crlf === 0 ? "lf" : "mixed";
}

/** Character → byte for windows-1252, built from the decoder itself so the two always agree. */
let win1252Bytes: Map<string, number> | undefined;
function win1252Table(): Map<string, number> {
  if (!win1252Bytes) {
    win1252Bytes = new Map();
    const decoder = new TextDecoder("windows-1252");
    for (let byte = 0; byte < 256; byte++) win1252Bytes.set(decoder.decode(Uint8Array.of(byte)), byte);
  }
  return win1252Bytes;
}

export function decodeText(bytes: Buffer): DecodedText {
  let encoding: TextEncoding;
  let bom = false;
  let text: string;
  if (bytes.subarray(0, 3).equals(UTF8_BOM)) {
    encoding = "utf-8";
    bom = true;
    text = new TextDecoder("utf-8").decode(bytes.subarray(3));
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = "utf-16le";
    bom = true;
    text = new TextDecoder("utf-16le").decode(bytes.subarray(2));
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    encoding = "utf-16be";
    bom = true;
    text = new TextDecoder("utf-16be").decode(bytes.subarray(2));
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      encoding = "utf-8";
    } catch {
      text = new TextDecoder("windows-1252").decode(bytes);
      encoding = "windows-1252";
    }
  }
  return { text, encoding, bom, lineEnding: lineEndingOf(text) };
}

/** The first character `encoding` cannot represent, or undefined when all can be written. */
export function unencodableCharacter(
  text: string,
  encoding: TextEncoding,
): { char: string; index: number } | undefined {
  if (encoding !== "windows-1252") return undefined;
  const table = win1252Table();
  let index = 0;
  for (const char of text) {
    if (!table.has(char)) return { char, index };
    index += char.length;
  }
  return undefined;
}

/** Bytes of `text` in `format`. Callers check unencodableCharacter first for windows-1252. */
export function encodeText(text: string, format: Pick<TextFormat, "encoding" | "bom">): Buffer {
  switch (format.encoding) {
    case "utf-8":
      return format.bom ? Buffer.concat([UTF8_BOM, Buffer.from(text, "utf8")]) : Buffer.from(text, "utf8");
    case "utf-16le":
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    case "utf-16be": {
      const body = Buffer.from(text, "utf16le");
      body.swap16();
      return Buffer.concat([Buffer.from([0xfe, 0xff]), body]);
    }
    case "windows-1252": {
      const table = win1252Table();
      const out: number[] = [];
      for (const char of text) {
        const byte = table.get(char);
        if (byte === undefined) throw new Error(`"${char}" cannot be written in windows-1252`);
        out.push(byte);
      }
      return Buffer.from(out);
    }
  }
}

/** Text as the model should see and edit it: LF only, when the file uses CRLF throughout. */
export function editableText(decoded: DecodedText): string {
  return decoded.lineEnding === "crlf" ? decoded.text.replace(/\r\n/g, "\n") : decoded.text;
}

/** Edited text back in the file's line-ending convention (CRLF files get CRLF on every line). */
export function withFileLineEndings(text: string, lineEnding: LineEnding): string {
  return lineEnding === "crlf" ? text.replace(/\r?\n/g, "\r\n") : text;
}

/** A short description for the model, or undefined for plain UTF-8 with LF. */
export function describeFormat(format: TextFormat): string | undefined {
  const parts: string[] = [];
  if (format.encoding === "windows-1252") {
    parts.push("not valid UTF-8: decoded as windows-1252 (Latin-1); edits keep that encoding");
  } else if (format.encoding !== "utf-8") {
    parts.push(`encoded as ${format.encoding.toUpperCase()}`);
  }
  if (format.bom && format.encoding === "utf-8") parts.push("starts with a UTF-8 byte-order mark (kept)");
  if (format.lineEnding === "crlf") parts.push("uses CRLF line endings (kept)");
  if (format.lineEnding === "mixed") parts.push("mixes CRLF and LF line endings");
  return parts.length > 0 ? `This file ${parts.join("; ")}.` : undefined;
}
