/**
 * Server-sent events from an HTTP response body, guarded by the stream watchdogs: a silent
 * connection is a `timeout`, a connection that only sends keep-alives is a `stale_stream`, an
 * abort cancels the body at once, and a dropped connection is a `disconnect`. Whether the
 * stream ended *complete* is for the protocol to judge from its own terminator.
 */
import { createParser } from "eventsource-parser";
import { LlmError } from "./errors.js";
import type { HttpResponse } from "./http-client.js";
import {
  abortError,
  disconnectError,
  type ErrorContext,
  errorCode,
  type StreamTimeouts,
  StreamWatchdog,
} from "./watchdog.js";

export interface SseEvent {
  event?: string | undefined;
  data: string;
  id?: string | undefined;
}

export interface ReadSseOptions extends ErrorContext {
  signal: AbortSignal;
  timeouts?: StreamTimeouts | undefined;
  /** Which events prove the stream is alive (default: any event with data that is not a ping). */
  isMeaningful?: (event: SseEvent) => boolean;
}

function defaultMeaningful(event: SseEvent): boolean {
  return event.event !== "ping" && event.data.trim() !== "";
}

function bodyReadError(error: unknown, signal: AbortSignal, context: ErrorContext): LlmError {
  if (error instanceof LlmError) return error;
  if (signal.aborted) return abortError(context);
  const detail = error instanceof Error ? (errorCode(error) ?? error.message) : String(error);
  return disconnectError(context, detail, error);
}

/**
 * Yields parsed SSE events until the body ends. A loop that stops early (the protocol saw its
 * terminator) lets the connection go back to the pool; a failure closes it.
 */
export async function* readSse(response: HttpResponse, options: ReadSseOptions): AsyncGenerator<SseEvent> {
  const { signal } = options;
  const context: ErrorContext = { provider: options.provider, model: options.model };
  const isMeaningful = options.isMeaningful ?? defaultMeaningful;
  if (signal.aborted) {
    response.cancel();
    throw abortError(context);
  }
  const chunks = response.body[Symbol.asyncIterator]();
  const watchdog = new StreamWatchdog(options.timeouts, signal, context);
  const decoder = new TextDecoder();
  const queue: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  let lastChar: string | undefined;
  let failed = false;
  try {
    for (;;) {
      const chunk = await watchdog.next(
        chunks.next().catch((error: unknown) => {
          throw bodyReadError(error, signal, context);
        }),
      );
      const text = chunk.done ? decoder.decode() : decoder.decode(chunk.value, { stream: true });
      parser.feed(text);
      if (text) lastChar = text[text.length - 1];
      // A server may close right after an event's last line without the blank line that ends it;
      // a stream cut mid-line stays unfinished.
      if (chunk.done && (lastChar === "\n" || lastChar === "\r")) parser.feed("\n");
      while (queue.length > 0) {
        const event = queue.shift()!;
        if (isMeaningful(event)) watchdog.progress();
        yield event;
      }
      if (chunk.done) return;
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    if (failed) response.cancel();
    else response.release();
  }
}
