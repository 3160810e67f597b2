/**
 * fal.ai's synchronous endpoint, `POST {base}/{model}` with `Authorization: Key <FAL_KEY>` and
 * `{prompt, image_size, num_images}`; it answers `{images: [{url, width, height, content_type}],
 * seed, has_nsfw_concepts?}` once the image is made. Base `FAL_BASE_URL`, else https://fal.run.
 */
import { joinUrl, postJson } from "./http.js";
import { type AspectRatio, ImageGenError, type ImageRequest, type ProviderImage } from "./types.js";

export const FAL_BASE_URL = "https://fal.run";
/** FLUX.2 [dev], Black Forest Labs' text-to-image model on fal. */
export const FAL_DEFAULT_MODEL = "fal-ai/flux-2";

/** fal's named sizes for each aspect ratio. */
export const FAL_IMAGE_SIZE: Readonly<Record<AspectRatio, string>> = {
  square: "square_hd",
  landscape: "landscape_16_9",
  portrait: "portrait_16_9",
};

/** Endpoint ids are path segments of letters, digits, `.`, `_` and `-` (`fal-ai/flux-2/flash`). */
const MODEL_ID = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export async function falGenerate(request: ImageRequest): Promise<ProviderImage> {
  const model = request.model || FAL_DEFAULT_MODEL;
  if (!MODEL_ID.test(model) || model.split("/").some((part) => part === "." || part === "..")) {
    throw new ImageGenError(`image_gen.model "${model}" is not a fal endpoint id (like ${FAL_DEFAULT_MODEL})`);
  }
  const base = request.env.FAL_BASE_URL?.trim() || FAL_BASE_URL;
  const reply = await postJson(request.http, "fal.ai", joinUrl(base, model), {
    headers: { authorization: `Key ${request.key}` },
    body: { prompt: request.prompt, image_size: FAL_IMAGE_SIZE[request.aspectRatio], num_images: 1 },
    key: request.key,
    keyName: "FAL_KEY",
    signal: request.signal,
  });
  const answer = (reply ?? {}) as { images?: unknown; has_nsfw_concepts?: unknown };
  // The safety checker answers with a blank image and this flag rather than an error.
  if (Array.isArray(answer.has_nsfw_concepts) && answer.has_nsfw_concepts[0] === true) {
    throw new ImageGenError(
      "fal.ai's safety checker flagged the image and withheld it. Rephrase the prompt and try again.",
    );
  }
  const first = Array.isArray(answer.images) ? (answer.images[0] as { url?: unknown } | undefined) : undefined;
  if (typeof first?.url !== "string" || !first.url) {
    throw new ImageGenError("fal.ai answered without an image URL; try again, or check image_gen.model");
  }
  return { kind: "url", url: first.url };
}
