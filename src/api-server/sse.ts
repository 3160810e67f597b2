/**
 * Server-sent events written straight to Node's response: no web-stream layer between the
 * agent's deltas and the socket (measured: that layer cost more CPU per streamed reply than
 * the route itself). A write waits for `drain` when the client reads slowly, and `closed`
 * aborts when the client goes away before the stream ends.
 */
import type { ServerResponse } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";

export interface SseStream {
  write(text: string): Promise<void>;
  end(): void;
  /** Aborted when the client disconnects before `end()`. */
  readonly closed: AbortSignal;
  /** Hand this back from the route: the response is already under way. */
  readonly response: Response;
}

export function openSse(c: Context): SseStream {
  const outgoing = (c.env as HttpBindings).outgoing as ServerResponse;
  // Headers set so far (CORS, session id) travel with the stream.
  const headers: Record<string, string> = {};
  c.body(null).headers.forEach((value, name) => {
    headers[name] = value;
  });
  outgoing.writeHead(200, {
    ...headers,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
  });
  outgoing.flushHeaders();
  const closed = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) closed.abort();
  });
  return {
    closed: closed.signal,
    response: RESPONSE_ALREADY_SENT,
    write(text) {
      if (closed.signal.aborted || outgoing.writableEnded || !text) return Promise.resolve();
      if (outgoing.write(text)) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          outgoing.off("drain", done);
          outgoing.off("close", done);
          resolve();
        };
        outgoing.once("drain", done);
        outgoing.once("close", done);
      });
    },
    end() {
      if (!outgoing.writableEnded) outgoing.end();
    },
  };
}
