/** Shapes shared by the image generation providers and the `image_generate` tool. */

export type Env = Record<string, string | undefined>;

export const IMAGE_PROVIDERS = ["fal", "openai"] as const;
export type ImageProviderName = (typeof IMAGE_PROVIDERS)[number];

export const ASPECT_RATIOS = ["square", "landscape", "portrait"] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

/** `image_gen.*` as the tool reads it. */
export interface ImageGenSettings {
  /** auto (the first provider with a key: fal, then openai), fal or openai. */
  provider: string;
  /** A model id in the chosen provider's naming; "" takes the provider's default. */
  model: string;
}

export const DEFAULT_IMAGE_GEN_SETTINGS: ImageGenSettings = { provider: "auto", model: "" };

export interface HttpAnswer {
  status: number;
  /** The Content-Type header, "" when absent. */
  contentType: string;
  body: Buffer;
}

/**
 * One HTTP request whose whole body is read, up to `maxBytes` (past it: ResponseTooLarge). The
 * runtime passes one built on the project's HTTP client (keep-alive pool, proxies); without it,
 * `fetch` is used.
 */
export type ImageHttp = (
  url: string,
  request: {
    method: "GET" | "POST";
    headers: Record<string, string>;
    body?: string | undefined;
    signal: AbortSignal;
    maxBytes: number;
  },
) => Promise<HttpAnswer>;

/** What a provider made: the image's bytes, or where to fetch them. */
export type ProviderImage = { kind: "bytes"; bytes: Buffer } | { kind: "url"; url: string };

/** What one provider call needs. */
export interface ImageRequest {
  prompt: string;
  aspectRatio: AspectRatio;
  model: string;
  key: string;
  env: Env;
  http: ImageHttp;
  signal: AbortSignal;
}

/** A failure the tool reports as it is: its message is already written for the model and the user. */
export class ImageGenError extends Error {}

/** The longest prompt sent (the providers' own limits start around 4,000 characters). */
export const MAX_PROMPT_CHARS = 4000;
/** A provider's JSON answer may hold the image in base64, so it may be larger than the image. */
export const MAX_REPLY_BYTES = 48 * 1024 * 1024;
/** The largest image saved. */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** How long the provider may take to make the image. */
export const GENERATE_TIMEOUT_MS = 120_000;
/** How long the download of a made image may take. */
export const DOWNLOAD_TIMEOUT_MS = 30_000;
