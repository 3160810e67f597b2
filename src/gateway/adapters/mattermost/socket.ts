/**
 * The Mattermost event stream: a WebSocket at `{server}/api/v4/websocket`, authenticated by an
 * `authentication_challenge` carrying the token (the server answers `{status: "OK", seq_reply}`
 * and closes the socket on a bad token). The socket is pinged every `pingIntervalMs`; a missing
 * pong, or any close the gateway did not ask for, reports the listener lost, and the gateway
 * core reconnects with backoff.
 */
import WebSocket from "ws";

/** One frame of the event stream (`posted`, `typing`, `hello`, ...). */
export interface MattermostEvent {
  event: string;
  data?: Record<string, unknown>;
  broadcast?: { channel_id?: string; user_id?: string; team_id?: string };
  seq?: number;
}

export interface MattermostSocketOptions {
  /** ws:// or wss:// address of the event stream. */
  url: string;
  token: string;
  /** How long opening the socket and having the token accepted may take. */
  connectTimeoutMs: number;
  /** How often the socket is pinged; a ping unanswered by the next one means it is dead. */
  pingIntervalMs: number;
  log: (line: string) => void;
  onEvent: (event: MattermostEvent) => void;
  onLost: (error: Error) => void;
}

export type SocketState = "stopped" | "connecting" | "connected";

const AUTH_SEQ = 1;

/** An event, or the answer to an action the client sent (`seq_reply`). */
interface Frame extends Partial<Omit<MattermostEvent, "event">> {
  event?: unknown;
  status?: string;
  seq_reply?: number;
  error?: { id?: string; message?: string };
}

export class MattermostSocket {
  state: SocketState = "stopped";
  /** When the state last changed (epoch ms). */
  since = Date.now();
  private socket: WebSocket | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private awaitingPong = false;
  private abortConnect: ((error: Error) => void) | undefined;

  constructor(private readonly options: MattermostSocketOptions) {}

  /** Opens the socket; resolves once the server accepted the token. */
  async start(): Promise<void> {
    const { options } = this;
    const socket = new WebSocket(options.url, { handshakeTimeout: options.connectTimeoutMs });
    this.socket = socket;
    this.setState("connecting");
    let accepted = false;
    let settled = false;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`Mattermost's WebSocket did not accept the token within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.abortConnect = undefined;
        if (this.socket === socket) this.socket = undefined;
        this.setState("stopped");
        socket.terminate();
        reject(error);
      };
      const accept = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.abortConnect = undefined;
        accepted = true;
        this.setState("connected");
        this.startHeartbeat(socket);
        resolve();
      };
      this.abortConnect = fail;
      socket.on("open", () => {
        socket.send(
          JSON.stringify({ seq: AUTH_SEQ, action: "authentication_challenge", data: { token: options.token } }),
        );
      });
      socket.on("message", (data) => {
        const frame = parseFrame(data.toString());
        if (!frame) return;
        if (!accepted) {
          if (frame.seq_reply === AUTH_SEQ) {
            if (frame.status === "OK") accept();
            else fail(new Error(`Mattermost refused the WebSocket token: ${frame.error?.message ?? frame.status}`));
            return;
          }
          // Servers that authenticate before answering send their hello first.
          if (frame.event !== "hello") return;
          accept();
        }
        if (this.socket !== socket) return;
        if (typeof frame.event === "string") options.onEvent(frame as MattermostEvent);
      });
      socket.on("pong", () => {
        this.awaitingPong = false;
      });
      socket.on("error", (error) => {
        if (!accepted) fail(new Error(`opening Mattermost's WebSocket failed: ${error.message}`));
        else options.log(`mattermost: WebSocket error: ${error.message}`);
      });
      socket.on("close", (code, reason) => {
        const why = `code ${code}${reason.length ? `, ${reason.toString()}` : ""}`;
        if (!accepted) {
          fail(
            new Error(
              `Mattermost closed the WebSocket before accepting the token (${why}); check MATTERMOST_TOKEN and that the bot account is active`,
            ),
          );
        } else {
          this.lose(socket, `the Mattermost WebSocket closed (${why})`);
        }
      });
    });
  }

  async stop(): Promise<void> {
    this.abortConnect?.(new Error("stopped while connecting to Mattermost"));
    const socket = this.socket;
    this.socket = undefined;
    this.stopHeartbeat();
    this.setState("stopped");
    if (!socket) return;
    socket.removeAllListeners("close");
    socket.removeAllListeners("message");
    socket.on("error", () => undefined);
    if (socket.readyState === WebSocket.OPEN) {
      socket.close(1000);
      // A server that never answers the close frame does not keep the socket open.
      setTimeout(() => socket.terminate(), 1_000).unref();
    } else {
      socket.terminate();
    }
  }

  private startHeartbeat(socket: WebSocket): void {
    this.stopHeartbeat();
    this.awaitingPong = false;
    this.heartbeat = setInterval(() => {
      if (this.socket !== socket) return;
      if (this.awaitingPong) {
        this.lose(socket, `Mattermost's WebSocket did not answer a ping within ${this.options.pingIntervalMs} ms`);
        return;
      }
      this.awaitingPong = true;
      socket.ping();
    }, this.options.pingIntervalMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  private lose(socket: WebSocket, reason: string): void {
    if (this.socket !== socket || this.state === "stopped") return;
    this.socket = undefined;
    this.stopHeartbeat();
    this.setState("stopped");
    socket.removeAllListeners("close");
    socket.on("error", () => undefined);
    socket.terminate();
    this.options.onLost(new Error(reason));
  }

  private setState(state: SocketState): void {
    if (this.state === state) return;
    this.state = state;
    this.since = Date.now();
  }
}

function parseFrame(text: string): Frame | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === "object" ? (parsed as Frame) : undefined;
  } catch {
    return undefined;
  }
}
