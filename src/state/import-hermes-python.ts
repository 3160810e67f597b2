/**
 * Brings the sessions of the original Python Hermes (its `state.db`, schema versions up to 17)
 * into our store, keeping their ids so `--resume <old id>` works. The source is opened read-only
 * and never changed. Importing again adds only what is new: sessions not seen before, and
 * messages past the last one taken from each session (the original may have gone on with it).
 *
 * Older versions of the original lack later columns, so every column is read only if present.
 * Messages the original rewound away (`active = 0`) are not brought over, and are counted; those an
 * in-place compaction condensed (`active = 0, compacted = 1`) come over archived, as ours keeps them.
 */

import { isPostgresUrl } from "./postgres/url.js";
import type { SessionRecord } from "./session-store.js";
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
  /** 1: condensed by an in-place compaction (with active 0): archived, not rewound. */
  compacted: number | null;
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

/** A session of the source as it is to be written, and what it adds to the report. */
export interface SessionPlan {
  id: string;
  /** Set when the session is new here (no earlier import brought it). */
  insert: Pick<
    SessionRecord,
    "parentSessionId" | "title" | "source" | "model" | "startedAt" | "lastActive" | "endedAt" | "systemPrompt"
  > | null;
  title: string | null;
  endedAt: number | null;
  /** prompt, completion, cache read, cache write and total tokens, estimated and actual cost. */
  counters: [number, number, number, number, number, number | null, number | null];
  messages: MessageRow[];
  /** The newest message time, for the session's last_active. */
  lastActive: number;
  /** The last source message id seen, rewound ones included: the next import starts after it. */
  lastSourceId: number;
  rewound: number;
}

/** A message row of our store (the column order of the insert statements). */
export type MessageRow = [
  role: string,
  content: string | null,
  contentIsParts: 0 | 1,
  searchText: string | null,
  toolCalls: string | null,
  toolCallId: string | null,
  toolName: string | null,
  finishReason: string | null,
  reasoning: string | null,
  createdAt: number,
  archived: 0 | 1,
];

export const MESSAGE_INSERT_COLUMNS =
  "session_id, role, content, content_is_parts, search_text, tool_calls, tool_call_id, tool_name, finish_reason, reasoning, created_at, archived";

/** The values of a new session's row, in the column order both writers insert them; `text` escapes text columns. */
export function sessionInsertValues(
  plan: SessionPlan,
  insert: NonNullable<SessionPlan["insert"]>,
  text: (value: string | null) => string | null = (value) => value,
): unknown[] {
  return [
    plan.id,
    insert.parentSessionId,
    text(insert.title),
    insert.source,
    insert.model,
    insert.startedAt,
    insert.lastActive,
    insert.endedAt,
    ...plan.counters,
    text(insert.systemPrompt),
  ];
}

/** What an import writes for one session, given the source messages after `since`. */
function planSession(session: SourceSession, since: number | undefined, rows: SourceMessage[]): SessionPlan {
  const started = ms(session.started_at) ?? 0;
  const ended = ms(session.ended_at);
  const prompt = session.input_tokens ?? 0;
  const completion = session.output_tokens ?? 0;
  const plan: SessionPlan = {
    id: session.id,
    insert:
      since === undefined
        ? {
            parentSessionId: session.parent_session_id,
            title: session.title,
            source: session.source || "cli",
            model: session.model,
            startedAt: started,
            lastActive: ended ?? started,
            endedAt: ended,
            systemPrompt: session.system_prompt,
          }
        : null,
    title: session.title,
    endedAt: ended,
    counters: [
      prompt,
      completion,
      session.cache_read_tokens ?? 0,
      session.cache_write_tokens ?? 0,
      prompt + completion,
      session.estimated_cost_usd,
      session.actual_cost_usd,
    ],
    messages: [],
    lastActive: ended ?? started,
    lastSourceId: rows.at(-1)?.id ?? since ?? 0,
    rewound: 0,
  };
  for (const row of rows) {
    const archived = row.active === 0 && row.compacted === 1;
    if (row.active === 0 && !archived) {
      plan.rewound += 1;
      continue;
    }
    const at = ms(row.timestamp) ?? started;
    const body = contentOf(row.content);
    plan.messages.push([
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
      archived ? 1 : 0,
    ]);
    plan.lastActive = Math.max(plan.lastActive, at);
  }
  return plan;
}

/**
 * The original's sessions, read once, and a planner for each: the writer says how far an earlier
 * import went with a session (undefined: never), or that the id is taken by one of ours (null).
 */
export interface ImportSource {
  sessionIds: string[];
  plan(id: string, since: number | undefined): SessionPlan;
  /** The source's messages of a session that an import keeps: all but the rewound ones. */
  keptMessages(id: string): number;
}

/** Where an import writes: our SQLite file or a PostgreSQL database. */
export type ImportWriter = (source: ImportSource, report: ImportReport) => Promise<void>;

