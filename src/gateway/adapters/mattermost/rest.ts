/**
 * The Mattermost REST API (v4) at `{server}/api/v4`, authenticated with the bot's token as a
 * bearer token. Every call makes one attempt: failures come back as PlatformSendErrors and the
 * core's delivery ledger decides whether to retry.
 */
import { httpError, type MattermostErrorBody, networkError } from "./errors.js";

export interface MattermostRestOptions {
  /** The server's address, e.g. https://mm.example.com (no trailing slash). */
  serverUrl: string;
  token: string;
  timeoutMs: number;
}

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** What Mattermost says about a user (the fields read here). */
export interface MattermostUser {
  id: string;
  username?: string;
  is_bot?: boolean;
}

/** A post as Mattermost returns and broadcasts it (the fields read here). */
export interface MattermostPost {
  id: string;
  channel_id: string;
  user_id?: string;
  root_id?: string;
  message?: string;
  type?: string;
  create_at?: number;
  file_ids?: string[];
  props?: Record<string, unknown>;
}

export interface MattermostChannel {
  id: string;
  type?: string;
  name?: string;
  display_name?: string;
}

export class MattermostRest {
  readonly apiRoot: string;

  constructor(private readonly options: MattermostRestOptions) {
    this.apiRoot = `${options.serverUrl}/api/v4`;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>("GET", path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>("POST", path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PUT", path, body);
  }

  delete(path: string): Promise<unknown> {
    return this.call("DELETE", path);
  }

  async call<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body);
    const text = await response.text();
    if (!text) return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw httpError(`${method} ${path}`, 502, { message: "the answer was not JSON" }, response.headers);
    }
  }

  /** The raw response of a successful GET (file downloads); failures throw as `call` does. */
  download(path: string, timeoutMs = this.options.timeoutMs): Promise<Response> {
    return this.send("GET", path, undefined, timeoutMs);
  }

  private async send(method: Method, path: string, body: unknown, timeoutMs = this.options.timeoutMs) {
    const action = `${method} ${path}`;
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}` };
    let payload: string | FormData | undefined;
    if (body instanceof FormData) {
      payload = body;
    } else if (body !== undefined) {
      headers["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    let response: Response;
    try {
      response = await fetch(`${this.apiRoot}${path}`, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw networkError(action, error);
    }
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    let parsed: MattermostErrorBody | undefined;
    try {
      parsed = JSON.parse(text) as MattermostErrorBody;
    } catch {
      parsed = undefined;
    }
    throw httpError(action, response.status, parsed, response.headers, parsed ? "" : text);
  }
}
