/**
 * Whole-file writes that never leave a half-written file behind: the new content goes to a
 * temporary sibling (created exclusively, named after the target, the process and a random
 * suffix), and is then renamed over the target in one step. A failure removes the temporary
 * file and leaves the target as it was.
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { nodeCrypto } from "./node-crypto.js";

export interface AtomicWriteOptions {
  /** File mode of the result, exactly: the umask does not narrow it (0o600 for secrets). Default 0o644. */
  mode?: number;
  /**
   * Instead of `mode`: the mode of the file being replaced, and for a new file whatever the
   * process creates files with (0o666 less the umask), as an editor saving a file does.
   */
  keepMode?: boolean;
  /** Flush the content to disk before the rename, so a crash leaves the old file or the new one. Default true. */
  durable?: boolean;
  /** Create the parent directories the target needs. Default true. */
  createDirectories?: boolean;
}

function currentMode(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o7777;
  } catch {
    return undefined;
  }
}

export function atomicWriteFile(path: string, content: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const dir = dirname(path);
  if (options.createDirectories ?? true) mkdirSync(dir, { recursive: true });
  const mode = options.keepMode ? currentMode(path) : (options.mode ?? 0o644);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(4).toString("hex")}.tmp`);
  const fd = openSync(temp, "wx", mode ?? 0o666);
  try {
    writeFileSync(fd, content);
    if (options.durable ?? true) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    // The umask may have narrowed the mode given to open(); secrets must end up exactly 0600.
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
