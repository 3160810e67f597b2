/**
 * The Socket Mode connection. The SDK reconnects by itself when Slack asks it to
 * (`disconnect` frames: refresh_requested, warning) or when the socket drops; it waits
 * `pingTimeoutMs` times the number of failed attempts in a row before each try. When it cannot
 * get back within `maxReconnectAttempts`, or a reconnect fails outright (the app token was
 * revoked), the connection reports itself lost and the gateway core takes over.
 */
import { type Logger, LogLevel, SocketModeClient } from "@slack/socket-mode";
import type { AppsConnectionsOpenResponse } from "@slack/web-api";

export interface SocketEnvelope {
  type: string;
  envelopeId: string;
  body: unknown;
  retryAttempt?: number;
  ack: () => Promise<void>;
}

export interface SlackSocketOptions {
  appToken: string;
  apiUrl?: string;
  /** How long a pong may take before the socket counts as dead; also the reconnect back-off step. */
  pingTimeoutMs: number;
  maxReconnectAttempts: number;
  /** How long the first connection may take (hello included). */
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  log: (line: string) => void;
  onEnvelope: (envelope: SocketEnvelope) => void;
  onLost: (error: Error) => void;
}

export type SocketState = "connecting" | "connected" | "reconnecting" | "stopped";

/** The SDK's own messages, warnings and errors only, into the gateway log. */
export function sdkLogger(log: (line: string) => void): Logger {
  let level = LogLevel.WARN;
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...parts: unknown[]) => log(`slack: ${parts.map(String).join(" ")}`),
    error: (...parts: unknown[]) => log(`slack: ${parts.map(String).join(" ")}`),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/** A client whose automatic reconnects report failure instead of leaving a rejected promise behind. */
class ReportingSocketModeClient extends SocketModeClient {
  onReconnectFailure: (error: unknown) => void = () => undefined;
  /** Set once the gateway let go of this client: no attempt in flight may leave a socket open. */
  private abandoned = false;

  /** The first connection: failures reject. */
  async open(): Promise<AppsConnectionsOpenResponse> {
    const result = await super.start();
    await this.closeIfAbandoned();
    return result;
  }

  /** Called by the SDK itself to reconnect. */
  override async start(): Promise<AppsConnectionsOpenResponse> {
    if (this.abandoned) return { ok: false, error: "stopped" };
    try {
      const result = await super.start();
      await this.closeIfAbandoned();
      return result;
    } catch (error) {
      if (!this.abandoned) this.onReconnectFailure(error);
      return { ok: false, error: "reconnect failed" };
    }
  }

  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.disconnect();
  }

  private async closeIfAbandoned(): Promise<void> {
    if (this.abandoned) await this.disconnect();
  }
}

export class SlackSocket {
  state: SocketState = "stopped";
  /** When the state last changed (epoch ms). */
  since = Date.now();
  private client: ReportingSocketModeClient | undefined;
  private attempts = 0;

  constructor(private readonly options: SlackSocketOptions) {}

  async start(): Promise<void> {
    const { options } = this;
    const client = new ReportingSocketModeClient({
      appToken: options.appToken,
      logger: sdkLogger(options.log),
      autoReconnectEnabled: true,
      clientPingTimeout: options.pingTimeoutMs,
      serverPingTimeout: Math.max(30_000, options.pingTimeoutMs * 3),
      clientOptions: {
        ...(options.apiUrl ? { slackApiUrl: options.apiUrl } : {}),
        // For apps.connections.open only: a few quick tries, then the SDK's reconnect loop.
        retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
        timeout: options.requestTimeoutMs,
      },
    });
    this.client = client;
    this.attempts = 0;
    client.onReconnectFailure = (error) => this.lose(`reconnecting to Slack failed: ${describe(error)}`);
    client.on("connected", () => {
      this.attempts = 0;
      this.setState("connected");
    });
    client.on("reconnecting", () => {
      this.attempts += 1;
      this.setState("reconnecting");
      if (this.attempts > options.maxReconnectAttempts) {
        this.lose(`could not reconnect to Slack after ${options.maxReconnectAttempts} attempts`);
      }
    });
    client.on("slack_event", (event: Record<string, unknown>) => {
      if (this.client !== client) return;
      options.onEnvelope({
        type: String(event.type),
        envelopeId: String(event.envelope_id ?? ""),
        body: event.body,
        ...(typeof event.retry_num === "number" ? { retryAttempt: event.retry_num } : {}),
        ack: event.ack as () => Promise<void>,
      });
    });
    this.setState("connecting");
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Slack's Socket Mode did not say hello within ${options.connectTimeoutMs} ms`)),
        options.connectTimeoutMs,
      );
    });
    try {
      await Promise.race([client.open(), timeout]);
    } catch (error) {
      await this.stop();
      throw new Error(`connecting to Slack's Socket Mode failed: ${describe(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.setState("stopped");
    if (!client) return;
    client.removeAllListeners("slack_event");
    client.removeAllListeners("reconnecting");
    client.removeAllListeners("connected");
    client.onReconnectFailure = () => undefined;
    await client.abandon();
  }

  private setState(state: SocketState): void {
    if (this.state === state) return;
    this.state = state;
    this.since = Date.now();
  }

  private lose(reason: string): void {
    if (!this.client || this.state === "stopped") return;
    const client = this.client;
    this.client = undefined;
    this.setState("stopped");
    client.onReconnectFailure = () => undefined;
    void client.abandon().catch(() => undefined);
    this.options.onLost(new Error(reason));
  }
}

function describe(error: unknown): string {
  const coded = error as { data?: { error?: string }; message?: string } | undefined;
  return coded?.data?.error ?? coded?.message ?? String(error);
}
