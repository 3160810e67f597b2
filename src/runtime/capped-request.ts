/**
 * One request through the project's HTTP client (pooled keep-alive, the proxy the environment
 * names for the URL) whose answer is read into memory up to a size limit: what the tools that
 * call a hosted API (speech, images, X search) need from the process.
 */
import { httpRequest } from "../llm/http-client.js";
import { proxyForUrl } from "../llm/proxy.js";
import { BodyTooLarge, declaredOver, readChunksCapped } from "../util/read-capped.js";

export interface CappedRequest {
  method?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
  maxBytes: number;
}

export interface CappedAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** Refuses an answer that declares, or turns out, larger than `maxBytes` without reading the rest. */
export async function cappedRequest(url: string, request: CappedRequest, label: string): Promise<CappedAnswer> {
  const response = await httpRequest(url, {
    method: request.method ?? "POST",
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    proxy: proxyForUrl(url),
    context: { provider: label },
  });
  const declared = declaredOver(response.headers["content-length"], request.maxBytes);
  if (declared !== undefined) {
    response.cancel();
    throw new BodyTooLarge(request.maxBytes, declared);
  }
  const body = await readChunksCapped(response.body, request.maxBytes, () => response.cancel());
  return { status: response.status, headers: response.headers, body };
}
