/**
 * Brings the sessions of the original Python Hermes (its `state.db`, schema versions up to 17)
 * into our store, keeping their ids so `--resume <old id>` works. The source is opened read-only
 * and never changed. Importing again adds only what is new: sessions not seen before, and
 * messages past the last one taken from each session (the original may have gone on with it).
 *
 * Older versions of the original lack later columns, so every column is read only if present.
 * Messages the original rewound away (`active = 0`) are not brought over, and are counted.
 */

import { SqliteConnection } from "./sqlite-connection.js";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite-driver.js";
import { searchTextSql } from "./sqlite-schema.js";

export const IMPORT_SOURCE = "hermes-python";

export interface ImportReport {
  source: string;
  target: string;
  sessions: { inSource: number; added: number; updated: number; unchanged: number; idTaken: string[] };
  messages: { inSource: number; added: number; rewound: number; alreadyImported: number };
  /** Sessions added by this import whose message count differs from the source's active messages. */
  mismatches: string[];
}

interface SourceSession {
  id: string;
  parent_session_id: string | null;
  title: string | null;
  source: string | null;
  model: string | null;
  system_prompt: string | null;
  started_at: number | null;
  ended_at: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  estimated_cost_usd: number | null;
  actual_cost_usd: number | null;
}

interface SourceMessage {
  id: number;
  role: string | null;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: string | null;
  tool_name: string | null;
  timestamp: number | null;
  finish_reason: string | null;
  reasoning: string | null;
  active: number | null;
}

const SESSION_COLUMNS: Array<keyof SourceSession> = [
  "id",
  "parent_session_id",
  "title",
  "source",
  "model",
  "system_prompt",
  "started_at",
  "ended_at",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "estimated_cost_usd",
  "actual_cost_usd",
];

function columnsOf(db: SqliteDatabase, table: string): Set<string> {
  return new Set((db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name));
}

/** `SELECT` of the wanted columns, NULL for the ones this version of the original lacks. */
function selectList(present: Set<string>, wanted: readonly string[], aliases: Record<string, string> = {}): string {
  return wanted
    .map((name) => {
      const from = [name, aliases[name]].find((candidate) => candidate && present.has(candidate));
      return from ? `"${from}" AS "${name}"` : `NULL AS "${name}"`;
    })
    .join(", ");
}

