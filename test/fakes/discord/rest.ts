/**
 * The fake's REST API under `/api/v10`, answering the calls discord.js makes with the bodies and
 * error shapes Discord uses (`{ message, code }`, 429 with `retry_after` and rate-limit headers).
 * Multipart bodies (files) are parsed with the platform's own FormData parser.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface RecordedCall {
  method: string;
  /** Path after `/api/v10` (or the CDN path), without the query. */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or for multipart the `payload_json` part. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary fields of recorded bodies
  body: any;
  files: Array<{ field: string; name: string; type: string; bytes: number }>;
  status: number;
  /** Epoch ms it arrived. */
  at: number;
  /** `performance.now()` when it arrived, for timings finer than a millisecond. */
  atHr: number;
}

export interface RestFault {
  method?: string;
  path?: RegExp;
  /** Reply with this status (429 gets Discord's rate-limit body and headers). */
  status?: number;
  /** Seconds, for a 429. */
  retryAfter?: number;
  global?: boolean;
  /** Destroy the socket without answering, as a network failure would. */
  drop?: boolean;
  /** Never answer (until the fake closes), as an overloaded server would. */
  stall?: boolean;
}

export interface RestReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Bytes to send as they are (the CDN). */
  raw?: { data: Buffer; type: string };
}

export type RestHandler = (call: RecordedCall, params: string[]) => RestReply | Promise<RestReply>;

interface Route {
  method: string;
  pattern: RegExp;
  auth: boolean;
  handler: RestHandler;
}

export class RestRouter {
  private readonly routes: Route[] = [];
  private readonly faults: RestFault[] = [];

  constructor(
    private readonly token: string,
    private readonly record: (call: RecordedCall) => void,
  ) {}

  on(method: string, pattern: RegExp, handler: RestHandler, auth = true): void {
    this.routes.push({ method, pattern, auth, handler });
  }

  /** The next request matching the fault gets it instead of its normal answer. */
  failNext(fault: RestFault): void {
    this.faults.push(fault);
  }

  async handle(req: IncomingMessage, res: ServerResponse, prefix: string): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    const path = url.pathname.slice(prefix.length) || "/";
    const raw = await readAll(req);
    const call: RecordedCall = {
      method,
      path,
      query: url.search,
      headers: req.headers,
      body: undefined,
      files: [],
      status: 0,
      at: Date.now(),
      atHr: performance.now(),
    };
    await parseBody(call, req.headers["content-type"], raw);
    const reply = await this.answer(call, req, res);
    if (!reply) return;
    call.status = reply.status;
    this.record(call);
    const headers: Record<string, string> = { ...reply.headers };
    if (reply.raw) {
      res.writeHead(reply.status, { ...headers, "content-type": reply.raw.type });
      res.end(reply.raw.data);
      return;
    }
    if (reply.body !== undefined) headers["content-type"] = "application/json";
    res.writeHead(reply.status, headers);
    res.end(reply.body === undefined ? undefined : JSON.stringify(reply.body));
  }

  private async answer(call: RecordedCall, req: IncomingMessage, res: ServerResponse): Promise<RestReply | undefined> {
    const faultIndex = this.faults.findIndex(
      (f) => (!f.method || f.method === call.method) && (!f.path || f.path.test(call.path)),
    );
    if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      if (fault?.drop) {
        call.status = -1;
        this.record(call);
        req.socket.destroy();
        res.destroy();
        return undefined;
      }
      if (fault?.stall) {
        call.status = -2;
        this.record(call);
        return new Promise<undefined>(() => undefined);
      }
      if (fault) return faultReply(fault);
    }
    for (const route of this.routes) {
      if (route.method !== call.method) continue;
      const match = route.pattern.exec(call.path);
      if (!match) continue;
      if (route.auth && call.headers.authorization !== `Bot ${this.token}`) {
        return { status: 401, body: { message: "401: Unauthorized", code: 0 } };
      }
      return route.handler(call, match.slice(1).map(decodeURIComponent));
    }
    return { status: 404, body: { message: "404: Not Found", code: 0 } };
  }
}

function faultReply(fault: RestFault): RestReply {
  const status = fault.status ?? 500;
  if (status !== 429) {
    return { status, body: { message: status >= 500 ? "Internal Server Error" : `${status}: fault`, code: 0 } };
  }
  const retryAfter = fault.retryAfter ?? 1;
  return {
    status,
    body: { message: "You are being rate limited.", retry_after: retryAfter, global: fault.global ?? false },
    headers: {
      "retry-after": String(Math.ceil(retryAfter)),
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset-after": String(retryAfter),
      "x-ratelimit-bucket": "fake-bucket",
      "x-ratelimit-scope": fault.global ? "global" : "user",
      ...(fault.global ? { "x-ratelimit-global": "true" } : {}),
    },
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

async function parseBody(call: RecordedCall, contentType: string | undefined, raw: Buffer): Promise<void> {
  if (raw.length === 0) return;
  if (contentType?.startsWith("multipart/form-data")) {
    const form = await new Response(raw, { headers: { "content-type": contentType } }).formData();
    for (const [field, value] of form.entries()) {
      if (field === "payload_json" && typeof value === "string") call.body = JSON.parse(value);
      else if (typeof value !== "string") {
        call.files.push({ field, name: value.name, type: value.type, bytes: value.size });
      }
    }
    return;
  }
  call.body = JSON.parse(raw.toString("utf8"));
}
