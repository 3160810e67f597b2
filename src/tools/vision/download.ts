/**
 * Downloading an image for vision_analyze: public addresses only (unless
 * `web.allow_private_urls`), the website blocklist, a time limit for the whole download, and a
 * size cap enforced while the body streams in. Redirects are followed by hand so every hop is
 * checked like the first URL.
 */
import { BodyTooLarge, readResponseCapped } from "../../util/read-capped.js";
import { privateUrlReason } from "../web/url-guard.js";
import { asImage } from "./image-type.js";
import { DEFAULT_DOWNLOAD_TIMEOUT_SECONDS, type ImageLoad, MAX_IMAGE_BYTES, MAX_IMAGE_REDIRECTS } from "./types.js";

export interface ImageDownloadOptions {
  /** Seconds the whole download may take (`auxiliary.vision.download_timeout`). */
  timeoutSeconds?: number;
  maxBytes?: number;
  /** `web.allow_private_urls`: also fetch private, loopback and link-local addresses. */
  allowPrivate?: boolean;
  /** Why a URL may not be fetched, or null (default: refuse private and local addresses). */
  checkUrl?: (url: URL) => Promise<string | null>;
  /** Why the website policy forbids a URL, or null; checked at every hop. */
  blocked?: (url: URL) => string | null;
}

const isHttp = (url: URL) => url.protocol === "http:" || url.protocol === "https:";

/** Fetches `url` hop by hop, checking each; the final response, or why it was refused. */
async function fetchChecked(
  url: URL,
  signal: AbortSignal,
  options: ImageDownloadOptions,
): Promise<{ response: Response } | { error: string }> {
  const check = options.checkUrl ?? ((target: URL) => privateUrlReason(target, undefined, "vision_analyze"));
  let current = url;
  for (let hop = 0; ; hop++) {
    const refusal = options.blocked?.(current) ?? (options.allowPrivate ? null : await check(current));
    if (refusal) return { error: hop === 0 ? refusal : `redirected to ${current.href}, which is refused: ${refusal}` };
    const response = await fetch(current, {
      redirect: "manual",
      headers: { "user-agent": "hermes-agent vision_analyze", accept: "image/*;q=0.9,*/*;q=0.5" },
      signal,
    });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || !location) return { response };
    await response.body?.cancel();
    if (hop >= MAX_IMAGE_REDIRECTS) return { error: `more than ${MAX_IMAGE_REDIRECTS} redirects` };
    current = new URL(location, current);
    if (!isHttp(current)) return { error: `redirected to a ${current.protocol} URL, which cannot be fetched` };
  }
}

export async function downloadImage(
  url: URL,
  signal: AbortSignal,
  options: ImageDownloadOptions = {},
): Promise<ImageLoad> {
  if (!isHttp(url)) return { ok: false, error: `only http and https URLs can be downloaded, not ${url.protocol}` };
  const seconds = options.timeoutSeconds ?? DEFAULT_DOWNLOAD_TIMEOUT_SECONDS;
  const maxBytes = options.maxBytes ?? MAX_IMAGE_BYTES;
  const timeout = AbortSignal.timeout(seconds * 1000);
  const signals = AbortSignal.any([signal, timeout]);
  try {
    const fetched = await fetchChecked(url, signals, options);
    if ("error" in fetched) return { ok: false, error: fetched.error };
    const { response } = fetched;
    if (!response.ok) {
      await response.body?.cancel();
      return { ok: false, error: `${url.href} answered HTTP ${response.status} ${response.statusText}`.trim() };
    }
    return asImage(await readResponseCapped(response, maxBytes), `what ${url.href} returned`);
  } catch (error) {
    if (error instanceof BodyTooLarge) {
      const size = error.declared !== undefined ? `${error.declared} bytes` : `more than ${maxBytes} bytes`;
      return { ok: false, error: `the image at ${url.href} is too large (${size}; at most ${maxBytes})` };
    }
    if (timeout.aborted) {
      return {
        ok: false,
        error: `downloading ${url.href} took longer than ${seconds}s (auxiliary.vision.download_timeout)`,
      };
    }
    if (signal.aborted) return { ok: false, error: "interrupted" };
    const cause = (error as Error & { cause?: Error }).cause?.message;
    return { ok: false, error: `downloading ${url.href} failed: ${cause ?? (error as Error).message}` };
  }
}
