/**
 * What image generation needs from the process: `image_gen.*` from config, and the project's HTTP
 * client (pooled keep-alive, the proxy the environment names for each URL) for the providers and
 * the download of the image they made.
 */
import type { HermesConfig } from "../state/config-schema.js";
import type { ImageGenToolOptions } from "../tools/builtin/image-generate.js";
import type { ImageHttp } from "../tools/image-gen/types.js";
import { cappedRequest } from "./capped-request.js";

export const runtimeImageHttp: ImageHttp = async (url, request) => {
  const answer = await cappedRequest(url, request, "image generation");
  return { status: answer.status, contentType: answer.headers["content-type"] ?? "", body: answer.body };
};

/** The image_generate tool's options for a runtime on `home`. */
export function imageGenToolOptions(config: HermesConfig, home: string): ImageGenToolOptions {
  return {
    settings: { provider: config.image_gen.provider, model: config.image_gen.model },
    home,
    http: runtimeImageHttp,
  };
}
