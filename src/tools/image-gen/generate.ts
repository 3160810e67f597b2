/**
 * Image generation, whichever provider `image_gen.provider` picks: check the prompt, ask the
 * provider within a time limit, fetch the image it made (time limit, size cap), check the bytes
 * are a PNG, JPEG or WebP image, and save it. Never throws: a failure is an answer with a reason.
 */
import { downloadImage } from "./download.js";
import { FAL_DEFAULT_MODEL, falGenerate } from "./fal.js";
import { fetchImageHttp } from "./http.js";
import { OPENAI_DEFAULT_IMAGE_MODEL, openaiGenerate } from "./openai.js";
import { describeBytes, saveImage, sniffImageType } from "./save.js";
import { chooseImageProvider } from "./select.js";
import {
  type AspectRatio,
  DOWNLOAD_TIMEOUT_MS,
  type Env,
  GENERATE_TIMEOUT_MS,
  ImageGenError,
  type ImageGenSettings,
  type ImageHttp,
  type ImageProviderName,
  type ImageRequest,
  MAX_IMAGE_BYTES,
  MAX_PROMPT_CHARS,
  type ProviderImage,
} from "./types.js";

interface Provider {
  label: string;
  defaultModel: string;
  generate(request: ImageRequest): Promise<ProviderImage>;
}

const PROVIDERS: Readonly<Record<ImageProviderName, Provider>> = {
  fal: { label: "fal.ai", defaultModel: FAL_DEFAULT_MODEL, generate: falGenerate },
  openai: { label: "OpenAI images", defaultModel: OPENAI_DEFAULT_IMAGE_MODEL, generate: openaiGenerate },
};

export interface GenerateInput {
  prompt: string;
  aspectRatio: AspectRatio;
  settings: ImageGenSettings;
  env: Env;
  /** Where images go: `$HERMES_HOME/cache/images`. */
  outputDir: string;
  http?: ImageHttp | undefined;
  signal?: AbortSignal | undefined;
  generateTimeoutMs?: number | undefined;
  downloadTimeoutMs?: number | undefined;
  maxImageBytes?: number | undefined;
}

export type GenerateResult =
  | { ok: true; path: string; provider: ImageProviderName; model: string; mime: string; bytes: number }
  | { ok: false; provider?: ImageProviderName; error: string };

/** A time limit joined with the caller's interrupt. */
function limited(ms: number, outer: AbortSignal | undefined): { signal: AbortSignal; limit: AbortSignal } {
  const limit = AbortSignal.timeout(ms);
  return { signal: outer ? AbortSignal.any([outer, limit]) : limit, limit };
}

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`);

export async function generateImage(input: GenerateInput): Promise<GenerateResult> {
  const choice = chooseImageProvider(input.settings, input.env);
  if (!choice.ok) return { ok: false, error: choice.error };
  const { name, key } = choice;
  const provider = PROVIDERS[name];
  const fail = (error: string): GenerateResult => ({ ok: false, provider: name, error });
  const prompt = input.prompt.trim();
  if (!prompt) return fail("the prompt is empty; describe the image to make");
  if (prompt.length > MAX_PROMPT_CHARS) {
    return fail(`the prompt is ${prompt.length} characters; at most ${MAX_PROMPT_CHARS} are sent. Shorten it`);
  }
  const model = input.settings.model.trim() || provider.defaultModel;
  const http = input.http ?? fetchImageHttp;
  const maxBytes = input.maxImageBytes ?? MAX_IMAGE_BYTES;

  const generateMs = input.generateTimeoutMs ?? GENERATE_TIMEOUT_MS;
  const making = limited(generateMs, input.signal);
  let made: ProviderImage;
  try {
    made = await provider.generate({
      prompt,
      aspectRatio: input.aspectRatio,
      model,
      key,
      env: input.env,
      http,
      signal: making.signal,
    });
  } catch (error) {
    if (input.signal?.aborted) return fail("the image generation was interrupted before it was done");
    if (making.limit.aborted) {
      return fail(`${provider.label} made no image within ${seconds(generateMs)}; try again later`);
    }
    return fail(error instanceof ImageGenError ? error.message : `${provider.label} failed: ${String(error)}`);
  }

  let bytes: Buffer;
  if (made.kind === "bytes") {
    if (made.bytes.length > maxBytes) return fail(`the image is larger than ${maxBytes} bytes; nothing was saved`);
    bytes = made.bytes;
  } else {
    const downloadMs = input.downloadTimeoutMs ?? DOWNLOAD_TIMEOUT_MS;
    const fetching = limited(downloadMs, input.signal);
    try {
      bytes = await downloadImage(http, made.url, { signal: fetching.signal, maxBytes });
    } catch (error) {
      if (input.signal?.aborted) return fail("the image generation was interrupted before the image was saved");
      if (fetching.limit.aborted) return fail(`the image download took longer than ${seconds(downloadMs)}; try again`);
      return fail(error instanceof ImageGenError ? error.message : `the image download failed: ${String(error)}`);
    }
  }

  const type = sniffImageType(bytes);
  if (!type) {
    return fail(
      `what ${provider.label} gave is not a PNG, JPEG or WebP image (it starts with ${describeBytes(bytes)}); nothing was saved. Try again`,
    );
  }
  try {
    const path = saveImage(input.outputDir, bytes, type);
    return { ok: true, path, provider: name, model, mime: type.mime, bytes: bytes.length };
  } catch (error) {
    return fail(`could not save the image in ${input.outputDir}: ${error instanceof Error ? error.message : error}`);
  }
}
