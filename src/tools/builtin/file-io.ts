/** Low-level file helpers for the file tools: binary sniffing, text encodings and atomic writes. */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { extname } from "node:path";
import { atomicWriteFile } from "../../util/atomic-write.js";
import {
  type DecodedText,
  decodeText,
  editableText,
  encodeText,
  type TextFormat,
  unencodableCharacter,
  withFileLineEndings,
} from "../text-encoding.js";

const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".tiff", ".tif", ".heic"]);
const BINARY_EXTENSIONS = new Set([
  ...IMAGE_EXTENSIONS,
  ".pdf",
  ".zip",
  ".gz",
  ".tgz",
  ".bz2",
  ".xz",
  ".zst",
  ".7z",
  ".rar",
  ".tar",
  ".jar",
  ".war",
  ".exe",
  ".dll",
  ".so",
  ".dylib",
  ".o",
  ".a",
  ".class",
  ".pyc",
  ".wasm",
  ".bin",
  ".dat",
  ".db",
  ".sqlite",
  ".sqlite3",
  ".mp3",
  ".mp4",
  ".m4a",
  ".wav",
  ".flac",
  ".ogg",
  ".avi",
  ".mov",
  ".mkv",
  ".webm",
  ".woff",
  ".woff2",
  ".ttf",
  ".otf",
  ".eot",
  ".psd",
  ".docx",
  ".xlsx",
  ".pptx",
  ".odt",
]);

export function isImagePath(path: string): boolean {
  return IMAGE_EXTENSIONS.has(extname(path).toLowerCase());
}

export function hasBinaryExtension(path: string): boolean {
  return BINARY_EXTENSIONS.has(extname(path).toLowerCase());
}

/** A sample looks binary when it holds a NUL byte or mostly control characters (UTF-16 with a BOM is text). */
export function looksBinary(sample: Buffer): boolean {
  if (sample.length === 0) return false;
  if ((sample[0] === 0xff && sample[1] === 0xfe) || (sample[0] === 0xfe && sample[1] === 0xff)) return false;
  let control = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 8 || (byte > 13 && byte < 32 && byte !== 27)) control++;
  }
  return control / sample.length > 0.1;
}

/** Read the first `size` bytes of a file. */
export function readHead(path: string, size = 8192): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(size);
    const read = readSync(fd, buffer, 0, size, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

export function isBinaryFile(path: string): boolean {
  if (hasBinaryExtension(path)) return true;
  try {
    return looksBinary(readHead(path));
  } catch {
    return false;
  }
}

/**
 * Replaces a file the agent edits in one step, keeping its mode (an executable script stays
 * executable); the directory must exist.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  atomicWriteFile(path, content, { keepMode: true, durable: false, createDirectories: false });
}

/** A text file as the file tools edit it: LF text when the file is CRLF throughout, and its format. */
export interface EditableFile {
  text: string;
  format: TextFormat;
  decoded: DecodedText;
}

export function readEditableFile(path: string): EditableFile {
  const decoded = decodeText(readFileSync(path));
  return {
    text: editableText(decoded),
    format: { encoding: decoded.encoding, bom: decoded.bom, lineEnding: decoded.lineEnding },
    decoded,
  };
}

/** New files are UTF-8 with LF line endings. */
export const NEW_FILE_FORMAT: TextFormat = { encoding: "utf-8", bom: false, lineEnding: "lf" };

/**
 * Edited text as bytes in the file's own format, or why it cannot be: a character the file's
 * 8-bit encoding has no byte for (nothing is written then).
 */
export function encodeForFile(text: string, format: TextFormat): { bytes: Buffer } | { error: string } {
  const body = withFileLineEndings(text, format.lineEnding);
  const bad = unencodableCharacter(body, format.encoding);
  if (bad) {
    const code = `U+${bad.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
    return {
      error:
        `the file is encoded as ${format.encoding}, which has no byte for "${bad.char}" (${code}); nothing was written. ` +
        "Use a character the encoding has, or convert the file to UTF-8 first (e.g. iconv -f windows-1252 -t utf-8).",
    };
  }
  return { bytes: encodeText(body, format) };
}

/** A short message for a Node filesystem error, for the model to act on. */
export function describeFsError(error: unknown, path: string): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case "ENOENT":
      return `File not found: ${path}`;
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${path}`;
    case "EISDIR":
      return `${path} is a directory, not a file`;
    case "ENOTDIR":
      return `A parent of ${path} is not a directory`;
    case "ENOSPC":
      return `No space left on the device while writing ${path}`;
    default:
      return `${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export function json(value: unknown): string {
  return JSON.stringify(value);
}
