/**
 * What vision_analyze and the gateway's image descriptions share: the limits, the image they
 * load, and the analyzer the runtime injects (tools never reach a model client themselves).
 */

/** The largest image vision_analyze loads, from a URL or a file. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** `auxiliary.vision.download_timeout`'s default, in seconds. */
export const DEFAULT_DOWNLOAD_TIMEOUT_SECONDS = 30;
/** Redirects one download follows, each checked like the first URL. */
export const MAX_IMAGE_REDIRECTS = 5;
export const DEFAULT_VISION_QUESTION =
  "Describe this image in detail: what it shows, any text in it (quoted exactly), and anything notable.";

export type ImageMimeType = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface LoadedImage {
  bytes: Buffer;
  mimeType: ImageMimeType;
}

export type ImageLoad = { ok: true; image: LoadedImage } | { ok: false; error: string };

export interface VisionRequest {
  /** What to find out about the image. */
  question: string;
  /** The image as a `data:` URL. */
  dataUrl: string;
  signal?: AbortSignal;
}

/** Asks a model that reads images; resolves with its answer, rejects when no model could answer. */
export type VisionAnalyzer = (request: VisionRequest) => Promise<string>;
