/**
 * One MCP server: starting it (stdio child or HTTP session), the handshake under a deadline,
 * listing tools, calling them, and noticing when it goes away. Tool calls never throw: every
 * failure becomes an "Error:" result the model can read.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { packageVersion } from "../../util/version.js";
import { sandboxed } from "../sandbox.js";
import { interpolate, interpolateMap, serverEnvironment } from "./env.js";
import { formatCallResult, type McpCallResult } from "./results.js";
import { type SamplingGate, samplingRequestHandler } from "./sampling.js";
import { loadSdk, type McpSdk } from "./sdk.js";
import {
  configuredTransport,
  DEFAULT_CALL_TIMEOUT_SECONDS,
  DEFAULT_CONNECT_TIMEOUT_SECONDS,
  type McpServerSettings,
  type McpTransportKind,
} from "./settings.js";

export type McpServerState = "idle" | "connecting" | "connected" | "disconnected" | "failed" | "closed";

export interface McpToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ConnectionHooks {
  /** Environment `${VAR}` references and the stdio server's safe set come from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The server announced that its tool list changed. */
  onToolsChanged?: () => void;
  /** The connection came back after the server went away. */
  onReconnected?: () => void;
  onStateChange?: () => void;
  /** Answers the server's sampling requests; without it the sampling capability is not declared. */
  sampling?: SamplingGate;
}

interface Session {
  client: Client;
  kind: McpTransportKind;
  pid: number | undefined;
  /** Ends the server-side session (HTTP DELETE) before the transport closes. */
  terminate?: () => Promise<void>;
}

class ConnectTimeout extends Error {}
class ConnectAborted extends Error {}

const STDERR_TAIL_CHARS = 2000;
const TERMINATE_WAIT_MS = 2000;
const MAX_TOOL_PAGES = 100;

function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch hides the network reason ("connection refused") in `cause`.
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}

function seconds(value: number | undefined, fallback: number): number {
  return typeof value === "number" && value > 0 ? value : fallback;
}

/**
 * The SDK puts a whole error body in its message; an HTML error page (a proxy's 502) becomes
 * its title or first line of text, so a failure stays one readable line.
 */
export function oneLineBody(text: string): string {
  if (!/<(!doctype|html|head|body)\b/i.test(text)) return text.replace(/\s+/g, " ").trim().slice(0, 300);
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  const head = text.slice(0, text.search(/<(!doctype|html)\b/i)).trim();
  const firstText = text
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const summary = title || firstText.slice(0, 120) || "an HTML page";
  return `${head ? `${head} ` : ""}an HTML page: ${summary}`.trim();
}

/** An HTTP transport error with its status code in front, when it has one. */
function httpFailure(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const status = typeof code === "number" && code >= 100 && code < 600 ? `HTTP ${code}: ` : "";
  return `${status}${oneLineBody(message(error))}`;
}

async function settleWithin(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work.catch(() => {}), expired]);
  } finally {
    clearTimeout(timer);
  }
}

export class McpConnection {
  state: McpServerState = "idle";
  /** Why the server is not connected (start failure, crash, ...). */
  lastError: string | undefined;
  /** Time the last successful start and handshake took. */
  connectMs: number | undefined;
  /** Notes about the configuration, such as `${VAR}` references that were not set. */
  readonly warnings: string[] = [];
  private session: Session | undefined;
  private connecting: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private stderrTail = "";
  private startingPid: (() => number | null) | undefined;
  private transportKind: McpTransportKind;

  constructor(
    readonly name: string,
    readonly settings: McpServerSettings,
    private readonly hooks: ConnectionHooks = {},
  ) {
    this.transportKind = configuredTransport(settings);
  }

  get transport(): McpTransportKind {
    return this.transportKind;
  }

  /** Process id of a stdio server that is running or starting. */
  get pid(): number | undefined {
    if (this.session) return this.session.pid;
    return this.state === "connecting" ? (this.startingPid?.() ?? undefined) : undefined;
  }

  get callTimeoutSeconds(): number {
    return seconds(this.settings.timeout, DEFAULT_CALL_TIMEOUT_SECONDS);
  }

  get connectTimeoutSeconds(): number {
    return seconds(this.settings.connect_timeout, DEFAULT_CONNECT_TIMEOUT_SECONDS);
  }