/** Epoch seconds (the original's REAL columns) to epoch milliseconds. */
const ms = (seconds: number | null | undefined): number | null =>
  typeof seconds === "number" && Number.isFinite(seconds) ? Math.round(seconds * 1000) : null;

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** Content the original stored as a JSON list of parts stays a list of parts; text stays text. */
function contentOf(raw: string | null): { content: string | null; isParts: 0 | 1; searchText: string | null } {
  if (raw?.startsWith("[{")) {
    try {
      const parts = JSON.parse(raw) as unknown;
      if (Array.isArray(parts) && parts.every((p) => p && typeof p === "object" && "type" in p)) {
        const text = (parts as Array<{ type: string; text?: string }>)
          .filter((p) => p.type === "text" && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n");
        return { content: raw, isParts: 1, searchText: text };
      }
    } catch {
      // Plain text that happens to start like JSON.
    }
  }
  return { content: raw, isParts: 0, searchText: null };
}

function toolCallsOf(raw: string | null): string | null {
  if (!raw) return null;
  try {
    const calls = JSON.parse(raw) as unknown;
    return Array.isArray(calls) && calls.length > 0 ? JSON.stringify(calls) : null;
  } catch {
    return null;
  }
}

export async function importHermesPython(sourcePath: string, targetPath: string): Promise<ImportReport> {
  const source = openSqliteDatabase(sourcePath, { readonly: true, fileMustExist: true });
  const target = await SqliteConnection.open(targetPath, 10_000);
  try {
    return await copy(source, target, sourcePath);
  } finally {
    source.close();
    target.close();
  }
}

async function copy(source: SqliteDatabase, target: SqliteConnection, sourcePath: string): Promise<ImportReport> {
  const sessionCols = columnsOf(source, "sessions");
  const messageCols = columnsOf(source, "messages");
  if (!sessionCols.has("id") || !messageCols.has("session_id")) {
    throw new Error(`${sourcePath} has no sessions and messages tables of the original Hermes`);
  }
  const sessions = source
    .prepare(`SELECT ${selectList(sessionCols, SESSION_COLUMNS)} FROM sessions ORDER BY started_at, id`)
    .all() as SourceSession[];
  const messageSelect = source.prepare(
    `SELECT ${selectList(
      messageCols,
      [
        "id",
        "role",
        "content",
        "tool_call_id",
        "tool_calls",
        "tool_name",
        "timestamp",
        "finish_reason",
        "reasoning",
        "active",
      ],
      { reasoning: "reasoning_content" },
    )} FROM messages WHERE session_id = ? AND id > ? ORDER BY id`,
  );
  const report: ImportReport = {
    source: sourcePath,
    target: target.path,
    sessions: { inSource: sessions.length, added: 0, updated: 0, unchanged: 0, idTaken: [] },
    messages: {
      inSource: source.prepare("SELECT COUNT(*) FROM messages").pluck().get() as number,
      added: 0,
      rewound: 0,
      alreadyImported: 0,
    },
    mismatches: [],
  };
  const db = target.db;
  const mark = db.prepare("SELECT last_source_message_id FROM import_marks WHERE source = ? AND session_id = ?");
  const exists = db.prepare("SELECT 1 FROM sessions WHERE id = ?");
  const insertSession = db.prepare(
    `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, ended_at,
      message_count, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, total_tokens,
      estimated_cost, actual_cost, system_prompt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const refreshSession = db.prepare(
    `UPDATE sessions SET title = COALESCE(title, ?), ended_at = ?, prompt_tokens = ?, completion_tokens = ?,
      cache_read_tokens = ?, cache_write_tokens = ?, total_tokens = ?, estimated_cost = ?, actual_cost = ?
     WHERE id = ?`,
  );
  const insertMessage = db.prepare(
    `INSERT INTO messages (session_id, role, content, content_is_parts, search_text, tool_calls, tool_call_id,
      tool_name, finish_reason, reasoning, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const touch = db.prepare(
    "UPDATE sessions SET message_count = message_count + ?, last_active = MAX(last_active, ?) WHERE id = ?",
  );
  const saveMark = db.prepare(
    `INSERT INTO import_marks (source, session_id, last_source_message_id, imported_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (source, session_id) DO UPDATE SET last_source_message_id = excluded.last_source_message_id,
       imported_at = excluded.imported_at`,
  );

  const addedIds: string[] = [];
  await target.write(() =>
    withBulkIndexing(db, () => {
      for (const session of sessions) {
        const since = mark.get(IMPORT_SOURCE, session.id) as { last_source_message_id: number } | undefined;
        if (!since && exists.get(session.id)) {
          report.sessions.idTaken.push(session.id);
          continue;
        }
        const started = ms(session.started_at) ?? 0;
        const ended = ms(session.ended_at);
        const tokens = [session.input_tokens ?? 0, session.output_tokens ?? 0] as const;
        const counters = [
          tokens[0],
          tokens[1],
          session.cache_read_tokens ?? 0,
          session.cache_write_tokens ?? 0,
          tokens[0] + tokens[1],
          session.estimated_cost_usd,
          session.actual_cost_usd,
        ];
        if (!since) {
          insertSession.run(
            session.id,
            session.parent_session_id,
            session.title,
            session.source || "cli",
            session.model,
            started,
            ended ?? started,
            ended,
            ...counters,
            session.system_prompt,
          );
        } else {
          refreshSession.run(session.title, ended, ...counters, session.id);
        }
        const rows = messageSelect.all(session.id, since?.last_source_message_id ?? 0) as SourceMessage[];
        let added = 0;
        let lastActive = ended ?? started;
        for (const row of rows) {
          if (row.active === 0) {
            report.messages.rewound += 1;
            continue;
          }
          const at = ms(row.timestamp) ?? started;
          const body = contentOf(row.content);
          insertMessage.run(
            session.id,
            row.role && ROLES.has(row.role) ? row.role : "user",
            body.content,
            body.isParts,
            body.searchText,
            toolCallsOf(row.tool_calls),
            row.tool_call_id,
            row.tool_name,
            row.finish_reason,
            row.reasoning,
            at,
          );
          added += 1;
          lastActive = Math.max(lastActive, at);
        }
        touch.run(added, lastActive, session.id);
        const last = rows.at(-1)?.id ?? since?.last_source_message_id ?? 0;
        saveMark.run(IMPORT_SOURCE, session.id, last, Date.now());
        report.messages.added += added;
        if (!since) {
          report.sessions.added += 1;
          addedIds.push(session.id);
        } else if (rows.length > 0) report.sessions.updated += 1;
        else report.sessions.unchanged += 1;
      }
    }),
  );
  report.messages.alreadyImported = report.messages.inSource - report.messages.added - report.messages.rewound;
  report.mismatches = verify(source, db, addedIds);
  return report;
}

/**
 * Runs a bulk insert of messages with the search index filled once at the end: FTS5 indexes a
 * batch several times faster than row by row through the insert trigger. Inside the caller's
 * transaction, so other connections never see the trigger missing.
 */
function withBulkIndexing(db: SqliteDatabase, insert: () => void): void {
  const trigger = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'messages_fts_insert'")
    .pluck()
    .get() as string | undefined;
  if (!trigger) {
    insert();
    return;
  }
  const before = db.prepare("SELECT COALESCE(MAX(id), 0) FROM messages").pluck().get() as number;
  db.exec("DROP TRIGGER messages_fts_insert");
  try {
    insert();
    db.prepare(
      `INSERT INTO messages_fts(rowid, content) SELECT m.id, ${searchTextSql("m")} FROM messages AS m WHERE m.id > ?`,
    ).run(before);
  } finally {
    db.exec(trigger);
  }
}

/** Sessions whose message count here differs from the source's active messages. */
function verify(source: SqliteDatabase, db: SqliteDatabase, ids: readonly string[]): string[] {
  const hasActive = columnsOf(source, "messages").has("active");
  const sourceCount = source.prepare(
    `SELECT COUNT(*) FROM messages WHERE session_id = ?${hasActive ? " AND (active IS NULL OR active != 0)" : ""}`,
  );
  const ourCount = db.prepare("SELECT COUNT(*) FROM messages WHERE session_id = ?");
  const problems: string[] = [];
  for (const id of ids) {
    const want = sourceCount.pluck().get(id) as number;
    const have = ourCount.pluck().get(id) as number;
    if (want !== have) problems.push(`${id}: ${have} messages here, ${want} in the source`);
  }
  return problems;
}
