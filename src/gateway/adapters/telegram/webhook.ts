/**
 * Webhook mode: Telegram POSTs each update to a public address (usually through a reverse proxy
 * to this listener). Only requests carrying the secret token given to `setWebhook` are taken. An
 * update is answered 200 once it has been handed on, so Telegram redelivers what a crash
 * interrupted; the gateway's inbound ledger drops repeats.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Update } from "grammy/types";

export interface WebhookOptions {
  /** The public URL Telegram posts to; its path is the path served here. */
  url: string;
  host: string;
  port: number;
  secret: string;
  handle(update: Update): Promise<void>;
  /** The listener died after it had started. */
  onFatal(error: Error): void;
}

const MAX_BODY_BYTES = 1024 * 1024;
export const SECRET_HEADER = "x-telegram-bot-api-secret-token";

export class WebhookListener {
  private server: Server | undefined;
  private readonly path: string;
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: WebhookOptions) {
    this.path = new URL(options.url).pathname;
  }

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, this.options.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    server.on("error", (error) => this.options.onFatal(error));
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://listener").pathname;
    if (req.method !== "POST" || path !== this.path) return end(res, 404);
    if (!this.authentic(req.headers[SECRET_HEADER])) return end(res, 401);
    let update: Update;
    try {
      update = JSON.parse((await readCapped(req)).toString("utf8")) as Update;
      if (typeof update?.update_id !== "number") return end(res, 400);
    } catch {
      if (req.complete) return end(res, 400);
      end(res, 413);
      // What is left of an oversized body is not read.
      req.destroy();
      return;
    }
    // One at a time, in the order they came.
    const handled = this.queue.then(() => this.options.handle(update));
    this.queue = handled.catch(() => undefined);
    try {
      await handled;
      end(res, 200);
    } catch {
      end(res, 500);
    }
  }

  private authentic(header: string | string[] | undefined): boolean {
    if (typeof header !== "string") return false;
    const given = Buffer.from(header);
    const expected = Buffer.from(this.options.secret);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

async function readCapped(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error("the update is too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function end(res: ServerResponse, status: number): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json" });
  res.end(status === 200 ? "{}" : JSON.stringify({ ok: false }));
}
