/**
 * The `webhook` platform: `POST /webhooks/{route}` on its own port (8644). Each request is
 * checked in this order: the body cap (1 MiB), the route's signature, the route's rate (30 a
 * minute), its event filter, and its delivery id (a repeat within an hour is acknowledged and
 * dropped; the gateway's inbound ledger drops later ones). An accepted event becomes one inbound
 * message whose answer goes where the route's `deliver` says.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AdapterEvents, InboundMessage, OutboundText, PlatformAdapter, SentMessage } from "../types.js";
import { commentsUrlOf, postGithubComment } from "./github-comment.js";
import {
  deliveryId,
  eventType,
  renderPrompt,
  renderTemplate,
  verifySignature,
  type WebhookRoute,
} from "./webhook-routes.js";

export interface WebhookAdapterOptions {
  routes: WebhookRoute[];
  host?: string;
  /** 0 picks a free port (tests). */
  port?: number;
  maxBodyBytes?: number;
  /** Requests a route accepts per minute. */
  perRouteLimit?: number;
  idempotencyMs?: number;
  /** Where answers delivered to `log` go. */
  log?: (message: string) => void;
  /** GITHUB_TOKEN and GITHUB_API_URL for `github_comment` (default: the process environment). */
  env?: Record<string, string | undefined>;
  now?: () => number;
}

export const WEBHOOK_DEFAULT_PORT = 8644;
const GITHUB_COMMENT = "github_comment";
const MiB = 1024 * 1024;

class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `log`, `telegram` (its home channel) or `telegram:12345[:thread]`. */
export function parseDeliverTarget(deliver: string): InboundMessage["deliverTo"] {
  if (deliver === "log") return undefined;
  const [platform, chatId, threadId] = deliver.split(":");
  return {
    platform: platform as string,
    ...(chatId ? { chatId } : {}),
    ...(threadId ? { threadId } : {}),
  };
}

