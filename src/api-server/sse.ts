/**
 * Server-sent events written straight to Node's response: no web-stream layer between the
 * agent's deltas and the socket (measured: that layer cost more CPU per streamed reply than
 * the route itself). Events written in one turn of the event loop leave in one socket write,
 * the headers with the first of them: on loopback each write costs the server more CPU than
 * building the events (docs/api-server.md, "Under load"). A write waits for `drain` when the
 * client reads slowly, and `closed` aborts when the client goes away before the stream ends.
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
  const closed = new AbortController();
  outgoing.once("close", () => {
    if (!outgoing.writableFinished) closed.abort();
  });
  let buffered = "";
  let scheduled = true;
  let drained: Promise<void> | null = null;
  const waitForDrain = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        outgoing.off("drain", done);
        outgoing.off("close", done);
        drained = null;
        resolve();
      };
      outgoing.once("drain", done);
      outgoing.once("close", done);
    });
  const flush = () => {
    scheduled = false;
    const text = buffered;
    buffered = "";
    if (outgoing.writableEnded || closed.signal.aborted) return;
    // The headers leave at the latest one loop turn after opening, events or not.
    if (!text) outgoing.flushHeaders();
    else if (!outgoing.write(text)) drained ??= waitForDrain();
  };
  setImmediate(flush);
  return {
    closed: closed.signal,
    response: RESPONSE_ALREADY_SENT,
    write(text) {
      if (closed.signal.aborted || outgoing.writableEnded || !text) return Promise.resolve();
      buffered += text;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return drained ?? Promise.resolve();
    },
    end() {
      if (outgoing.writableEnded) return;
      const text = buffered;
      buffered = "";
      if (text && !closed.signal.aborted) outgoing.end(text);
      else outgoing.end();
    },
  };
}
