/**
 * Drives `hermes acp` as a child process with the ACP SDK's client over its stdio, the way an
 * editor does. Records every stdout line (to check that each is a JSON-RPC frame), every
 * session/update, and offers optional client fs and terminal capabilities.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientCapabilities,
  type ClientConnection,
  type ClientContext,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk/unstable";
import { tempDir } from "../state/temp-dir.js";

export const WAIT_MS = 20_000;

export function hermesHome(providerUrl: string, extraConfig = ""): string {
  const home = tempDir("hermes-acp-");
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${providerUrl}/v1\nmemory:\n  memory_enabled: false\n  user_profile_enabled: false\n${extraConfig}`,
  );
  return home;
}

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export interface AcpClientOptions {
  home: string;
  capabilities?: ClientCapabilities;
  permission?: PermissionAnswer;
  /** Editor buffers: reads of these paths answer from here, and client writes land here. */
  buffers?: Map<string, string>;
}

interface Waiter {
  predicate: (update: SessionNotification) => boolean;
  resolve: (update: SessionNotification) => void;
}

interface ClientTerminal {
  child: ChildProcess;
  output: string;
  exited: Promise<{ exitCode: number | null; signal: string | null }>;
}

export class AcpClient {
  readonly updates: SessionNotification[] = [];
  readonly stdoutLines: string[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  readonly clientCalls: string[] = [];
  stderr = "";
  private partial = "";
  private waiters: Waiter[] = [];
  private readonly terminals = new Map<string, ClientTerminal>();
  readonly exited: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly connection: ClientConnection,
  ) {
    this.exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  }

  get agent(): ClientContext {
    return this.connection.agent;
  }

  static start(options: AcpClientOptions): AcpClient {
    const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "acp"], {
      env: { ...process.env, HERMES_HOME: options.home, OPENROUTER_API_KEY: "", HERMES_YOLO_MODE: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let self: AcpClient | undefined;
    const buffers = options.buffers ?? new Map<string, string>();
    const app = client({ name: "test-editor" })
      .onNotification("session/update", ({ params }) => self!.record(params))
      .onRequest("session/request_permission", async ({ params }) => {
        self!.permissionRequests.push(params);
        const answer = options.permission ?? (() => ({ outcome: { outcome: "cancelled" as const } }));
        return answer(params);
      })
      .onRequest("fs/read_text_file", ({ params }) => {
        self!.clientCalls.push(`read ${params.path}`);
        const text = buffers.get(params.path) ?? readFileSync(params.path, "utf8");
        const lines = text.split("\n");
        const start = (params.line ?? 1) - 1;
        const slice = params.limit ? lines.slice(start, start + params.limit) : lines.slice(start);
        return { content: slice.join("\n") };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        self!.clientCalls.push(`write ${params.path}`);
        buffers.set(params.path, params.content);
        return {};
      })
      .onRequest("terminal/create", ({ params }) => self!.createTerminal(params.command, params.args ?? [], params.cwd))
      .onRequest("terminal/output", ({ params }) => {
        const terminal = self!.terminals.get(params.terminalId)!;
        return { output: terminal.output, truncated: false };
      })
      .onRequest("terminal/wait_for_exit", async ({ params }) => self!.terminals.get(params.terminalId)!.exited)
      .onRequest("terminal/kill", ({ params }) => {
        self!.terminals.get(params.terminalId)?.child.kill("SIGKILL");
        return {};
      })
      .onRequest("terminal/release", ({ params }) => {
        self!.clientCalls.push(`release ${params.terminalId}`);
        self!.terminals.get(params.terminalId)?.child.kill("SIGKILL");
        self!.terminals.delete(params.terminalId);
        return {};
      });
    child.stdout!.on("data", (chunk: Buffer) => self?.recordStdout(chunk.toString("utf8")));
    child.stderr!.on("data", (chunk: Buffer) => {
      if (self) self.stderr += chunk.toString("utf8");
    });
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>,
    );
    const connection = app.connect(stream);
    self = new AcpClient(child, connection);
    return self;
  }

  async initialize(capabilities: ClientCapabilities = {}) {
    return this.agent.request("initialize", { protocolVersion: 1, clientCapabilities: capabilities });
  }

  /** Resolves with the first update (already received or still to come) that matches. */
  waitFor(predicate: (update: SessionNotification) => boolean, what = "update"): Promise<SessionNotification> {
    const seen = this.updates.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within ${WAIT_MS} ms; stderr: ${this.stderr}`)),
        WAIT_MS,
      );
      this.waiters.push({
        predicate,
        resolve: (update) => {
          clearTimeout(timer);
          resolve(update);
        },
      });
    });
  }

  updatesOf(sessionId: string, kind: string) {
    return this.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === kind)
      .map((n) => n.update);
  }

  textOf(sessionId: string, kind = "agent_message_chunk"): string {
    return this.updatesOf(sessionId, kind)
      .map((u) => ("content" in u && !Array.isArray(u.content) && u.content?.type === "text" ? u.content.text : ""))
      .join("");
  }

  /** Close stdin and wait for the process to end; kill it if it does not within the wait. */
  async stop(): Promise<number | null> {
    this.connection.close();
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), WAIT_MS);
    const code = await this.exited;
    clearTimeout(timer);
    for (const terminal of this.terminals.values()) terminal.child.kill("SIGKILL");
    return code;
  }

  kill(): Promise<number | null> {
    this.child.kill("SIGKILL");
    return this.exited;
  }

  private record(notification: SessionNotification): void {
    this.updates.push(notification);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.predicate(notification)) return true;
      waiter.resolve(notification);
      return false;
    });
  }

  private recordStdout(text: string): void {
    this.partial += text;
    const lines = this.partial.split("\n");
    this.partial = lines.pop() ?? "";
    this.stdoutLines.push(...lines.filter((line) => line.length > 0));
  }

  private createTerminal(command: string, args: string[], cwd?: string | null) {
    this.clientCalls.push(`terminal ${command} ${args.join(" ")}`);
    const id = `term-${this.terminals.size + 1}`;
    const child = spawn(command, args, { cwd: cwd ?? undefined, stdio: ["ignore", "pipe", "pipe"] });
    const terminal: ClientTerminal = {
      child,
      output: "",
      exited: new Promise((resolve) => child.once("exit", (exitCode, signal) => resolve({ exitCode, signal }))),
    };
    child.stdout!.on("data", (d: Buffer) => {
      terminal.output += d.toString("utf8");
    });
    child.stderr!.on("data", (d: Buffer) => {
      terminal.output += d.toString("utf8");
    });
    this.terminals.set(id, terminal);
    return { terminalId: id };
  }
}
