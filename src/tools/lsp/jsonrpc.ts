/**
 * JSON-RPC 2.0 over a byte stream with LSP's `Content-Length` framing: requests with ids and
 * their answers, notifications both ways, and requests from the server (answered by a handler).
 */
import type { Readable, Writable } from "node:stream";

export interface RpcMessage {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export class RpcError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/** One frame may not exceed this (a server gone mad must not eat the agent's memory). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

export class RpcConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private closedWith: Error | undefined;
  /** Called for every notification from the server. */
  onNotification: (method: string, params: unknown) => void = () => {};
  /** Answers requests from the server; the default answers null. */
  onRequest: (method: string, params: unknown) => unknown = () => null;
  /** Told once when the server's output cannot be read as LSP messages any more. */
  onBroken: (what: string) => void = () => {};

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    // A write to a server that died is reported by the exit, not as an unhandled error.
    output.on("error", () => {});
  }

  request<T = unknown>(method: string, params?: unknown): { id: number; answer: Promise<T> } {
    const id = this.nextId++;
    const answer = new Promise<T>((resolve, reject) => {
      if (this.closedWith) {
        reject(this.closedWith);
        return;
      }
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    // Dropped answers (the caller stopped waiting) must not turn into unhandled rejections.
    answer.catch(() => {});
    if (!this.closedWith) this.send({ id, method, ...(params === undefined ? {} : { params }) });
    return { id, answer };
  }

  notify(method: string, params?: unknown): void {
    if (this.closedWith) return;
    this.send({ method, ...(params === undefined ? {} : { params }) });
  }

  /** Stop waiting for an answer (the request is told to the server as cancelled). */
  cancel(id: number): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    waiting.reject(new RpcError("cancelled"));
    this.notify("$/cancelRequest", { id });
  }

  /** Fail every request still waiting; later ones fail at once. */
  close(reason: Error): void {
    this.closedWith ??= reason;
    for (const waiting of this.pending.values()) waiting.reject(reason);
    this.pending.clear();
  }

  private send(message: RpcMessage): void {
    const body = JSON.stringify({ jsonrpc: "2.0", ...message });
    this.output.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const headerEnd = this.buffer.indexOf(HEADER_END);
      if (headerEnd < 0) {
        if (this.buffer.length > 8192) this.fail("a message header without its end");
        return;
      }
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const length = Number(/content-length:\s*(\d+)/i.exec(header)?.[1] ?? Number.NaN);
      if (!Number.isFinite(length) || length > MAX_FRAME_BYTES) {
        this.fail("a message without a valid Content-Length");
        return;
      }
      const start = headerEnd + HEADER_END.length;
      if (this.buffer.length < start + length) return;
      const body = this.buffer.subarray(start, start + length).toString("utf8");
      this.buffer = this.buffer.subarray(start + length);
      let message: RpcMessage;
      try {
        message = JSON.parse(body) as RpcMessage;
      } catch {
        continue;
      }
      this.dispatch(message);
    }
  }

  private fail(what: string): void {
    this.buffer = Buffer.alloc(0);
    if (this.closedWith) return;
    this.close(new RpcError(`the server sent ${what}`));
    this.onBroken(`sent ${what}`);
  }

  private dispatch(message: RpcMessage): void {
    if (message.method !== undefined && message.id !== undefined && message.id !== null) {
      let result: unknown = null;
      try {
        result = this.onRequest(message.method, message.params);
      } catch {
        result = null;
      }
      this.send({ id: message.id, result });
      return;
    }
    if (message.method !== undefined) {
      this.onNotification(message.method, message.params);
      return;
    }
    if (typeof message.id !== "number") return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new RpcError(message.error.message, message.error.code));
    else waiting.resolve(message.result);
  }
}
