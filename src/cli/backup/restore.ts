/**
 * Unpacks a backup into HERMES_HOME. The archive is first unpacked into a new directory beside
 * the home and checked entry by entry (only plain files and directories, only paths inside the
 * home); only when all of it unpacked does that directory become the home, the old one moved
 * aside. A hostile or damaged archive therefore leaves the home as it was and writes nothing
 * outside it.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { dirname, join, relative as relativePath, resolve, sep } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { readTar, type TarEntry, type TarEntryKind, TarFormatError } from "../../util/tar.js";
import { BackupError } from "./errors.js";
import { isPrivateFile } from "./plan.js";
import { utcStamp } from "./utc-stamp.js";

export interface RestoreOptions {
  /** Move a non-empty home aside instead of refusing. */
  force: boolean;
}

export interface RestoreResult {
  home: string;
  files: number;
  directories: number;
  /** Where the home that was there went, when it held anything. */
  movedAside?: string;
}

/** The entry's path inside the home, or an error for a path that would leave it. */
export function safeEntryPath(path: string): string {
  if (path.includes("\0")) throw new BackupError(`refusing an archive entry with a NUL byte in its name`);
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) {
    throw new BackupError(`refusing the archive entry "${path}": an absolute path`);
  }
  const parts = path.split(/[/\\]/).filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw new BackupError(`refusing the archive entry "${path}": it climbs out with ".."`);
  return parts.join("/");
}

const REFUSED_KINDS: Record<Exclude<TarEntryKind, "file" | "directory">, string> = {
  symlink: "a symbolic link",
  hardlink: "a hard link",
  device: "a device",
  fifo: "a named pipe",
  other: "an entry of an unknown kind",
};

function isEmptyDirectory(path: string): boolean {
  return readdirSync(path).length === 0;
}

interface Unpacked {
  files: number;
  directories: number;
}

async function writeFile(entry: TarEntry, target: string): Promise<void> {
  mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
  const fd = openSync(target, "wx", 0o600);
  try {
    for await (const chunk of entry.body()) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  chmodSync(target, isPrivateFile(target) ? 0o600 : entry.mode & 0o777);
  utimesSync(target, entry.mtime, entry.mtime);
}

async function unpack(entries: AsyncIterable<TarEntry>, into: string): Promise<Unpacked> {
  const seen = new Set<string>();
  const directoryModes: Array<[string, number]> = [];
  let files = 0;
  for await (const entry of entries) {
    const inside = safeEntryPath(entry.path);
    if (entry.kind !== "file" && entry.kind !== "directory") {
      throw new BackupError(
        `refusing the archive entry "${entry.path}": ${REFUSED_KINDS[entry.kind]}; a Hermes backup holds only files and directories`,
      );
    }
    if (inside === "") continue;
    if (seen.has(inside)) throw new BackupError(`refusing the archive: "${entry.path}" appears twice`);
    seen.add(inside);
    const target = join(into, ...inside.split("/"));
    if (relativePath(into, target).startsWith(`..${sep}`)) {
      throw new BackupError(`refusing the archive entry "${entry.path}": it lands outside the home`);
    }
    if (entry.kind === "directory") {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      directoryModes.push([target, entry.mode]);
    } else {
      await writeFile(entry, target);
      files++;
    }
  }
  // Directories stay open to their owner whatever the archive says, so the home remains usable.
  for (const [dir, mode] of directoryModes) chmodSync(dir, (mode & 0o777) | 0o700);
  return { files, directories: directoryModes.length };
}

async function unpackArchive(archive: string, into: string): Promise<Unpacked> {
  const input = createReadStream(archive);
  const gunzip = createGunzip();
  // Failures of either stream surface through the reading below.
  pipeline(input, gunzip).catch(() => {});
  try {
    return await unpack(readTar(gunzip as AsyncIterable<Buffer>), into);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    const reason =
      error instanceof TarFormatError || (error as NodeJS.ErrnoException).code?.startsWith("Z_")
        ? `not a Hermes backup (a .tar.gz archive), or damaged: ${(error as Error).message}`
        : (error as Error).message;
    throw new BackupError(`cannot restore ${archive}: ${reason}`, { cause: error });
  } finally {
    input.destroy();
    gunzip.destroy();
  }
}

export async function restoreBackup(archive: string, home: string, options: RestoreOptions): Promise<RestoreResult> {
  if (!existsSync(archive) || !statSync(archive).isFile()) throw new BackupError(`no backup file at ${archive}`);
  const target = existsSync(home) ? realpathSync(home) : resolve(home);
  const occupied = existsSync(target) && !isEmptyDirectory(target);
  if (occupied && !options.force) {
    throw new BackupError(
      `${target} is not empty; restoring would replace it. Add --force to move it aside first (nothing is deleted).`,
    );
  }
  mkdirSync(dirname(target), { recursive: true });
  const staging = `${target}.restoring-${randomBytes(4).toString("hex")}`;
  mkdirSync(staging, { mode: 0o700 });
  let unpacked: Unpacked;
  try {
    unpacked = await unpackArchive(archive, staging);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  let movedAside: string | undefined;
  if (occupied) {
    movedAside = `${target}.before-restore-${utcStamp(new Date())}`;
    if (existsSync(movedAside)) movedAside = `${movedAside}-${randomBytes(2).toString("hex")}`;
    renameSync(target, movedAside);
  } else if (existsSync(target)) {
    rmdirSync(target);
  }
  renameSync(staging, target);
  return {
    home: target,
    files: unpacked.files,
    directories: unpacked.directories,
    ...(movedAside ? { movedAside } : {}),
  };
}
