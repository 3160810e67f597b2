/**
 * Writes a backup of HERMES_HOME: a gzip-compressed tar, readable by its owner only. Each
 * database is first copied with SQLite's online backup into a private temporary directory, so
 * the archive holds a consistent copy even while a gateway or another session writes to it.
 */

import { randomBytes } from "node:crypto";
import {
  chmodSync,
  createWriteStream,
  existsSync,
  constants as fsConstants,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { openSqliteDatabase } from "../../state/sqlite-driver.js";
import { TAR_END, tarHeader, tarPadding } from "../../util/tar.js";
import { BackupError } from "./errors.js";
import { type LeftOut, type PlannedEntry, planBackup } from "./plan.js";
import { utcStamp } from "./utc-stamp.js";

export interface BackupOptions {
  /** Where the archive goes; it must not exist yet. */
  out: string;
  withSecrets: boolean;
}

export interface BackupResult {
  file: string;
  files: number;
  databases: number;
  secrets: string[];
  /** Bytes of the files before compression. */
  contentBytes: number;
  /** Bytes of the archive. */
  archiveBytes: number;
  leftOut: LeftOut[];
}

const READ_CHUNK = 64 * 1024;

/** `hermes-backup-20260101T120000Z.tar.gz` for the given time. */
export function defaultBackupName(now = new Date()): string {
  return `hermes-backup-${utcStamp(now)}.tar.gz`;
}

async function snapshotDatabase(path: string, dir: string): Promise<string> {
  const copy = join(dir, `${randomBytes(6).toString("hex")}.db`);
  const db = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
  try {
    await db.backup(copy);
  } catch (error) {
    throw new BackupError(`cannot copy the database ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    db.close();
  }
  return copy;
}

/** Header, body and padding of one file, taking its size from the open file itself. */
async function* fileChunks(entry: PlannedEntry, source: string, counts: { bytes: number }): AsyncGenerator<Buffer> {
  const handle = await open(source, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  try {
    const { size } = await handle.stat();
    yield tarHeader({ path: entry.relative, kind: "file", mode: entry.mode, size, mtime: entry.mtime });
    let left = size;
    while (left > 0) {
      const chunk = Buffer.alloc(Math.min(READ_CHUNK, left));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) {
        throw new BackupError(`${entry.absolute} shrank while it was being read; run the backup again`);
      }
      left -= bytesRead;
      yield chunk.subarray(0, bytesRead);
    }
    counts.bytes += size;
    yield tarPadding(size);
  } finally {
    await handle.close();
  }
}

async function* archiveChunks(entries: PlannedEntry[], scratch: string, counts: { bytes: number }) {
  for (const entry of entries) {
    if (entry.kind === "directory") {
      yield tarHeader({ path: entry.relative, kind: "directory", mode: entry.mode, size: 0, mtime: entry.mtime });
      continue;
    }
    const source = entry.kind === "database" ? await snapshotDatabase(entry.absolute, scratch) : entry.absolute;
    try {
      yield* fileChunks(entry, source, counts);
    } finally {
      if (source !== entry.absolute) rmSync(source, { force: true });
    }
  }
  yield TAR_END;
}

export async function createBackup(home: string, options: BackupOptions): Promise<BackupResult> {
  const out = resolve(options.out);
  if (!existsSync(home) || !statSync(home).isDirectory()) {
    throw new BackupError(`nothing to back up: ${home} does not exist (is HERMES_HOME set right?)`);
  }
  if (existsSync(out)) throw new BackupError(`${out} already exists; choose another name with --out`);
  // Planned before the archive exists, so an archive written inside the home never lists itself.
  const plan = planBackup(home, { withSecrets: options.withSecrets });
  const partial = `${out}.${randomBytes(4).toString("hex")}.partial`;
  const scratch = mkdtempSync(join(tmpdir(), "hermes-backup-"));
  const counts = { bytes: 0 };
  try {
    await pipeline(
      archiveChunks(plan.entries, scratch, counts),
      createGzip(),
      createWriteStream(partial, { flags: "wx", mode: 0o600 }),
    );
    chmodSync(partial, 0o600);
    renameSync(partial, out);
  } catch (error) {
    rmSync(partial, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`cannot write ${out}: ${(error as Error).message}`, { cause: error });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const files = plan.entries.filter((entry) => entry.kind !== "directory");
  return {
    file: out,
    files: files.length,
    databases: files.filter((entry) => entry.kind === "database").length,
    secrets: files.filter((entry) => entry.secret).map((entry) => entry.relative),
    contentBytes: counts.bytes,
    archiveBytes: statSync(out).size,
    leftOut: plan.leftOut,
  };
}
