/**
 * Whole-file writes that never leave a half-written file behind: the new content goes to a
 * temporary sibling, is flushed, and then renamed over the target in one step.
 */
import { chmodSync, closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { nodeCrypto } from "../util/node-crypto.js";

export interface AtomicWriteOptions {
  /** File mode of the result (for example 0o600 for secrets). */
  mode?: number;
}

export function atomicWriteFile(path: string, content: string, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(4).toString("hex")}.tmp`);
  const mode = options.mode ?? 0o644;
  const fd = openSync(temp, "wx", mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    // The umask may have narrowed the mode given to open(); secrets must end up exactly 0600.
    chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
