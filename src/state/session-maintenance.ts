/**
 * Housekeeping of the session tables: pruning idle sessions and repairing what a crash, a
 * copy of a live file or a hand edit can leave behind (damaged indexes, a search index out of
 * step with the messages, wrong message counts). Each runs inside the caller's write transaction.
 */
import type { PruneOptions, PruneResult, StoreRepairReport } from "./session-store.js";
import type { SqliteDatabase } from "./sqlite-driver.js";

const DAY_MS = 86_400_000;
const INTEGRITY_ROWS_SHOWN = 20;

function idleSessions(options: PruneOptions): { where: string; params: unknown[] } {
  const cutoff = (options.now ?? Date.now()) - options.olderThanDays * DAY_MS;
  return options.source
    ? { where: "last_active < ? AND source = ?", params: [cutoff, options.source] }
    : { where: "last_active < ?", params: [cutoff] };
}

/** Deletes (or with `dryRun` only counts) the sessions idle for longer than the given age. */
export function pruneIdleSessions(db: SqliteDatabase, options: PruneOptions): PruneResult {
  const { where, params } = idleSessions(options);
  const chosen = `SELECT id FROM sessions WHERE ${where}`;
  if (options.dryRun) {
    return {
      sessions: db
        .prepare(`SELECT COUNT(*) FROM sessions WHERE ${where}`)
        .pluck()
        .get(...params) as number,
      messages: db
        .prepare(`SELECT COUNT(*) FROM messages WHERE session_id IN (${chosen})`)
        .pluck()
        .get(...params) as number,
    };
  }
  // Messages first, by name: the count is exact whether or not the foreign key cascades.
  const messages = db.prepare(`DELETE FROM messages WHERE session_id IN (${chosen})`).run(...params).changes;
  const sessions = db.prepare(`DELETE FROM sessions WHERE ${where}`).run(...params).changes;
  return { sessions, messages };
}

/** What `PRAGMA integrity_check` reports (at most a screenful); empty when the file is sound. */
export function integrityProblems(db: SqliteDatabase): string[] {
  const rows = db.pragma(`integrity_check(${INTEGRITY_ROWS_SHOWN})`) as Array<{
    integrity_check: string;
  }>;
  const problems = rows.map((row) => row.integrity_check);
  return problems.length === 1 && problems[0] === "ok" ? [] : problems;
}

/** Whether the full-text index disagrees with the messages it is built from. */
function searchIndexStale(db: SqliteDatabase): boolean {
  try {
    db.exec("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)");
    return false;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_CORRUPT")) return true;
    throw error;
  }
}

/**
 * Rebuilds the search index from the messages and recounts every session's messages, given what
 * the integrity check found before. `problemsAfter` lists what is still wrong: damage beyond
 * these repairs.
 */
export function repairSessionTables(db: SqliteDatabase, problemsBefore: string[]): StoreRepairReport {
  // Damaged indexes are rebuilt from their tables first, so the recount below reads true rows.
  const indexesRebuilt = problemsBefore.length > 0;
  if (indexesRebuilt) db.exec("REINDEX");
  const stale = searchIndexStale(db);
  db.exec("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')");
  const messageCountsFixed = db
    .prepare(
      `UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id)
       WHERE message_count IS NOT (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id)`,
    )
    .run().changes;
  const problemsAfter = problemsBefore.length > 0 ? integrityProblems(db) : [];
  if (searchIndexStale(db)) problemsAfter.push("the search index still disagrees with the messages after a rebuild");
  return {
    problemsBefore,
    problemsAfter,
    indexesRebuilt,
    searchIndexStale: stale,
    messagesIndexed: db.prepare("SELECT COUNT(*) FROM messages").pluck().get() as number,
    messageCountsFixed,
  };
}
