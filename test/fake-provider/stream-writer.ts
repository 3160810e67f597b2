/** Writes a reply to the socket, applying the transport-level faults (disconnect, stall, malformed). */
import { setTimeout as sleep } from "node:timers/promises";
import type { Chunk } from "./protocol.js";
import { BROKEN_JSON } from "./sse.js";
import type { PlannedTurn } from "./turn.js";

/** The part of an HTTP/1 or HTTP/2 (compatibility API) response the writers use. */
export interface Reply {
  readonly headersSent: boolean;
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** Present at runtime on both; the HTTP/2 typings omit it. */
  flushHeaders?(): void;
  write(chunk: Chunk, callback: () => void): unknown;
  end(): unknown;
  end(text: string): unknown;
  destroy(): unknown;
  once(event: "close", listener: () => void): unknown;
  off(event: "close", listener: () => void): unknown;
}

/** Tracks whether the client side of a reply is gone. */
class Connection {
  closed = false;
  private readonly onClose: Promise<void>;

  constructor(readonly res: Reply) {
    this.onClose = new Promise((resolve) =>
      res.once("close", () => {
        this.closed = true;
        resolve();
      }),
    );
  }

  /** Resolves once the chunk is handed to the transport (or the connection is gone). */
  write(chunk: Chunk): Promise<void> {
    if (this.closed) return Promise.resolve();
    return Promise.race([new Promise<void>((resolve) => this.res.write(chunk, () => resolve())), this.onClose]);
  }

  whenClosed(): Promise<void> {
    return this.onClose;
  }
}

export async function writeStream(
  res: Reply,
  contentType: string,
  chunks: Chunk[],
  malformed: Chunk,
  turn: PlannedTurn,
  signal: AbortSignal,
): Promise<void> {
  const connection = new Connection(res);
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  res.flushHeaders?.();
  const fault = turn.fault;
  const list = [...chunks];
  if (fault?.kind === "malformed_chunk") list.splice(Math.min(fault.afterChunks, list.length), 0, malformed);
  const cut =
    fault?.kind === "disconnect" || fault?.kind === "stall" ? Math.min(fault.afterChunks, list.length) : list.length;
  for (let i = 0; i < cut; i++) {
    if (i > 0 && turn.chunkDelayMs > 0) await sleep(turn.chunkDelayMs, undefined, { signal }).catch(() => undefined);
    if (connection.closed || signal.aborted) return;
    await connection.write(list[i]!);
  }
  if (fault?.kind === "disconnect") res.destroy();
  else if (fault?.kind === "stall") await connection.whenClosed();
  else res.end();
}

/** A non-streaming JSON reply; stream faults degrade to their whole-body equivalents. */
export async function writeJson(
  res: Reply,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  turn?: PlannedTurn,
): Promise<void> {
  const kind = turn?.fault?.kind;
  if (kind === "disconnect") {
    res.destroy();
    return;
  }
  if (kind === "stall") {
    await new Connection(res).whenClosed();
    return;
  }
  const text = kind === "malformed_chunk" ? BROKEN_JSON : typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}
