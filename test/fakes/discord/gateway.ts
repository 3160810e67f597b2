/**
 * The fake's gateway WebSocket, speaking Discord's v10 JSON frames: HELLO, IDENTIFY → READY and
 * GUILD_CREATE, heartbeats acknowledged, dispatches numbered per session, and RESUME replaying
 * what a dropped connection missed before RESUMED. Compression is refused: discord.js asks for
 * zlib-stream only when the optional zlib-sync package is installed, and it is not.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";

export interface GatewayFrame {
  op: number;
  // biome-ignore lint/suspicious/noExplicitAny: frames carry arbitrary payloads
  d: any;
  s?: number | null;
  t?: string | null;
}

interface Session {
  id: string;
  seq: number;
  events: GatewayFrame[];
  socket: WebSocket | undefined;
}

export interface GatewayOptions {
  token: string;
  heartbeatIntervalMs: number;
  /** READY's payload for a new session (minus session fields). */
  readyPayload(): Record<string, unknown>;
  /** Dispatches that follow READY (GUILD_CREATE). */
  afterReady(): Array<{ t: string; d: unknown }>;
  /** ws:// URL a RESUME should connect to. */
  resumeUrl(): string;
}

export class FakeGateway {
  readonly identifies: Array<Record<string, unknown>> = [];
  readonly resumes: Array<{ session_id: string; seq: number }> = [];
  readonly connectUrls: string[] = [];
  heartbeats = 0;
  private readonly wss = new WebSocketServer({ noServer: true });
  private session: Session | undefined;
  private readonly sockets = new Set<WebSocket>();
  private sessionCounter = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly options: GatewayOptions) {}

  /** Whether a connection has identified (or resumed) and can receive dispatches now. */
  get live(): boolean {
    return this.session?.socket !== undefined;
  }

  get hasSession(): boolean {
    return this.session !== undefined;
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, req));
  }

  /** Sends (or, while no connection is live, keeps for a RESUME) one numbered dispatch. */
  dispatch(t: string, d: unknown): void {
    const session = this.session;
    if (!session) throw new Error("no gateway session: the client has not identified yet");
    session.seq += 1;
    const frame: GatewayFrame = { op: 0, t, s: session.seq, d };
    session.events.push(frame);
    session.socket?.send(JSON.stringify(frame));
  }

  /** Cuts the live connection without a close frame, as a network failure would. */
  drop(): void {
    const socket = this.session?.socket;
    if (!socket) throw new Error("no live gateway connection to drop");
    if (this.session) this.session.socket = undefined;
    socket.terminate();
  }

  /** Closes the live connection with a close code, as Discord does when it ends a session. */
  closeWith(code: number, reason: string): void {
    const socket = this.session?.socket;
    if (!socket) throw new Error("no live gateway connection to close");
    if (this.session) this.session.socket = undefined;
    socket.close(code, reason);
  }

  /** Resolves once a connection is live (after IDENTIFY or RESUME). */
  async untilLive(): Promise<void> {
    while (!this.live) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    for (const socket of this.sockets) socket.terminate();
    this.wss.close();
  }

  private accept(ws: WebSocket, req: IncomingMessage): void {
    this.sockets.add(ws);
    this.connectUrls.push(req.url ?? "");
    const query = new URL(req.url ?? "/", "http://fake").searchParams;
    if (query.get("compress")) {
      ws.close(4000, "this fake gateway serves uncompressed JSON only");
      return;
    }
    if ((query.get("encoding") ?? "json") !== "json" || query.get("v") !== "10") {
      ws.close(4012, "only v=10 with JSON encoding is served");
      return;
    }
    ws.on("close", () => {
      this.sockets.delete(ws);
      if (this.session?.socket === ws) this.session.socket = undefined;
    });
    ws.on("message", (raw) => this.onFrame(ws, raw.toString()));
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.options.heartbeatIntervalMs }, s: null, t: null }));
  }

  private onFrame(ws: WebSocket, raw: string): void {
    let frame: GatewayFrame;
    try {
      frame = JSON.parse(raw) as GatewayFrame;
    } catch {
      ws.close(4002, "Decode error");
      return;
    }
    if (frame.op === 1) {
      this.heartbeats += 1;
      ws.send(JSON.stringify({ op: 11, d: null, s: null, t: null }));
    } else if (frame.op === 2) this.identify(ws, frame.d);
    else if (frame.op === 6) this.resume(ws, frame.d);
    else if (frame.op === 3 || frame.op === 4 || frame.op === 8) {
      // Presence, voice state and member requests are accepted and ignored.
    } else ws.close(4001, "Unknown opcode");
  }

  private identify(ws: WebSocket, payload: Record<string, unknown>): void {
    this.identifies.push(payload);
    if (payload.token !== this.options.token) {
      ws.close(4004, "Authentication failed");
      return;
    }
    if (typeof payload.intents !== "number") {
      ws.close(4013, "Invalid intent(s)");
      return;
    }
    this.sessionCounter += 1;
    const session: Session = { id: `session-${this.sessionCounter}`, seq: 0, events: [], socket: ws };
    this.session = session;
    this.dispatch("READY", {
      ...this.options.readyPayload(),
      v: 10,
      session_id: session.id,
      resume_gateway_url: this.options.resumeUrl(),
      shard: [0, 1],
    });
    for (const event of this.options.afterReady()) this.dispatch(event.t, event.d);
    this.wake();
  }

  private resume(ws: WebSocket, payload: { token: string; session_id: string; seq: number }): void {
    this.resumes.push({ session_id: payload.session_id, seq: payload.seq });
    const session = this.session;
    if (payload.token !== this.options.token || !session || session.id !== payload.session_id) {
      ws.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
      return;
    }
    session.socket = ws;
    for (const frame of session.events.filter((event) => (event.s ?? 0) > payload.seq)) {
      ws.send(JSON.stringify(frame));
    }
    this.dispatch("RESUMED", {});
    this.wake();
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }
}
