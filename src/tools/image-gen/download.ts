/**
 * Fetches a made image from the address a provider gave: http(s) within the caller's time limit
 * and size cap, or a `data:` URI decoded in place. Any failure is an ImageGenError.
 */

import { BodyTooLarge } from "../../util/read-capped.js";
import { scrub } from "./http.js";
import { ImageGenError, type ImageHttp } from "./types.js";

const DATA_URI = /^data:([^;,]*)(;base64)?,/i;

function fromDataUri(uri: string, maxBytes: number): Buffer {
  const head = DATA_URI.exec(uri);
  if (!head) throw new ImageGenError("the provider gave a data: address that could not be read");
  const payload = uri.slice(head[0].length);
  // Base64 holds three bytes in every four characters.
  const estimate = head[2] ? Math.floor((payload.length * 3) / 4) : payload.length;
  if (estimate > maxBytes) throw new ImageGenError(`the image is larger than ${maxBytes} bytes; nothing was saved`);
  return head[2] ? Buffer.from(payload, "base64") : Buffer.from(decodeURIComponent(payload), "latin1");
}

export async function downloadImage(
  http: ImageHttp,
  address: string,
  options: { signal: AbortSignal; maxBytes: number },
): Promise<Buffer> {
  if (address.startsWith("data:")) return fromDataUri(address, options.maxBytes);
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ImageGenError("the provider gave an image address that is not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ImageGenError(`the provider gave a ${url.protocol} image address; only http(s) is fetched`);
  }
  let answer: Awaited<ReturnType<ImageHttp>>;
  try {
    answer = await http(url.href, {
      method: "GET",
      headers: { accept: "image/png, image/jpeg, image/webp, */*;q=0.1" },
      signal: options.signal,
      maxBytes: options.maxBytes,
    });
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      throw new ImageGenError(`the image at ${url.host} is larger than ${error.maxBytes} bytes; nothing was saved`);
    }
    if (options.signal.aborted) throw new ImageGenError(`the image download from ${url.host} did not finish in time`);
    const message = error instanceof Error ? error.message : String(error);
    throw new ImageGenError(`could not download the image from ${url.host}: ${scrub(message, "")}`);
  }
  if (answer.status >= 400) {
    throw new ImageGenError(
      `downloading the image from ${url.host} failed (HTTP ${answer.status}); the link may have expired, so generate it again`,
    );
  }
  return answer.body;
}
