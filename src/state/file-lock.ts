/**
 * A cross-process lock on a file: an exclusive lock file created with O_EXCL. A holder that
 * crashed leaves its lock behind; a lock untouched for `staleMs` is broken. Live holders keep
 * theirs fresh with a heartbeat, so long critical sections (an OAuth refresh) are not broken.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import { nodeCrypto } from "../util/node-crypto.js";

export interface FileLockOptions {
  /** A lock file older than this is taken to belong to a dead process (default 10 s). */
  staleMs?: number;
  /** Give up waiting after this long (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 25 ms, plus jitter). */
  pollMs?: number;
}

export class FileLockTimeoutError extends Error {
  override name = "FileLockTimeoutError";
  constructor(readonly lockPath: string) {
    super(`Timed out waiting for the lock ${lockPath}`);
  }
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code;

function tryCreate(lockPath: string, token: string): boolean {
  try {
    const fd = openSync(lockPath, "wx", 0o600);
    try {
      writeSync(fd, JSON.stringify({ pid: process.pid, token, at: new Date().toISOString() }));
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
}

/** Removes the lock if it is stale. Returns true when the caller should try again at once. */
function breakIfStale(lockPath: string, staleMs: number): boolean {
  let mtimeMs: number;
  try {
    mtimeMs = statSync(lockPath).mtimeMs;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return true;
    throw error;
  }
  if (Date.now() - mtimeMs <= staleMs) return false;
  // Renaming first means only one waiter gets to delete the stale file.
  const aside = `${lockPath}.stale-${nodeCrypto().randomBytes(4).toString("hex")}`;
  try {
    renameSync(lockPath, aside);
    unlinkSync(aside);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
  return true;
}

function release(lockPath: string, token: string): void {
  try {
    if (readFileSync(lockPath, "utf8").includes(token)) unlinkSync(lockPath);
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * The same lock for short synchronous critical sections (a read-modify-write of a small file):
 * it blocks the thread while it waits, and holds the lock without a heartbeat.
 */
export function withFileLockSync<T>(lockPath: string, fn: () => T, options: FileLockOptions = {}): T {
  const staleMs = options.staleMs ?? 10_000;
  const pollMs = options.pollMs ?? 10;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const token = `${process.pid}-${nodeCrypto().randomBytes(8).toString("hex")}`;
  mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
  while (!tryCreate(lockPath, token)) {
    if (breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() >= deadline) throw new FileLockTimeoutError(lockPath);
    sleepSync(pollMs + Math.random() * pollMs);
  }
  try {
    return fn();
  } finally {
    release(lockPath, token);
  }
}

export async function withFileLock<T>(
  lockPath: string,
  fn: () => T | Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const staleMs = options.staleMs ?? 10_000;
  const pollMs = options.pollMs ?? 25;
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const token = `${process.pid}-${nodeCrypto().randomBytes(8).toString("hex")}`;
  mkdirSync(dirname(lockPath), { recursive: true, mode: 0o700 });
  while (!tryCreate(lockPath, token)) {
    if (breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() >= deadline) throw new FileLockTimeoutError(lockPath);
    await pause(pollMs + Math.random() * pollMs);
  }
  const heartbeat = setInterval(
    () => {
      try {
        const now = new Date();
        utimesSync(lockPath, now, now);
      } catch {
        // The lock vanished (broken as stale); release() will notice it is no longer ours.
      }
    },
    Math.max(50, staleMs / 3),
  );
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    release(lockPath, token);
  }
}
