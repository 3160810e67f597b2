/**
 * Retry delays and abortable sleeping.
 *
 * The default jitter source is a small PRNG reseeded on every call from a per-process random
 * value, a call counter and the clock, so concurrent sessions (in one process or many) that
 * fail at the same moment spread their retries instead of hammering the provider in step.
 */
import { nodeCrypto } from "./node-crypto.js";

export interface BackoffOptions {
  /** Delay of the first retry before jitter (default 5 s). */
  baseMs?: number;
  /** Ceiling of the exponential part before jitter (default 120 s). */
  capMs?: number;
  /** Jitter adds up to this fraction of the delay (default 0.5). */
  jitterRatio?: number;
  /** Uniform random in [0, 1); defaults to the decorrelated source described above. */
  random?: () => number;
  /** A server-given wait (retry-after): when present it is the delay, exactly (after capping). */
  retryAfterMs?: number;
  /** A server-given wait longer than this is capped to it (default: capMs). */
  maxRetryAfterMs?: number;
}

/** Drawn on the first retry, not at start-up (a run that never retries never loads node:crypto). */
let processSeed: number | undefined;
const GOLDEN_RATIO_32 = 0x9e3779b9;
let tick = 0;

/** mulberry32: one well-mixed 32-bit step, enough to turn a seed into a uniform draw. */
function mix32(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

export function decorrelatedRandom(): number {
  tick = (tick + 1) >>> 0;
  const clock = Number(process.hrtime.bigint() & 0xffffffffn);
  processSeed ??= nodeCrypto().randomBytes(4).readUInt32LE(0);
  return mix32((processSeed ^ Math.imul(tick, GOLDEN_RATIO_32) ^ clock) >>> 0);
}

/**
 * Delay before retry number `attempt` (1-based): base * 2^(attempt-1) capped at capMs, plus up
 * to jitterRatio of that as jitter. A retry-after from the server replaces all of that: the
 * server knows when it will take the request, so waiting longer only wastes the user's time
 * (and it already staggers the clients it tells).
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions = {}): number {
  const baseMs = options.baseMs ?? 5000;
  const capMs = options.capMs ?? 120_000;
  if (options.retryAfterMs !== undefined && options.retryAfterMs >= 0 && Number.isFinite(options.retryAfterMs)) {
    return Math.min(options.retryAfterMs, options.maxRetryAfterMs ?? capMs);
  }
  const jitterRatio = options.jitterRatio ?? 0.5;
  const random = options.random ?? decorrelatedRandom;
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const delay = Math.min(baseMs * 2 ** Math.min(exponent, 52), capMs);
  return delay + random() * jitterRatio * delay;
}

export function abortError(reason?: unknown): Error {
  const error = new Error("The operation was aborted", reason === undefined ? undefined : { cause: reason });
  error.name = "AbortError";
  return error;
}

/** Waits `ms`, or rejects with an AbortError as soon as `signal` aborts (or at once if it has). */
export function sleepWithSignal(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal.reason));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal?.reason));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
