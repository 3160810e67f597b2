/**
 * A small HTTP/1.1 client over `node:http` / `node:https` for model traffic. Node 20 builds the
 * global `fetch` (and `Response`, `Headers`) on a bundled undici that loads on first touch and
 * costs about 80 ms and 35 MiB, which a one-shot run cannot afford; nothing here touches them.
 *
 * - Connections are pooled per origin by keep-alive agents, so the requests of one turn share a
 *   connection. Node unrefs idle pooled sockets, so a pooled connection never keeps the process
 *   alive; a pooled socket the server already closed is retried once on a fresh connection.
 * - Requests advertise `gzip, deflate, br` (as fetch does) and encoded bodies are decoded;
 *   `node:zlib` loads only when a response is actually encoded, `node:https` (and TLS) only for
 *   https URLs.
 * - Failures are LlmErrors: `abort` as soon as the signal fires (the request is destroyed), and
 *   `network` with the system code (ECONNREFUSED, ECONNRESET, ...) when no response arrives.
 *   Errors while reading the body are left to the reader (see sse.ts), except an abort.
 */
import type http from "node:http";
import type { Readable } from "node:stream";
import type { ConnectionOptions } from "node:tls";
import { LlmError } from "./errors.js";
import { proxiedRequestOptions } from "./proxy.js";
import { abortError, type ErrorContext, errorCode } from "./watchdog.js";

// Not an ESM import: on Node 24 the ESM namespace of node:http loads the bundled undici (~60 ms).
const nodeHttp = process.getBuiltinModule("node:http");

export interface HttpRequestOptions {
  method?: string | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | undefined;
  signal?: AbortSignal | undefined;
  /** Proxy URL to send the request through (see `proxyForUrl`); direct when unset. */
  proxy?: string | undefined;
  /** Extra TLS options for https targets (a custom CA, ...). */
  tls?: ConnectionOptions | undefined;
  /** Provider and model named in errors. */
  context?: ErrorContext | undefined;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The decoded body, read once. Leaving a loop early calls `release()`. */
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
  json(): Promise<unknown>;
  /** Closes the connection now (a failed or abandoned stream). */
  cancel(): void;
  /**
   * Discards the unread rest; the connection goes back to the pool if the rest arrives soon, and
   * is closed otherwise. Resolves once the body is finished either way.
   */
  release(): Promise<void>;
}

/** How long a released body may take to finish before its connection is closed instead. */
const RELEASE_GRACE_MS = 2000;
/** Chunks buffered ahead of the reader before the socket is paused. */
const MAX_QUEUED_CHUNKS = 64;
const DEFAULT_HEADERS: Record<string, string> = {
  "accept-encoding": "gzip, deflate, br",
  "user-agent": "hermes-agent",
};

let httpAgent: http.Agent | undefined;
let httpsAgent: http.Agent | undefined;

function agentFor(protocol: string): http.Agent {
  if (protocol === "https:") {
    httpsAgent ??= new (process.getBuiltinModule("node:https").Agent)({ keepAlive: true });
    return httpsAgent;
  }
  httpAgent ??= new nodeHttp.Agent({ keepAlive: true });
  return httpAgent;
}

/** host[:port] of a URL, or the text itself when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** The LlmError for a request that got no response. */
export function networkError(error: unknown, url: string, context: ErrorContext): LlmError {
  if (error instanceof LlmError) return error;
  const code = errorCode(error);
  const fields: ConstructorParameters<typeof LlmError>[1] = { kind: "network", cause: error, url, ...context };
  if (code) fields.code = code;
  return new LlmError(`Could not reach ${hostOf(url)}${code ? ` (${code})` : ""}.`, fields);
}

