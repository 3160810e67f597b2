/**
 * An HTTP/1.1 request handler for the AWS SDK, built on `fetch`. The SDK's default handler for
 * Bedrock Runtime speaks HTTP/2 only, which rules out HTTP/1.1 gateways, proxies and local test
 * servers; ConverseStream itself works over HTTP/1.1. Going through `fetch` also gives Bedrock
 * the same proxy handling as every other transport.
 */
import { Readable } from "node:stream";
import { fetchViaProxy, proxyForUrl } from "../proxy.js";

interface SdkRequest {
  method: string;
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | Array<string> | null>;
  headers: Record<string, string>;
  body?: unknown;
}

/** Headers fetch computes itself; the values it sends match the signed ones. */
const SKIPPED_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection", "expect"]);

function requestUrl(request: SdkRequest): string {
  const port = request.port ? `:${request.port}` : "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value === null) params.append(key, "");
    else if (Array.isArray(value)) for (const v of value) params.append(key, v);
    else params.append(key, value);
  }
  const query = params.toString();
  return `${request.protocol}//${request.hostname}${port}${request.path}${query ? `?${query}` : ""}`;
}

async function bodyText(body: unknown): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  if (body instanceof Readable) {
    const parts: Buffer[] = [];
    for await (const part of body) parts.push(Buffer.from(part as Uint8Array));
    return Buffer.concat(parts).toString("utf8");
  }
  return String(body);
}

export function createFetchRequestHandler(env: Record<string, string | undefined> = process.env) {
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}) {
      const url = requestUrl(request);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (!SKIPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
      }
      const body = await bodyText(request.body);
      const init: RequestInit & { body?: string } = { method: request.method, headers };
      if (body !== undefined) init.body = body;
      if (options.abortSignal) init.signal = options.abortSignal as AbortSignal;
      const proxy = proxyForUrl(url, env);
      const response = proxy
        ? await fetchViaProxy(
            url,
            {
              method: request.method,
              headers,
              ...(body === undefined ? {} : { body }),
              ...(init.signal ? { signal: init.signal } : {}),
            },
            proxy,
          )
        : await fetch(url, init);
      const responseHeaders: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        responseHeaders[name] = value;
      });
      return {
        response: {
          statusCode: response.status,
          reason: response.statusText,
          headers: responseHeaders,
          body: response.body
            ? Readable.fromWeb(response.body as import("node:stream/web").ReadableStream)
            : Readable.from([]),
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs() {
      return {};
    },
    destroy() {},
  };
}
