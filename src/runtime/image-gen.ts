/**
 * What image generation needs from the process: `image_gen.*` from config, and the project's HTTP
 * client (pooled keep-alive, the proxy the environment names for each URL) for the providers and
 * the download of the image they made.
 */
import { httpRequest } from "../llm/http-client.js";
import { proxyForUrl } from "../llm/proxy.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { ImageGenToolOptions } from "../tools/builtin/image-generate.js";
import type { ImageHttp } from "../tools/image-gen/types.js";
import { BodyTooLarge, declaredOver, readChunksCapped } from "../util/read-capped.js";

export const runtimeImageHttp: ImageHttp = async (url, request) => {
  const response = await httpRequest(url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    proxy: proxyForUrl(url),
    context: { provider: "image generation" },
  });
  const declared = declaredOver(response.headers["content-length"], request.maxBytes);
  if (declared !== undefined) {
    response.cancel();
    throw new BodyTooLarge(request.maxBytes, declared);
  }
  const body = await readChunksCapped(response.body, request.maxBytes, () => response.cancel());
  return { status: response.status, contentType: response.headers["content-type"] ?? "", body };
};

/** The image_generate tool's options for a runtime on `home`. */
export function imageGenToolOptions(config: HermesConfig, home: string): ImageGenToolOptions {
  return {
    settings: { provider: config.image_gen.provider, model: config.image_gen.model },
    home,
    http: runtimeImageHttp,
  };
}