export class WebhookAdapter implements PlatformAdapter {
  readonly platform = "webhook";
  readonly maxMessageLength = 65_536;
  readonly canEdit = false;
  readonly authenticatesSenders = true;
  private server: Server | undefined;
  private events: AdapterEvents | undefined;
  private readonly routes: Map<string, WebhookRoute>;
  private readonly recent = new Map<string, number[]>();
  private readonly seen = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: WebhookAdapterOptions) {
    this.routes = new Map(options.routes.map((route) => [route.name, route]));
    this.now = options.now ?? Date.now;
  }

  /** Where the server listens, once connected. */
  get url(): string {
    const address = this.server?.address();
    if (!address || typeof address === "string") throw new Error("the webhook server is not listening");
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  async connect(events: AdapterEvents): Promise<void> {
    this.events = events;
    if (this.server) return;
    const http = process.getBuiltinModule("node:http") as typeof import("node:http");
    const server = http.createServer((req, res) => void this.handle(req, res));
    server.on("error", (error) => this.events?.listenerLost(error));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port ?? WEBHOOK_DEFAULT_PORT, this.options.host ?? "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
    this.server = server;
    this.options.log?.(`webhook: listening on ${this.url}/webhooks/<route> (${this.routes.size} route(s))`);
  }

  async disconnect(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.events = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Answers to `log` routes land in the gateway log; `github_comment` ones become a comment. */
  async send(message: OutboundText): Promise<SentMessage> {
    const thread = message.threadId ?? "";
    if (thread.startsWith(`${GITHUB_COMMENT}:`)) {
      return postGithubComment(thread.slice(GITHUB_COMMENT.length + 1), message.text, this.options.env ?? process.env);
    }
    this.options.log?.(`webhook ${message.chatId}: ${message.text}`);
    return { messageId: null };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const result = await this.accept(req);
      respond(res, result.status, result.body);
    } catch (error) {
      if (error instanceof RequestError) respond(res, error.status, { error: error.message }, error.headers);
      else respond(res, 500, { error: "internal error" });
      // Whatever is left of a refused body is not read.
      if (!req.complete) req.destroy();
    }
  }

  private async accept(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const match = /^\/webhooks\/([^/?#]+)\/?(?:\?.*)?$/.exec(req.url ?? "");
    if (!match) throw new RequestError(404, "not found: post events to /webhooks/<route>");
    if (req.method !== "POST") throw new RequestError(405, "only POST is accepted", { allow: "POST" });
    const route = this.routes.get(decodeURIComponent(match[1] as string));
    if (!route) throw new RequestError(404, "no such route");
    const body = await readBody(req, this.options.maxBodyBytes ?? MiB);
    if (!verifySignature(route, req.headers, body)) throw new RequestError(401, "missing or invalid signature");
    this.checkRate(route);
    const payload = parsePayload(req.headers["content-type"], body);
    const event = eventType(req.headers, payload);
    if (route.events.length > 0 && (!event || !route.events.includes(event))) {
      return { status: 200, body: { status: "ignored", reason: `event ${event ?? "(none)"} is not routed here` } };
    }
    const id = deliveryId(req.headers, body);
    if (this.isRepeat(`${route.name}\u0000${id}`))
      return { status: 200, body: { status: "duplicate", delivery_id: id } };
    if (!this.events) throw new RequestError(503, "the gateway is not taking events right now", { "retry-after": "5" });
    const deliverTo = this.deliverTarget(route, payload, id);
    this.events.inbound({
      platform: this.platform,
      chatId: route.name,
      chatType: "dm",
      threadId: id,
      userId: `webhook:${route.name}`,
      userName: route.name,
      messageId: id,
      text: route.deliverOnly ? renderTemplate(route, payload, event).text : renderPrompt(route, payload, event),
      ...(deliverTo ? { deliverTo } : {}),
      ...(route.deliverOnly ? { deliverOnly: true } : {}),
    });
    return { status: 202, body: { status: "accepted", delivery_id: id } };
  }

  private deliverTarget(route: WebhookRoute, payload: unknown, id: string): InboundMessage["deliverTo"] {
    if (route.deliver !== GITHUB_COMMENT) return parseDeliverTarget(route.deliver);
    const url = commentsUrlOf(payload);
    if (!url) {
      this.options.log?.(
        `webhook ${route.name}: event ${id} names no issue or pull request; its answer goes to the log`,
      );
      return undefined;
    }
    // The comment URL rides in the thread id, so a reply retried after a restart still knows it.
    return { platform: this.platform, chatId: route.name, threadId: `${GITHUB_COMMENT}:${url}` };
  }

  private checkRate(route: WebhookRoute): void {
    const limit = this.options.perRouteLimit ?? 30;
    const now = this.now();
    const times = (this.recent.get(route.name) ?? []).filter((t) => now - t < 60_000);
    if (times.length >= limit) {
      const retryAfter = Math.max(1, Math.ceil((60_000 - (now - (times[0] as number))) / 1000));
      this.recent.set(route.name, times);
      throw new RequestError(429, `more than ${limit} events a minute on this route`, {
        "retry-after": String(retryAfter),
      });
    }
    times.push(now);
    this.recent.set(route.name, times);
  }

  private isRepeat(key: string): boolean {
    const now = this.now();
    const window = this.options.idempotencyMs ?? 3_600_000;
    for (const [seenKey, at] of this.seen) {
      if (now - at < window) break;
      this.seen.delete(seenKey);
    }
    if (this.seen.has(key)) return true;
    this.seen.set(key, now);
    return false;
  }
}

function respond(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, cap: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > cap) throw new RequestError(413, `the body is over ${cap} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > cap) throw new RequestError(413, `the body is over ${cap} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parsePayload(contentType: string | undefined, body: Buffer): unknown {
  const text = body.toString("utf8");
  try {
    // GitHub can send its JSON form-encoded, in a `payload` field.
    if (contentType?.startsWith("application/x-www-form-urlencoded")) {
      return JSON.parse(new URLSearchParams(text).get("payload") ?? "null");
    }
    return text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new RequestError(400, "the body is not valid JSON");
  }
}
