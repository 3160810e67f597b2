/**
 * A local stand-in for Slack, on one loopback port: the Web API (`/api/<method>`), the file
 * upload and download URLs it hands out, and Socket Mode (the WebSocket `apps.connections.open`
 * points to). Socket Mode speaks Slack's frames: `hello` on connect, `events_api` and
 * `interactive` envelopes that expect an `{ envelope_id }` ack, `disconnect` frames, and
 * redelivery with `retry_attempt` / `retry_reason` of what was not acknowledged in time.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { ConditionWaiters } from "../../helpers/condition-waiters.js";
import { FAKE_BOT, FAKE_TEAM, FakeSlackState, type RecordedCall } from "./web-api.js";

export { FAKE_BOT, FAKE_TEAM } from "./web-api.js";

export interface FakeSlackOptions {
  botToken?: string;
  appToken?: string;
  /** Unacknowledged envelopes are sent again after this long (Slack waits about 3 s). */
  ackTimeoutMs?: number;
}

export interface Envelope {
  envelope_id: string;
  type: "events_api" | "interactive";
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  retry_attempt?: number;
  retry_reason?: string;
}

interface PendingEnvelope {
  envelope: Envelope;
  attempts: number;
  acked: boolean;
  timer?: NodeJS.Timeout;
}

export class FakeSlack {
  readonly state: FakeSlackState;
  /** Every frame the fake sent, in order (hello, envelopes, disconnects). */
  readonly sentFrames: Record<string, unknown>[] = [];
  /** Envelope ids acknowledged by the client, in order (repeats included). */
  readonly acks: string[] = [];
  connections = 0;
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, PendingEnvelope>();
  private readonly outbox: Envelope[] = [];
  private readonly conditions = new ConditionWaiters("fake Slack");
  private port = 0;

