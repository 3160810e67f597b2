/**
 * OpenAI's image endpoint, `POST {base}/images/generations` with `{model, prompt, size, n: 1}`
 * (key `OPENAI_API_KEY`, base `OPENAI_BASE_URL`, else OpenAI's). GPT image models answer
 * `data[0].b64_json`; DALL·E answers `data[0].url` unless asked otherwise.
 */
import { joinUrl, postJson } from "./http.js";
import { type AspectRatio, ImageGenError, type ImageRequest, type ProviderImage } from "./types.js";

export const OPENAI_IMAGES_BASE_URL = "https://api.openai.com/v1";
export const OPENAI_DEFAULT_IMAGE_MODEL = "gpt-image-1";

const GPT_IMAGE_SIZE: Readonly<Record<AspectRatio, string>> = {
  square: "1024x1024",
  landscape: "1536x1024",
  portrait: "1024x1536",
};
const DALLE3_SIZE: Readonly<Record<AspectRatio, string>> = {
  square: "1024x1024",
  landscape: "1792x1024",
  portrait: "1024x1792",
};

/** The size names the model accepts (DALL·E 2 makes square images only). */
export function openaiImageSize(model: string, aspectRatio: AspectRatio): string {
  if (model.startsWith("dall-e-2")) return "1024x1024";
  if (model.startsWith("dall-e-3")) return DALLE3_SIZE[aspectRatio];
  return GPT_IMAGE_SIZE[aspectRatio];
}

export async function openaiGenerate(request: ImageRequest): Promise<ProviderImage> {
  const model = request.model || OPENAI_DEFAULT_IMAGE_MODEL;
  const base = request.env.OPENAI_BASE_URL?.trim() || OPENAI_IMAGES_BASE_URL;
  const reply = await postJson(request.http, "OpenAI images", joinUrl(base, "images/generations"), {
    headers: { authorization: `Bearer ${request.key}` },
    body: { model, prompt: request.prompt, size: openaiImageSize(model, request.aspectRatio), n: 1 },
    key: request.key,
    keyName: "OPENAI_API_KEY",
    signal: request.signal,
  });
  const data = (reply as { data?: unknown } | null)?.data;
  const first = Array.isArray(data) ? (data[0] as { b64_json?: unknown; url?: unknown } | undefined) : undefined;
  if (typeof first?.b64_json === "string" && first.b64_json) {
    return { kind: "bytes", bytes: Buffer.from(first.b64_json, "base64") };
  }
  if (typeof first?.url === "string" && first.url) return { kind: "url", url: first.url };
  throw new ImageGenError("OpenAI images answered without an image; try again, or check image_gen.model");
}
