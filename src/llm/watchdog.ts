/**
 * The two watchdogs a long model stream needs, for any source of stream items (SSE bytes or
 * SDK events): a per-read timeout (nothing at all arrives) and stale-stream detection (things
 * arrive, e.g. keep-alive pings, but nothing meaningful). Also the shared stream errors.
 */
import { LlmError } from "./errors.js";

export interface StreamTimeouts {
  /** Longest wait for the next chunk of bytes or event (default 60 s). */
  readMs?: number;
  /** Longest time without a meaningful event (default 90 s). */
  staleMs?: number;
  /** Longest wait for the first byte of the response, its headers (default 30 s). */
  headersMs?: number;
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 30_000;
export const DEFAULT_STALE_TIMEOUT_MS = 90_000;

export interface ErrorContext {
  provider?: string | undefined;
  model?: string | undefined;
}

export function abortError(context: ErrorContext): LlmError {
  return new LlmError("The request was cancelled.", { kind: "abort", ...context });
}

/** A stream that stopped before its protocol's terminator. */
export function disconnectError(context: ErrorContext, detail = "the stream ended early", cause?: unknown): LlmError {
  return new LlmError(`The connection closed before the reply was complete (${detail}).`, {
    kind: "disconnect",
    ...context,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The system error code (ECONNRESET, ...) carried by an error or its causes. */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const nested = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(nested) && nested.length > 0) {
      const inner = errorCode(nested[0]);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const TIMED_OUT = Symbol("timed out");

export class StreamWatchdog {
  private readonly readMs: number;
  private readonly staleMs: number;
  private lastProgress = Date.now();

  constructor(
    timeouts: StreamTimeouts | undefined,
    private readonly signal: AbortSignal,
    private readonly context: ErrorContext,
  ) {
    this.readMs = timeouts?.readMs ?? DEFAULT_READ_TIMEOUT_MS;
    this.staleMs = timeouts?.staleMs ?? DEFAULT_STALE_TIMEOUT_MS;
  }

  /** Records that a meaningful event arrived. */
  progress(): void {
    this.lastProgress = Date.now();
  }

  /**
   * Awaits the next stream item. Rejects with LlmError `timeout` or `stale_stream` when a
   * watchdog fires, and with `abort` as soon as the signal fires.
   */
  async next<T>(item: Promise<T>): Promise<T> {
    const staleLeft = this.staleMs - (Date.now() - this.lastProgress);
    const result = await this.within(item, Math.max(0, Math.min(this.readMs, staleLeft)));
    if (result !== TIMED_OUT) return result;
    if (staleLeft <= this.readMs) {
      throw new LlmError(`The stream sent nothing meaningful for ${Math.round(this.staleMs / 1000)} s.`, {
        kind: "stale_stream",
        ...this.context,
      });
    }
    throw new LlmError(`No data arrived for ${Math.round(this.readMs / 1000)} s while reading the stream.`, {
      kind: "timeout",
      ...this.context,
    });
  }

  private async within<T>(item: Promise<T>, waitMs: number): Promise<T | typeof TIMED_OUT> {
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        item,
        new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), waitMs);
        }),
        new Promise<never>((_, reject) => {
          onAbort = () => reject(abortError(this.context));
          if (this.signal.aborted) onAbort();
          else this.signal.addEventListener("abort", onAbort, { once: true });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) this.signal.removeEventListener("abort", onAbort);
    }
  }
}
