/** Recognising an image by its first bytes: a Content-Type header or a file name can lie. */
import type { ImageLoad, ImageMimeType } from "./types.js";

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((byte, i) => bytes[at + i] === byte);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The image type of `bytes` by their magic numbers, or null for anything else. */
export function detectImageType(bytes: Uint8Array): ImageMimeType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return null;
}

/** What the bytes seem to be instead, for the error message. */
function lookalike(bytes: Uint8Array): string {
  if (bytes.length === 0) return "it is empty";
  const head = Buffer.from(bytes.subarray(0, 64)).toString("utf8").trimStart().toLowerCase();
  if (head.startsWith("<")) return "it looks like HTML or XML (an error page or a web page, not the image itself?)";
  if (head.startsWith("{") || head.startsWith("[")) return "it looks like JSON";
  if (startsWith(bytes, ascii("%PDF"))) return "it is a PDF";
  return "its first bytes match none of them";
}

/** `bytes` as a loaded image, or why they are not one. `what` names them in the error. */
export function asImage(bytes: Buffer, what: string): ImageLoad {
  const mimeType = detectImageType(bytes);
  if (mimeType) return { ok: true, image: { bytes, mimeType } };
  return { ok: false, error: `${what} is not a PNG, JPEG, GIF or WebP image: ${lookalike(bytes)}` };
}

export function toDataUrl(image: { bytes: Uint8Array; mimeType: string }): string {
  return `data:${image.mimeType};base64,${Buffer.from(image.bytes).toString("base64")}`;
}
