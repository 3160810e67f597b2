/**
 * What a backup of HERMES_HOME holds and what it leaves out. Caches, logs, installed packages,
 * checkpoints, temporary and lock files are left out (they are rebuilt or worthless elsewhere);
 * keys only go in when asked for. SQLite files are marked so they are copied through SQLite's
 * online backup, never read as live files.
 */
import { closeSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { basename, join } from "node:path";
import { HERMES_UNREADABLE } from "../../tools/builtin/file-paths.js";

export type PlannedKind = "file" | "directory" | "database";

export interface PlannedEntry {
  /** Path inside the home, with `/` separators. */
  relative: string;
  absolute: string;
  kind: PlannedKind;
  mode: number;
  /** Epoch seconds. */
  mtime: number;
  secret: boolean;
}

export interface LeftOut {
  relative: string;
  reason: string;
}

export interface BackupPlan {
  entries: PlannedEntry[];
  leftOut: LeftOut[];
}

const SQLITE_MAGIC = "SQLite format 3\u0000";
const DATABASE_SIDE_FILE = /(-wal|-shm|-journal)$/;
const TEMPORARY_FILE = /\.(tmp|lock)$|^\.(install|replaced)-/i;
/** Directories of a home (the home itself, or a profile's home under it) that hold nothing to keep. */
const DISPOSABLE_DIRS: Record<string, string> = {
  cache: "cache",
  logs: "logs",
  checkpoints: "file checkpoints",
};
const RUNTIME_FILES: Record<string, string> = {
  "gateway/state.json": "state of a running gateway",
};

/** Files of a home whose content is a key or a credential (the session databases are not). */
export const SECRET_FILES: ReadonlySet<string> = new Set(
  HERMES_UNREADABLE.filter((name) => !/\.db(-wal|-shm)?$/.test(name)),
);

/** Files that are restored readable by the owner only, whatever the archive says. */
export const PRIVATE_FILES: ReadonlySet<string> = new Set(HERMES_UNREADABLE);

function isSqliteFile(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const header = Buffer.alloc(16);
    return readSync(fd, header, 0, 16, 0) === 16 && header.toString("latin1") === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const isHomeRoot = (relativeDir: string) => relativeDir === "" || /^profiles\/[^/]+$/.test(relativeDir);

function leftOutReason(relativeDir: string, name: string, isDirectory: boolean): string | undefined {
  const relative = relativeDir ? `${relativeDir}/${name}` : name;
  if (isDirectory) {
    if (name === "node_modules") return "installed packages";
    return isHomeRoot(relativeDir) ? DISPOSABLE_DIRS[name] : undefined;
  }
  if (TEMPORARY_FILE.test(name)) return "temporary or lock file";
  return RUNTIME_FILES[relative];
}

/** The entries of a backup of `home`, parents before children, and what is left out. */
export function planBackup(home: string, options: { withSecrets: boolean }): BackupPlan {
  const plan: BackupPlan = { entries: [], leftOut: [] };
  const visit = (relativeDir: string) => {
    const dir = relativeDir ? join(home, relativeDir) : home;
    const names = readdirSync(dir).sort();
    for (const name of names) {
      const absolute = join(dir, name);
      const relative = relativeDir ? `${relativeDir}/${name}` : name;
      const stat = lstatSync(absolute);
      const reason = leftOutReason(relativeDir, name, stat.isDirectory());
      if (reason) {
        plan.leftOut.push({ relative: stat.isDirectory() ? `${relative}/` : relative, reason });
        continue;
      }
      const base = { relative, absolute, mode: stat.mode & 0o777, mtime: Math.floor(stat.mtimeMs / 1000) };
      if (stat.isDirectory()) {
        plan.entries.push({ ...base, kind: "directory", secret: false });
        visit(relative);
      } else if (stat.isSymbolicLink()) {
        plan.leftOut.push({ relative, reason: "symbolic link (not followed)" });
      } else if (!stat.isFile()) {
        plan.leftOut.push({ relative, reason: "not a regular file" });
      } else if (DATABASE_SIDE_FILE.test(name)) {
        // A database's write-ahead log or journal: its content is in the database's copy.
      } else if (SECRET_FILES.has(name)) {
        if (options.withSecrets) plan.entries.push({ ...base, kind: "file", mode: 0o600, secret: true });
        else plan.leftOut.push({ relative, reason: "secret (add --with-secrets to include it)" });
      } else if (isSqliteFile(absolute)) {
        plan.entries.push({ ...base, kind: "database", mode: 0o600, secret: false });
      } else {
        plan.entries.push({ ...base, kind: "file", secret: false });
      }
    }
  };
  visit("");
  return plan;
}

/** Whether `name` is one of the files a home keeps private (keys, credentials, session stores). */
export function isPrivateFile(relative: string): boolean {
  return PRIVATE_FILES.has(basename(relative));
}
