/**
 * The Matrix Client-Server API (v3) of one homeserver, authenticated with the bot's access token
 * as a bearer token. Every call makes one attempt: failures come back as PlatformSendErrors and
 * the core's delivery ledger decides whether to retry. Paths are given already encoded.
 */
import { httpError, type MatrixErrorBody, networkError } from "./errors.js";

export interface MatrixRestOptions {
  /** The homeserver's address, e.g. https://matrix.example.org (no trailing slash). */
  homeserver: string;
  token: string;
  timeoutMs: number;
}

type Method = "GET" | "POST" | "PUT";

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** A raw body (an upload) with its content type, instead of JSON. */
  raw?: { data: Blob; contentType: string };
  /** Sent without the access token (the login itself). */
  anonymous?: boolean;
}

/** The Client-Server API's root. */
export const CLIENT_V3 = "/_matrix/client/v3";

export class MatrixRest {
  private token: string;

  constructor(private readonly options: MatrixRestOptions) {
    this.token = options.token;
  }

  /** The access token later calls carry (one a password login obtained). */
  setToken(token: string): void {
    this.token = token;
  }

  get<T>(path: string, call: CallOptions = {}): Promise<T> {
    return this.call<T>("GET", path, undefined, call);
  }

  post<T>(path: string, body: unknown, call: CallOptions = {}): Promise<T> {
    return this.call<T>("POST", path, body, call);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PUT", path, body);
  }

  async call<T>(method: Method, path: string, body?: unknown, call: CallOptions = {}): Promise<T> {
    const response = await this.send(method, path, body, call);
    const text = await response.text();
    if (!text) return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw httpError(`${method} ${route(path)}`, 502, { error: "the answer was not JSON" }, response.headers);
    }
  }

  /** The raw response of a successful GET (media downloads); failures throw as `call` does. */
  download(path: string, timeoutMs = this.options.timeoutMs): Promise<Response> {
    return this.send("GET", path, undefined, { timeoutMs });
  }

  private async send(method: Method, path: string, body: unknown, call: CallOptions): Promise<Response> {
    const action = `${method} ${route(path)}`;
    const headers: Record<string, string> = call.anonymous ? {} : { authorization: `Bearer ${this.token}` };
    let payload: string | Blob | undefined;
    if (call.raw) {
      headers["content-type"] = call.raw.contentType;
      payload = call.raw.data;
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const timeout = AbortSignal.timeout(call.timeoutMs ?? this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${this.options.homeserver}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        signal: call.signal ? AbortSignal.any([call.signal, timeout]) : timeout,
      });
    } catch (error) {
      throw networkError(action, error);
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    let parsed: MatrixErrorBody | undefined;
    try {
      parsed = JSON.parse(text) as MatrixErrorBody;
    } catch {
      parsed = undefined;
    }
    throw httpError(action, response.status, parsed, response.headers, parsed ? "" : text);
  }
}

/** A path without its query (a sync token or file name does not belong in a log line). */
function route(path: string): string {
  return path.split("?")[0] as string;
}