function withDefaults(headers: Record<string, string> | undefined, body: string | Uint8Array | undefined) {
  const out: Record<string, string> = { ...headers };
  const present = new Set(Object.keys(out).map((name) => name.toLowerCase()));
  for (const [name, value] of Object.entries(DEFAULT_HEADERS)) if (!present.has(name)) out[name] = value;
  if (body !== undefined && !present.has("content-length")) {
    out["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.byteLength);
  }
  return out;
}

function flatHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** `res` itself, or a decompressor fed by it when the body is encoded. */
function decodedStream(res: http.IncomingMessage): Readable {
  const encoding = (res.headers["content-encoding"] ?? "").trim().toLowerCase();
  if (!["gzip", "x-gzip", "deflate", "br"].includes(encoding)) return res;
  const zlib = process.getBuiltinModule("node:zlib");
  const decoder =
    encoding === "br"
      ? zlib.createBrotliDecompress()
      : encoding === "deflate"
        ? zlib.createInflate()
        : zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const { pipeline } = process.getBuiltinModule("node:stream");
  pipeline(res, decoder, () => {});
  return decoder;
}

/**
 * Pull-based reader over a Node stream: queues chunks and pauses the socket when the reader
 * lags. The stream flows from the start, so a body nobody reads holds its connection until it is
 * released or cancelled.
 */
class BodyReader implements AsyncIterableIterator<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: unknown;
  private discarding = false;
  private wake: (() => void) | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly markSettled: () => void;
  /** Resolves when the body has ended or its connection closed. */
  readonly settled: Promise<void>;

  constructor(
    private readonly source: Readable,
    private readonly close: () => void,
    onSettled: () => void,
  ) {
    let markSettled = () => {};
    this.settled = new Promise<void>((resolve) => {
      markSettled = resolve;
    }).then(onSettled);
    this.markSettled = markSettled;
    source.on("data", (chunk: Uint8Array) => {
      if (this.discarding) return;
      this.chunks.push(chunk);
      if (this.chunks.length >= MAX_QUEUED_CHUNKS) source.pause();
      this.notify();
    });
    source.once("end", () => {
      this.ended = true;
      clearTimeout(this.graceTimer);
      this.markSettled();
      this.notify();
    });
    source.once("error", (error) => this.fail(error));
    source.once("close", () => {
      clearTimeout(this.graceTimer);
      this.markSettled();
      if (!this.ended) this.fail(Object.assign(new Error("The connection closed mid-body."), { code: "ECONNRESET" }));
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk) {
        if (this.source.isPaused() && this.chunks.length < MAX_QUEUED_CHUNKS / 2) this.source.resume();
        return { value: chunk, done: false };
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.ended) return { value: undefined, done: true };
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async return(): Promise<IteratorResult<Uint8Array>> {
    this.release();
    return { value: undefined, done: true };
  }

  /** Fails the reader (first failure wins) and closes the connection. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.failure ??= error;
    this.close();
    this.notify();
  }

  release(): Promise<void> {
    if (this.ended || this.failure !== undefined || this.discarding) return this.settled;
    this.discarding = true;
    this.chunks.length = 0;
    this.source.resume();
    this.graceTimer = setTimeout(() => this.close(), RELEASE_GRACE_MS);
    this.graceTimer.unref();
    return this.settled;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function toResponse(
  res: http.IncomingMessage,
  req: http.ClientRequest,
  signal: AbortSignal | undefined,
  context: ErrorContext,
): HttpResponse {
  const onAbort = () => body.fail(abortError(context));
  const body = new BodyReader(
    decodedStream(res),
    () => req.destroy(),
    () => {
      signal?.removeEventListener("abort", onAbort);
    },
  );
  signal?.addEventListener("abort", onAbort, { once: true });
  const text = async () => {
    const parts: Uint8Array[] = [];
    for await (const part of body) parts.push(part);
    return Buffer.concat(parts).toString("utf8");
  };
  return {
    status: res.statusCode ?? 502,
    statusText: res.statusMessage ?? "",
    headers: flatHeaders(res.headers),
    body,
    text,
    json: async () => JSON.parse(await text()) as unknown,
    cancel: () => body.fail(new Error("The response was cancelled.")),
    release: () => body.release(),
  };
}

async function requestOptionsFor(target: URL, options: HttpRequestOptions): Promise<http.RequestOptions> {
  const headers = withDefaults(options.headers, options.body);
  const method = options.method ?? (options.body === undefined ? "GET" : "POST");
  if (options.proxy) {
    const routed = await proxiedRequestOptions(target, options.proxy, {
      headers,
      signal: options.signal,
      tls: options.tls,
    });
    return { ...routed, method, ...(routed.createConnection ? {} : { agent: agentFor("http:") }) };
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw Object.assign(new Error(`Unsupported URL scheme ${target.protocol}`), { code: "ERR_INVALID_PROTOCOL" });
  }
  return {
    ...(target.protocol === "https:" ? options.tls : {}),
    protocol: target.protocol,
    hostname: target.hostname.replace(/^\[|\]$/g, ""),
    port: target.port || undefined,
    path: `${target.pathname}${target.search}`,
    method,
    headers,
    agent: agentFor(target.protocol),
  };
}

/** Marks a failure on a reused pooled socket the server had already closed. */
const STALE_SOCKET = Symbol("stale pooled socket");

function sendOnce(
  target: URL,
  requestOptions: http.RequestOptions,
  options: HttpRequestOptions,
  context: ErrorContext,
): Promise<HttpResponse> {
  const { signal } = options;
  const secure = target.protocol === "https:" && !options.proxy;
  const send = secure ? process.getBuiltinModule("node:https").request : nodeHttp.request;
  return new Promise((resolve, reject) => {
    const req = send(requestOptions);
    let responded = false;
    const onAbort = () => {
      req.destroy();
      reject(abortError(context));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.once("response", (res) => {
      responded = true;
      signal?.removeEventListener("abort", onAbort);
      resolve(toResponse(res, req, signal, context));
    });
    req.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      if (responded) return; // the body reader reports it
      if (signal?.aborted) reject(abortError(context));
      else if (req.reusedSocket && ["ECONNRESET", "EPIPE"].includes(errorCode(error) ?? "")) reject(STALE_SOCKET);
      else reject(networkError(error, target.href, context));
    });
    req.end(options.body);
  });
}

async function requestOnce(url: string, options: HttpRequestOptions): Promise<HttpResponse> {
  const context = options.context ?? {};
  for (let attempt = 0; ; attempt++) {
    let requestOptions: http.RequestOptions;
    let target: URL;
    try {
      target = new URL(url);
      requestOptions = await requestOptionsFor(target, options);
    } catch (error) {
      if (options.signal?.aborted) throw abortError(context);
      throw networkError(error, url, context);
    }
    try {
      return await sendOnce(target, requestOptions, options, context);
    } catch (error) {
      if (error !== STALE_SOCKET) throw error;
      if (attempt > 0) {
        throw networkError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), url, context);
      }
    }
  }
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
/** Credentials that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = new Set(["authorization", "x-api-key", "api-key", "cookie"]);

/** The next hop of a redirect, with fetch's rules: 307/308 resend as is, the rest become a GET. */
function redirected(from: string, options: HttpRequestOptions, status: number, location: string) {
  const url = new URL(location, from).href;
  const method = (options.method ?? (options.body === undefined ? "GET" : "POST")).toUpperCase();
  const keepsBody = status === 307 || status === 308 || method === "GET" || method === "HEAD";
  const sameOrigin = new URL(url).origin === new URL(from).origin;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!sameOrigin && CREDENTIAL_HEADERS.has(lower)) continue;
    if (!keepsBody && (lower === "content-type" || lower === "content-length")) continue;
    headers[name] = value;
  }
  const next: HttpRequestOptions = { ...options, headers };
  if (!keepsBody) {
    next.method = "GET";
    next.body = undefined;
  }
  return { url, options: next };
}

/**
 * Sends one request and resolves once the final response's headers arrive (redirects are
 * followed, up to five); the body streams from the returned response. Rejects with LlmError
 * `abort` or `network` (see the module comment).
 */
export async function httpRequest(url: string, options: HttpRequestOptions = {}): Promise<HttpResponse> {
  if (options.signal?.aborted) throw abortError(options.context ?? {});
  let hop = { url, options };
  for (let count = 0; ; count++) {
    const response = await requestOnce(hop.url, hop.options);
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(response.status) || !location || count >= MAX_REDIRECTS) return response;
    response.release();
    hop = redirected(hop.url, hop.options, response.status, location);
  }
}
