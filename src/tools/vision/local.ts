/** Reading an image from this machine, with the read checks the file tools apply. */
import { open, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { readRefusal, realLocation, resolveToolPath } from "../builtin/file-paths.js";
import { asImage } from "./image-type.js";
import { type ImageLoad, MAX_IMAGE_BYTES } from "./types.js";

/** The path a `file://` URL or a plain path names, relative paths resolved against `cwd`. */
export function localImagePath(input: string, cwd: string): string {
  return input.startsWith("file:") ? fileURLToPath(input) : resolveToolPath(input, cwd);
}

export async function readLocalImage(input: string, cwd: string, maxBytes = MAX_IMAGE_BYTES): Promise<ImageLoad> {
  let path: string;
  try {
    path = localImagePath(input, cwd);
  } catch (error) {
    return { ok: false, error: `${input} is not a usable file URL: ${(error as Error).message}` };
  }
  const real = realLocation(path);
  const refusal = readRefusal(real) ?? readRefusal(path);
  if (refusal) return { ok: false, error: refusal };
  let size: number;
  try {
    const info = await stat(real);
    if (!info.isFile()) return { ok: false, error: `${path} is not a regular file` };
    size = info.size;
  } catch {
    return { ok: false, error: `there is no file at ${path}` };
  }
  if (size > maxBytes) return { ok: false, error: `${path} is ${size} bytes; images may be at most ${maxBytes}` };
  // Read at most one byte past the cap, so a file growing after the stat cannot blow it.
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, "r");
  } catch (error) {
    return { ok: false, error: `reading ${path} failed: ${(error as Error).message}` };
  }
  try {
    const buffer = Buffer.alloc(Math.min(size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes) return { ok: false, error: `${path} is larger than ${maxBytes} bytes` };
    return asImage(buffer.subarray(0, bytesRead), path);
  } catch (error) {
    return { ok: false, error: `reading ${path} failed: ${(error as Error).message}` };
  } finally {
    await handle.close();
  }
}
