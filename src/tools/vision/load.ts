/** An image named by the model: an http(s) URL to download, or a file on this machine. */
import { downloadImage, type ImageDownloadOptions } from "./download.js";
import { readLocalImage } from "./local.js";
import type { ImageLoad } from "./types.js";

export async function loadImage(
  imageUrl: string,
  cwd: string,
  signal: AbortSignal,
  download: ImageDownloadOptions = {},
): Promise<ImageLoad> {
  const input = imageUrl.trim();
  if (/^https?:\/\//i.test(input)) {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return { ok: false, error: `${input} is not a valid URL` };
    }
    return downloadImage(url, signal, download);
  }
  if (/^data:/i.test(input)) {
    return { ok: false, error: "data: URLs are not accepted; save the image to a file and pass its path" };
  }
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(input) && !/^file:\/\//i.test(input)) {
    return { ok: false, error: `${input.split(":")[0]} URLs are not supported: give an http(s) URL or a local path` };
  }
  return readLocalImage(input, cwd);
}
