/**
 * What x_search needs from the process: `x_search.*` from config, and the project's HTTP client
 * (pooled keep-alive, the proxy the environment names for the URL) for the xAI call.
 */
import type { HermesConfig } from "../state/config-schema.js";
import type { XSearchToolOptions } from "../tools/builtin/x-search.js";
import type { XSearchHttp } from "../tools/x-search/client.js";
import { cappedRequest } from "./capped-request.js";

export const runtimeXSearchHttp: XSearchHttp = async (url, request) => {
  const answer = await cappedRequest(url, request, "xAI X search");
  return { status: answer.status, retryAfter: answer.headers["retry-after"], body: answer.body };
};

/** The x_search tool's options for a runtime. */
export function xSearchToolOptions(config: HermesConfig): XSearchToolOptions {
  const { model, timeout_seconds, retries } = config.x_search;
  return { settings: { model, timeoutSeconds: timeout_seconds, retries }, http: runtimeXSearchHttp };
}
