/**
 * Where this agent keeps its store. Normally `$HERMES_HOME/state.db`; but a home that an earlier
 * Python Hermes wrote already has a `state.db` of its own, which we must neither refuse nor
 * change (its owner may switch back). Then every store asked to open that `state.db` opens
 * `store.db` beside it instead, and the original's sessions come over with
 * `hermes import hermes-python`.
 *
 * Our databases carry an application id in the SQLite header, so telling them apart costs one
 * 100-byte read; only a file without it (the original's, or ours from before the id) is opened
 * to look at its tables.
 */
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { openSqliteDatabase } from "./sqlite-driver.js";

/** "HRMS": stamped into every store this agent creates (`PRAGMA application_id`). */
export const STORE_APPLICATION_ID = 0x48524d53;
export const STATE_DB = "state.db";
export const SPLIT_STORE_DB = "store.db";

const SQLITE_MAGIC = "SQLite format 3\u0000";

function headerApplicationId(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const header = Buffer.alloc(72);
    if (readSync(fd, header, 0, 72, 0) < 72) return undefined;
    if (header.toString("latin1", 0, 16) !== SQLITE_MAGIC) return undefined;
    return header.readUInt32BE(68);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const verdicts = new Map<string, boolean>();

/**
 * Whether `path` is a session database written by the original Python Hermes: a `sessions`
 * table without our `last_active` column, or a `messages` table with its `timestamp` column.
 */
export function isOriginalStateDb(path: string): boolean {
  if (!existsSync(path)) return false;
  if (headerApplicationId(path) === STORE_APPLICATION_ID) return false;
  const known = verdicts.get(path);
  if (known !== undefined) return known;
  let verdict = false;
  try {
    const db = openSqliteDatabase(path, { readonly: true, fileMustExist: true });
    try {
      const columns = (table: string) =>
        new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
      const sessions = columns("sessions");
      const messages = columns("messages");
      verdict = (sessions.size > 0 && !sessions.has("last_active")) || messages.has("timestamp");
    } finally {
      db.close();
    }
  } catch {
    // Not a database we can read: the store will say so when it opens it.
  }
  verdicts.set(path, verdict);
  return verdict;
}

/**
 * The file a store asked to open `path` really opens: `store.db` beside a `state.db` that is the
 * original's (or once `store.db` exists there), `path` otherwise.
 */
export function storeFileFor(path: string): string {
  if (basename(path) !== STATE_DB) return path;
  const split = join(dirname(path), SPLIT_STORE_DB);
  if (existsSync(split)) return split;
  return isOriginalStateDb(path) ? split : path;
}

/** The original's session database in `home`, when there is one. */
export function originalStateDb(home: string): string | undefined {
  const state = join(home, STATE_DB);
  return isOriginalStateDb(state) ? state : undefined;
}

/**
 * A line for the user when the original's sessions sit beside our store and none were imported
 * yet; undefined otherwise (the usual case costs one header read).
 */
export function importOffer(home: string): string | undefined {
  const original = originalStateDb(home);
  if (!original) return undefined;
  const ours = join(home, SPLIT_STORE_DB);
  let imported = 0;
  try {
    const db = openSqliteDatabase(ours, { readonly: true, fileMustExist: true });
    try {
      imported = db.prepare("SELECT COUNT(*) FROM import_marks").pluck().get() as number;
    } finally {
      db.close();
    }
  } catch {
    // No store yet, or one from before imports existed: nothing was imported.
  }
  if (imported > 0) return undefined;
  return `${original} holds sessions of the original Python Hermes. Bring them (and its cron jobs) over with: hermes import hermes-python (its files are left as they are)`;
}
