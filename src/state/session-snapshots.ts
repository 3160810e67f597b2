/**
 * Sessions as JSON files, for scripts that read transcripts from disk rather than from the store:
 * `$HERMES_HOME/sessions/session_<id>.json`, in the shape `hermes sessions export` writes, with
 * secrets masked. The session store stays the record; a snapshot is rewritten whole (atomically)
 * from it, so a reader never sees half a file.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { redactSecrets } from "../util/redact.js";
import type { SessionExport, SessionStore } from "./session-store.js";

/** A session as export JSON: every string masked, two-space indented, ending in a newline. */
export function sessionExportJson(exported: SessionExport): string {
  return `${JSON.stringify(exported, (_key, value) => (typeof value === "string" ? redactSecrets(value) : value), 2)}\n`;
}

export function sessionSnapshotsDir(home: string): string {
  return join(home, "sessions");
}

/** Where a session's snapshot goes; an id with characters unsafe in a file name has them replaced. */
export function sessionSnapshotPath(home: string, sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200);
  return join(sessionSnapshotsDir(home), `session_${safe}.json`);
}

/**
 * Writes the session's snapshot from the store, mode 0600; returns its path, or undefined when
 * the store has no such session (a turn that failed before anything was saved).
 */
export async function writeSessionSnapshot(
  home: string,
  store: SessionStore,
  sessionId: string,
): Promise<string | undefined> {
  if (!(await store.getSession(sessionId))) return undefined;
  const json = sessionExportJson(await store.exportSession(sessionId));
  const path = sessionSnapshotPath(home, sessionId);
  mkdirSync(sessionSnapshotsDir(home), { recursive: true, mode: 0o700 });
  atomicWriteFile(path, json, { mode: 0o600 });
  return path;
}