  constructor(private readonly options: FakeSlackOptions = {}) {
    this.state = new FakeSlackState(
      { bot: options.botToken ?? "xoxb-fake-bot-token", app: options.appToken ?? "xapp-fake-app-token" },
      () => this.url,
    );
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on("upgrade", (req, socket, head) => {
      const url = new URL(req.url ?? "/", "http://fake");
      if (!url.pathname.startsWith("/link") || !this.state.takeTicket(url.searchParams.get("ticket"))) {
        socket.end("HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n");
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The Web API root the SDK is given (ends with a slash). */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  get calls(): RecordedCall[] {
    return this.state.calls;
  }

  get connected(): boolean {
    return this.socket !== undefined;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async close(): Promise<void> {
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sends an Events API envelope carrying `event`; returns its envelope id. */
  sendEvent(event: Record<string, unknown>): string {
    const eventId = `Ev${randomBytes(5).toString("hex").toUpperCase()}`;
    return this.enqueue("events_api", {
      token: "verification-token",
      team_id: FAKE_TEAM.id,
      api_app_id: FAKE_BOT.appId,
      event: { event_ts: event.ts, ...event },
      type: "event_callback",
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: FAKE_TEAM.id, user_id: FAKE_BOT.userId, is_bot: true }],
      is_ext_shared_channel: false,
    });
  }

  /** Sends an `interactive` envelope (a `block_actions` payload, for instance). */
  sendInteractive(payload: Record<string, unknown>): string {
    return this.enqueue("interactive", payload);
  }

  /** Slack asking the client to reconnect (`refresh_requested`, `warning`, `link_disabled`). */
  requestReconnect(reason = "refresh_requested"): void {
    this.frame({ type: "disconnect", reason, debug_info: { host: "fake-slack" } });
  }

  /** Drops the TCP connection under the socket, with no close frame. */
  dropSocket(): void {
    this.socket?.terminate();
  }

  /** Delivers an envelope again as Slack does when an ack came too late. */
  redeliver(envelopeId: string, reason = "timeout"): void {
    const entry = this.pending.get(envelopeId);
    if (!entry) throw new Error(`no envelope ${envelopeId}`);
    entry.attempts += 1;
    entry.acked = false;
    this.deliver({ ...entry.envelope, retry_attempt: entry.attempts, retry_reason: reason });
  }

  acked(envelopeId: string): boolean {
    return this.pending.get(envelopeId)?.acked ?? false;
  }

  /** Resolves when `test` holds, checked after every call, frame and ack; rejects after `timeoutMs`. */
  waitFor(test: () => boolean, what = "a condition", timeoutMs = 20_000): Promise<void> {
    return this.conditions.waitFor(test, what, timeoutMs);
  }

  /** Resolves with the first recorded call of `method` (from index `from`) that `match` accepts. */
  async waitForCall(
    method: string,
    match: (call: RecordedCall) => boolean = () => true,
    from = 0,
  ): Promise<RecordedCall> {
    const find = () => this.calls.slice(from).find((call) => call.method === method && match(call));
    await this.waitFor(() => find() !== undefined, `a ${method} call`);
    return find() as RecordedCall;
  }

  private notify(): void {
    this.conditions.notify();
  }

  private enqueue(type: Envelope["type"], payload: Record<string, unknown>): string {
    const envelope: Envelope = {
      envelope_id: randomBytes(16).toString("hex"),
      type,
      payload,
      accepts_response_payload: false,
      ...(type === "events_api" ? { retry_attempt: 0, retry_reason: "" } : {}),
    };
    this.pending.set(envelope.envelope_id, { envelope, attempts: 0, acked: false });
    this.deliver(envelope);
    return envelope.envelope_id;
  }

  private deliver(envelope: Envelope): void {
    if (!this.socket) {
      this.outbox.push(envelope);
      return;
    }
    this.frame(envelope);
    const entry = this.pending.get(envelope.envelope_id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      // Slack tries an unacknowledged envelope three more times.
      if (!entry.acked && entry.attempts < 3) this.redeliver(envelope.envelope_id);
    }, this.options.ackTimeoutMs ?? 3_000);
  }

  private frame(frame: object): void {
    this.sentFrames.push(frame as Record<string, unknown>);
    this.socket?.send(JSON.stringify(frame));
    this.notify();
  }

  private accept(ws: WebSocket): void {
    this.connections += 1;
    // One live connection at a time: the newest wins, as when the client reconnects.
    this.socket?.terminate();
    this.socket = ws;
    ws.on("message", (data) => this.onClientFrame(data.toString()));
    ws.on("close", () => {
      if (this.socket !== ws) return;
      this.socket = undefined;
      // What this connection never acknowledged comes again on the next one.
      for (const entry of this.pending.values()) {
        if (entry.acked || entry.envelope.type !== "events_api") continue;
        clearTimeout(entry.timer);
        entry.attempts += 1;
        this.outbox.push({ ...entry.envelope, retry_attempt: entry.attempts, retry_reason: "timeout" });
      }
      this.notify();
    });
    this.frame({
      type: "hello",
      num_connections: 1,
      debug_info: { host: "fake-slack", build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: FAKE_BOT.appId },
    });
    for (const envelope of this.outbox.splice(0)) this.deliver(envelope);
  }

  private onClientFrame(text: string): void {
    let frame: { envelope_id?: unknown };
    try {
      frame = JSON.parse(text) as { envelope_id?: unknown };
    } catch {
      return;
    }
    if (typeof frame.envelope_id !== "string") return;
    this.acks.push(frame.envelope_id);
    const entry = this.pending.get(frame.envelope_id);
    if (entry) {
      entry.acked = true;
      clearTimeout(entry.timer);
    }
    this.notify();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    const method = /^\/api\/([\w.]+)$/.exec(url.pathname)?.[1];
    if (method && req.method === "POST") {
      const params = parseParams(req.headers["content-type"], body);
      const header = req.headers.authorization;
      const token = header?.startsWith("Bearer ") ? header.slice(7) : (params.token as string | undefined);
      delete params.token;
      const reply = this.state.call(method, params, token);
      res.writeHead(reply.status, { "content-type": "application/json; charset=utf-8", ...reply.headers });
      res.end(JSON.stringify(reply.body));
      this.notify();
      return;
    }
    const upload = /^\/upload\/v1\/(F[A-Z0-9]+)$/.exec(url.pathname);
    if (upload && req.method === "POST") return this.receiveUpload(upload[1] as string, req, body, res);
    const download = /^\/files-pri\/[A-Z0-9]+-(F[A-Z0-9]+)\/download\//.exec(url.pathname);
    if (download && req.method === "GET") {
      const file = this.state.files.get(download[1] as string);
      if (req.headers.authorization !== `Bearer ${this.state.tokens.bot}` || !file) {
        // Slack answers an unauthenticated file request with its sign-in page.
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end("<!DOCTYPE html><html><body>Sign in to Slack</body></html>");
        return;
      }
      res.writeHead(200, { "content-type": file.mimeType, "content-length": file.data.length });
      res.end(file.data);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  }

  private async receiveUpload(id: string, req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    const file = this.state.files.get(id);
    if (!file) {
      res.writeHead(404).end("no such upload");
      return;
    }
    const type = req.headers["content-type"] ?? "application/octet-stream";
    let data = body;
    if (type.startsWith("multipart/form-data")) {
      const form = await new Response(new Uint8Array(body), { headers: { "content-type": type } }).formData();
      const part = [...form.values()].find((value) => typeof value !== "string");
      if (part && typeof part !== "string") data = Buffer.from(await part.arrayBuffer());
    }
    file.data = data;
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(`OK - ${data.length}`);
    this.notify();
  }
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  return new FakeSlack(options).listen();
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Form fields Slack reads as JSON when the client sends them form-encoded. */
const JSON_FIELDS = new Set(["blocks", "attachments", "files", "metadata"]);

function parseParams(contentType: string | undefined, body: Buffer): Record<string, unknown> {
  const text = body.toString("utf8");
  if (contentType?.startsWith("application/json")) {
    try {
      return (JSON.parse(text || "{}") as Record<string, unknown>) ?? {};
    } catch {
      return {};
    }
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    if (JSON_FIELDS.has(key)) {
      try {
        params[key] = JSON.parse(value);
        continue;
      } catch {
        // Kept as text, as Slack would then reject it.
      }
    }
    params[key] = value;
  }
  return params;
}
