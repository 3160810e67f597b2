/**
 * Writing a made image: its bytes must start like a PNG, JPEG or WebP file (whatever the server
 * claimed its type was), and the file takes the extension of what it really is, so the gateway
 * sends it as an image.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ImageType {
  mime: "image/png" | "image/jpeg" | "image/webp";
  extension: ".png" | ".jpg" | ".webp";
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The image type the first bytes show, or undefined for anything else. */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return { mime: "image/png", extension: ".png" };
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { mime: "image/jpeg", extension: ".jpg" };
  }
  if (bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") {
    return { mime: "image/webp", extension: ".webp" };
  }
  return undefined;
}

/** A short printable look at bytes that are not an image, for the error. */
export function describeBytes(bytes: Buffer): string {
  if (bytes.length === 0) return "nothing";
  const head = bytes.subarray(0, 24).toString("latin1");
  const printable = /^[\x20-\x7e\t\r\n]*$/.test(head);
  return printable
    ? JSON.stringify(head.replaceAll(/\s+/g, " ").trim())
    : `bytes ${bytes.subarray(0, 8).toString("hex")}`;
}

/** Writes the image as a new `image_<time>_<random>` file in `dir`; answers its path. */
export function saveImage(dir: string, bytes: Buffer, type: ImageType): string {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replaceAll(/[-:]/g, "").replace("T", "_").slice(0, 15);
  const path = join(dir, `image_${stamp}_${randomBytes(3).toString("hex")}${type.extension}`);
  writeFileSync(path, bytes, { flag: "wx" });
  return path;
}
