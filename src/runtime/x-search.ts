/**
 * What x_search needs from the process: `x_search.*` from config, and the project's HTTP client
 * (pooled keep-alive, the proxy the environment names for the URL) for the xAI call.
 */
import { httpRequest } from "../llm/http-client.js";
import { proxyForUrl } from "../llm/proxy.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { XSearchToolOptions } from "../tools/builtin/x-search.js";
import type { XSearchHttp } from "../tools/x-search/client.js";
import { BodyTooLarge, declaredOver, readChunksCapped } from "../util/read-capped.js";

export const runtimeXSearchHttp: XSearchHttp = async (url, request) => {
  const response = await httpRequest(url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    proxy: proxyForUrl(url),
    context: { provider: "xAI X search" },
  });
  const declared = declaredOver(response.headers["content-length"], request.maxBytes);
  if (declared !== undefined) {
    response.cancel();
    throw new BodyTooLarge(request.maxBytes, declared);
  }
  const body = await readChunksCapped(response.body, request.maxBytes, () => response.cancel());
  return { status: response.status, retryAfter: response.headers["retry-after"], body };
};

/** The x_search tool's options for a runtime. */
export function xSearchToolOptions(config: HermesConfig): XSearchToolOptions {
  const { model, timeout_seconds, retries } = config.x_search;
  return { settings: { model, timeoutSeconds: timeout_seconds, retries }, http: runtimeXSearchHttp };
}