export async function importHermesPython(sourcePath: string, targetLocation: string): Promise<ImportReport> {
  const source = openSqliteDatabase(sourcePath, { readonly: true, fileMustExist: true });
  try {
    const reader = readSource(source, sourcePath);
    const report: ImportReport = {
      source: sourcePath,
      target: targetLocation,
      sessions: { inSource: reader.sessionIds.length, added: 0, updated: 0, unchanged: 0, idTaken: [] },
      messages: { inSource: reader.messageCount, added: 0, rewound: 0, alreadyImported: 0 },
      mismatches: [],
    };
    if (isPostgresUrl(targetLocation)) {
      const { importIntoPostgres } = await import("./postgres/import-hermes-python.js");
      await importIntoPostgres(targetLocation, reader, report);
    } else {
      await importIntoSqlite(targetLocation, reader, report);
    }
    report.messages.alreadyImported = report.messages.inSource - report.messages.added - report.messages.rewound;
    return report;
  } finally {
    source.close();
  }
}

/** Counts a written plan into the report; `firstTime`: the session was added by this import. */
export function tally(report: ImportReport, plan: SessionPlan): void {
  report.messages.added += plan.messages.length;
  report.messages.rewound += plan.rewound;
  if (plan.insert) report.sessions.added += 1;
  else if (plan.messages.length + plan.rewound > 0) report.sessions.updated += 1;
  else report.sessions.unchanged += 1;
}

/** Sessions added by this import whose message count here differs from the source's active ones. */
export async function mismatches(
  source: ImportSource,
  added: readonly string[],
  countHere: (id: string) => number | Promise<number>,
): Promise<string[]> {
  const problems: string[] = [];
  for (const id of added) {
    const want = source.keptMessages(id);
    const have = await countHere(id);
    if (want !== have) problems.push(`${id}: ${have} messages here, ${want} in the source`);
  }
  return problems;
}

function readSource(source: SqliteDatabase, sourcePath: string): ImportSource & { messageCount: number } {
  const sessionCols = columnsOf(source, "sessions");
  const messageCols = columnsOf(source, "messages");
  if (!sessionCols.has("id") || !messageCols.has("session_id")) {
    throw new Error(`${sourcePath} has no sessions and messages tables of the original Hermes`);
  }
  const sessions = source
    .prepare(`SELECT ${selectList(sessionCols, SESSION_COLUMNS)} FROM sessions ORDER BY started_at, id`)
    .all() as SourceSession[];
  const byId = new Map(sessions.map((session) => [session.id, session]));
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
        "compacted",
      ],
      { reasoning: "reasoning_content" },
    )} FROM messages WHERE session_id = ? AND id > ? ORDER BY id`,
  );
  const archivedToo = messageCols.has("compacted") ? " OR compacted = 1" : "";
  const keptCount = source.prepare(
    `SELECT COUNT(*) FROM messages WHERE session_id = ?${messageCols.has("active") ? ` AND (active IS NULL OR active != 0${archivedToo})` : ""}`,
  );
  return {
    sessionIds: sessions.map((session) => session.id),
    messageCount: source.prepare("SELECT COUNT(*) FROM messages").pluck().get() as number,
    plan: (id, since) => planSession(byId.get(id)!, since, messageSelect.all(id, since ?? 0) as SourceMessage[]),
    keptMessages: (id) => keptCount.pluck().get(id) as number,
  };
}

async function importIntoSqlite(targetPath: string, source: ImportSource, report: ImportReport): Promise<void> {
  const target = await SqliteConnection.open(targetPath, 10_000);
  try {
    report.target = target.path;
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
      `INSERT INTO messages (${MESSAGE_INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const touch = db.prepare(
      "UPDATE sessions SET message_count = message_count + ?, last_active = MAX(last_active, ?) WHERE id = ?",
    );
    const saveMark = db.prepare(
      `INSERT INTO import_marks (source, session_id, last_source_message_id, imported_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (source, session_id) DO UPDATE SET last_source_message_id = excluded.last_source_message_id,
         imported_at = excluded.imported_at`,
    );
    const added: string[] = [];
    await target.write(() =>
      withBulkIndexing(db, () => {
        for (const id of source.sessionIds) {
          const since = (mark.get(IMPORT_SOURCE, id) as { last_source_message_id: number } | undefined)
            ?.last_source_message_id;
          if (since === undefined && exists.get(id)) {
            report.sessions.idTaken.push(id);
            continue;
          }
          const plan = source.plan(id, since);
          const { insert } = plan;
          if (insert) {
            insertSession.run(...sessionInsertValues(plan, insert));
            added.push(id);
          } else {
            refreshSession.run(plan.title, plan.endedAt, ...plan.counters, id);
          }
          for (const row of plan.messages) insertMessage.run(id, ...row);
          touch.run(plan.messages.length, plan.lastActive, id);
          saveMark.run(IMPORT_SOURCE, id, plan.lastSourceId, Date.now());
          tally(report, plan);
        }
      }),
    );
    const countHere = db.prepare("SELECT COUNT(*) FROM messages WHERE session_id = ?").pluck();
    report.mismatches = await mismatches(source, added, (id) => countHere.get(id) as number);
  } finally {
    target.close();
  }
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