  /** Start the server and complete the handshake within `connect_timeout`; rejects with the reason. */
  connect(): Promise<void> {
    if (this.state === "closed") return Promise.reject(new Error(`MCP server "${this.name}" is shut down`));
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  async listTools(): Promise<McpToolInfo[]> {
    const session = this.session;
    if (!session) throw new Error(`MCP server "${this.name}" is not connected`);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await session.client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.callTimeoutSeconds * 1000,
      });
      for (const tool of result.tools) {
        tools.push({
          name: tool.name,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema as Record<string, unknown>,
        });
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Call one tool; the answer is always text, "Error: ..." when anything went wrong. */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const unavailable = await this.ensureConnected();
    if (unavailable) return unavailable;
    const session = this.session;
    if (!session) return this.unavailableText();
    try {
      const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.callTimeoutSeconds * 1000,
        ...(signal ? { signal } : {}),
      });
      return formatCallResult(result as McpCallResult);
    } catch (error) {
      return this.callFailure(tool, error, session, signal);
    }
  }

  /** Stop the server: ends an HTTP session, stops a stdio child (and gives up a pending start). */
  async close(): Promise<void> {
    this.state = "closed";
    this.abort?.abort();
    await this.connecting?.catch(() => {});
    const session = this.session;
    this.session = undefined;
    this.hooks.onStateChange?.();
    if (!session) return;
    if (session.terminate) await settleWithin(session.terminate(), TERMINATE_WAIT_MS);
    await session.client.close().catch(() => {});
  }

  private setState(state: McpServerState): void {
    if (this.state === "closed") return;
    this.state = state;
    this.hooks.onStateChange?.();
  }

  private async open(): Promise<void> {
    this.setState("connecting");
    const abort = new AbortController();
    this.abort = abort;
    const started = performance.now();
    const deadline = started + this.connectTimeoutSeconds * 1000;
    this.warnings.length = 0;
    try {
      const sdk = await loadSdk();
      const session = this.settings.command
        ? await this.openStdio(sdk, deadline, abort.signal)
        : await this.openHttp(sdk, deadline, abort.signal);
      if (this.state === "closed") {
        await session.client.close().catch(() => {});
        throw new ConnectAborted("shut down while starting");
      }
      this.session = session;
      this.transportKind = session.kind;
      this.watch(session);
      this.startingPid = undefined;
      this.connectMs = Math.round(performance.now() - started);
      this.lastError = undefined;
      this.setState("connected");
    } catch (error) {
      this.lastError = this.describeStartFailure(error);
      this.setState("failed");
      throw new Error(this.lastError);
    } finally {
      if (this.abort === abort) this.abort = undefined;
    }
  }

  private describeStartFailure(error: unknown): string {
    if (error instanceof ConnectTimeout) {
      return `no answer to the MCP handshake within ${this.connectTimeoutSeconds}s${this.stderrNote()}`;
    }
    if (error instanceof ConnectAborted) return "shut down while starting";
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT" && this.settings.command) {
      return `command not found: ${this.settings.command} (check the command and PATH)`;
    }
    return `${message(error)}${this.stderrNote()}`;
  }

  private newClient(sdk: McpSdk): Client {
    const sampling = this.hooks.sampling;
    const capabilities = sampling ? { sampling: {} } : {};
    const client = new sdk.Client({ name: "hermes-agent", version: packageVersion() }, { capabilities });
    if (sampling) client.setRequestHandler(sdk.CreateMessageRequestSchema, samplingRequestHandler(sampling, sdk));
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, async () => {
      this.hooks.onToolsChanged?.();
    });
    return client;
  }

  /** Mark the server disconnected when its transport closes without being asked to. */
  private watch(session: Session): void {
    session.client.onclose = () => {
      if (this.session !== session) return;
      this.session = undefined;
      this.lastError = `the server closed the connection${this.stderrNote()}`;
      this.setState("disconnected");
    };
  }

  private async openStdio(sdk: McpSdk, deadline: number, signal: AbortSignal): Promise<Session> {
    const command = this.settings.command ?? "";
    const env = serverEnvironment(this.settings.env ?? {}, this.hooks.env ?? process.env);
    this.noteMissing(env.missing);
    const cwd = this.settings.cwd ?? process.cwd();
    const program = this.settings.sandbox
      ? sandboxed(command, this.settings.args ?? [], cwd)
      : { file: command, args: this.settings.args ?? [] };
    const transport = new sdk.StdioClientTransport({
      command: program.file,
      args: program.args,
      env: env.values,
      stderr: "pipe",
      ...(this.settings.cwd ? { cwd: this.settings.cwd } : {}),
    });
    this.stderrTail = "";
    this.startingPid = () => transport.pid;
    // Reading the pipe keeps a chatty server from blocking on a full stderr buffer.
    transport.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    const client = this.newClient(sdk);
    await this.handshake(client, transport, deadline, signal);
    return { client, kind: "stdio", pid: transport.pid ?? undefined };
  }

  private async openHttp(sdk: McpSdk, deadline: number, signal: AbortSignal): Promise<Session> {
    const env = this.hooks.env ?? process.env;
    const url = interpolate(this.settings.url ?? "", env);
    const headers = interpolateMap(this.settings.headers ?? {}, env);
    this.noteMissing([...url.missing, ...headers.missing]);
    let target: URL;
    try {
      target = new URL(url.value);
    } catch {
      throw new Error(`"${url.value}" is not a valid URL`);
    }
    const requestInit: RequestInit = { headers: headers.values };
    const streamable = new sdk.StreamableHTTPClientTransport(target, { requestInit });
    const client = this.newClient(sdk);
    try {
      await this.handshake(client, streamable, deadline, signal);
      return { client, kind: "http", pid: undefined, terminate: () => streamable.terminateSession() };
    } catch (error) {
      if (error instanceof ConnectTimeout || error instanceof ConnectAborted) throw error;
      // Servers from before Streamable HTTP speak the older HTTP+SSE transport.
      const sse = new sdk.SSEClientTransport(target, { requestInit });
      const fallback = this.newClient(sdk);
      try {
        await this.handshake(fallback, sse, deadline, signal);
      } catch (fallbackError) {
        if (fallbackError instanceof ConnectTimeout || fallbackError instanceof ConnectAborted) throw fallbackError;
        throw new Error(
          `Streamable HTTP failed (${httpFailure(error)}); SSE failed too (${httpFailure(fallbackError)})`,
        );
      }
      return { client: fallback, kind: "sse", pid: undefined };
    }
  }

  /** `client.connect` raced against the deadline and against `close()`; cleans up on failure. */
  private async handshake(client: Client, transport: Transport, deadline: number, signal: AbortSignal): Promise<void> {
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw new ConnectTimeout();
    const connecting = client.connect(transport, { timeout: remaining });
    connecting.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ConnectTimeout()), remaining);
      onAbort = () => reject(new ConnectAborted());
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([connecting, stopped]);
    } catch (error) {
      await client.close().catch(() => {});
      await transport.close().catch(() => {});
      const sdk = await loadSdk();
      if (error instanceof sdk.McpError && error.code === sdk.ErrorCode.RequestTimeout) throw new ConnectTimeout();
      throw error;
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  private noteMissing(names: string[]): void {
    for (const name of new Set(names)) this.warnings.push(`\${${name}} is not set; it was replaced by an empty string`);
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim().split("\n").slice(-3).join(" | ").slice(-300);
    return tail ? ` (stderr: ${tail})` : "";
  }

  private unavailableText(): string {
    const why = this.lastError ? ` (${this.lastError})` : "";
    return `Error: MCP server "${this.name}" is unavailable${why}. Fix it and run /reload-mcp to try again.`;
  }

  /** undefined when the server is ready; otherwise the error result to return. */
  private async ensureConnected(): Promise<string | undefined> {
    if (this.state === "connected" && this.session) return undefined;
    if (this.connecting) {
      try {
        await this.connecting;
        return undefined;
      } catch {
        return this.unavailableText();
      }
    }
    if (this.state !== "disconnected") return this.unavailableText();
    // One restart per loss: if it fails the server stays failed until a reload.
    try {
      await this.connect();
    } catch {
      return `Error: MCP server "${this.name}" stopped and could not be restarted (${this.lastError}). Fix it and run /reload-mcp to try again.`;
    }
    this.hooks.onReconnected?.();
    return undefined;
  }

  private async callFailure(tool: string, error: unknown, session: Session, signal?: AbortSignal): Promise<string> {
    const label = `MCP tool "${tool}" on server "${this.name}"`;
    if (signal?.aborted) return `Error: ${label} was interrupted before it finished.`;
    const sdk = await loadSdk();
    const stillCurrent = this.session === session;
    if (error instanceof sdk.McpError) {
      if (error.code === sdk.ErrorCode.RequestTimeout) {
        return `Error: ${label} did not finish within ${this.callTimeoutSeconds}s (timeout).`;
      }
      // A JSON-RPC error from a live server: the call failed, the server is fine.
      if (stillCurrent && this.state === "connected") return `Error: ${label} failed: ${error.message}`;
    } else if (stillCurrent && (error as { name?: unknown }).name === "ZodError") {
      return `Error: ${label} returned a result that is not valid MCP: ${message(error)}`;
    }
    if (stillCurrent) await this.dropSession(message(error));
    return `Error: MCP server "${this.name}" went away during the call to "${tool}" (${this.lastError}). It will be restarted on the next call.`;
  }

  private async dropSession(reason: string): Promise<void> {
    const session = this.session;
    this.session = undefined;
    this.lastError = reason;
    this.setState("disconnected");
    await session?.client.close().catch(() => {});
  }
}
