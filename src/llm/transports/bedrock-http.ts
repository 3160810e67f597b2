/**
 * An HTTP/1.1 request handler for the AWS SDK, built on the LLM layer's HTTP client. The SDK's
 * default handler for Bedrock Runtime speaks HTTP/2 only, which rules out HTTP/1.1 gateways,
 * proxies and local test servers; ConverseStream itself works over HTTP/1.1. Going through the
 * shared client also gives Bedrock the same proxy handling as every other transport.
 */
import { Readable } from "node:stream";
import { httpRequest } from "../http-client.js";
import { proxyForUrl } from "../proxy.js";
import type { ErrorContext } from "../watchdog.js";

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

/** Headers the client computes itself; the values it sends match the signed ones. */
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

async function bodyBytes(body: unknown): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body instanceof Readable) {
    const parts: Buffer[] = [];
    for await (const part of body) parts.push(Buffer.from(part as Uint8Array));
    return Buffer.concat(parts);
  }
  return String(body);
}

export function createBedrockRequestHandler(
  env: Record<string, string | undefined> = process.env,
  context: ErrorContext = {},
) {
  return {
    metadata: { handlerProtocol: "http/1.1" },
    async handle(request: SdkRequest, options: { abortSignal?: AbortSignal } = {}) {
      const url = requestUrl(request);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (!SKIPPED_HEADERS.has(name.toLowerCase())) headers[name] = value;
      }
      const response = await httpRequest(url, {
        method: request.method,
        headers,
        body: await bodyBytes(request.body),
        signal: options.abortSignal,
        proxy: proxyForUrl(url, env),
        context,
      });
      return {
        response: {
          statusCode: response.status,
          reason: response.statusText,
          headers: response.headers,
          body: Readable.from(response.body, { objectMode: false }),
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
