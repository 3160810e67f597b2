/**
 * The embedded session store: one SQLite file (state.db) in WAL mode with an FTS5 index
 * over message text. Every append commits before its promise resolves.
 */

import { toFtsQuery } from "./fts-query.js";
import {
  type MessageInsert,
  type MessageRow,
  PATCH_COLUMNS,
  parseSessionExport,
  type SessionRow,
  SUMMARY_COLUMNS,
  toExportedMessage,
  toMessage,
  toMessageInsert,
  toRecord,
  toSummary,
} from "./session-codec.js";
import { integrityProblems, pruneIdleSessions, repairSessionTables } from "./session-maintenance.js";
import {
  type ListSessionsOptions,
  type NewSession,
  type OpenSessionStoreOptions,
  type PruneOptions,
  type PruneResult,
  type SearchHit,
  type SearchOptions,
  type SessionExport,
  type SessionPatch,
  type SessionRecord,
  type SessionStats,
  type SessionStore,
  SessionStoreError,
  type SessionSummary,
  type StoredMessage,
  type StoredRole,
  type StoreRepairReport,
  type UsageDelta,
} from "./session-store.js";
import { SqliteConnection } from "./sqlite-connection.js";
import type { SqliteStatement as Statement } from "./sqlite-driver.js";
import { searchTextSql } from "./sqlite-schema.js";
import { sessionIdNew } from "./titles.js";

export class SqliteSessionStore implements SessionStore {
  private readonly insertMessage: Statement<MessageInsert>;
  private readonly touchSession: Statement<[number, number, string]>;

  private closed = false;

  private constructor(private readonly conn: SqliteConnection) {
    this.insertMessage = conn.db.prepare(
      `INSERT INTO messages (session_id, role, content, content_is_parts, search_text, tool_calls, tool_call_id,
        tool_name, finish_reason, reasoning, reasoning_continuity, created_at, archived)
       VALUES (@session_id, @role, @content, @content_is_parts, @search_text, @tool_calls, @tool_call_id, @tool_name,
        @finish_reason, @reasoning, @reasoning_continuity, @created_at, @archived)`,
    );
    this.touchSession = conn.db.prepare(
      "UPDATE sessions SET message_count = message_count + ?, last_active = ? WHERE id = ?",
    );
  }

  static async open(path: string, options: OpenSessionStoreOptions = {}): Promise<SqliteSessionStore> {
    return new SqliteSessionStore(await SqliteConnection.shared(path, options.lockTimeoutMs ?? 10_000));
  }

  get location(): string {
    return this.conn.path;
  }

  private get db() {
    return this.conn.db;
  }

  private missing(id: string): SessionStoreError {
    return new SessionStoreError(`no session with id "${id}" in ${this.location}`, this.location);
  }

  private readSession(id: string): SessionRecord | null {
    const row = this.conn
      .statement(`SELECT ${SUMMARY_COLUMNS}, s.system_prompt FROM sessions s WHERE s.id = ?`)
      .get(id);
    return row ? toRecord(row as SessionRow) : null;
  }

  async createSession(init: NewSession = {}): Promise<SessionRecord> {
    const id = init.id ?? sessionIdNew();
    const startedAt = init.startedAt ?? Date.now();
    return this.conn.write(() => {
      if (this.readSession(id)) throw new SessionStoreError(`a session with id "${id}" already exists`, this.location);
      this.conn
        .statement(
          `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, system_prompt)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          init.parentSessionId ?? null,
          init.title ?? null,
          init.source ?? "cli",
          init.model ?? null,
          startedAt,
          startedAt,
          init.systemPrompt ?? null,
        );
      return this.readSession(id)!;
    });
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.conn.read(() => this.readSession(id));
  }

  listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.source) {
      where.push("s.source = ?");
      params.push(options.source);
    }
    if (options.since !== undefined) {
      where.push("s.last_active >= ?");
      params.push(options.since);
    }
    params.push(options.limit ?? 50);
    const sql = `SELECT ${SUMMARY_COLUMNS},
        (SELECT substr(${searchTextSql("pm")}, 1, 120) FROM messages pm
          WHERE pm.session_id = s.id AND pm.role = 'user' ORDER BY pm.id LIMIT 1) AS preview
      FROM sessions s ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY s.last_active DESC, s.id DESC LIMIT ?`;
    return this.conn.read(() => (this.conn.statement(sql).all(...params) as SessionRow[]).map(toSummary));
  }

  async updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, column] of Object.entries(PATCH_COLUMNS)) {
      const value = patch[key as keyof SessionPatch];
      if (value === undefined) continue;
      sets.push(`${column} = ?`);
      params.push(value);
    }
    return this.conn.write(() => {
      if (sets.length > 0) {
        const result = this.conn.statement(`UPDATE sessions SET ${sets.join(", ")} WHERE id = ?`).run(...params, id);
        if (result.changes === 0) throw this.missing(id);
      }
      const record = this.readSession(id);
      if (!record) throw this.missing(id);
      return record;
    });
  }

  async recordUsage(id: string, delta: UsageDelta): Promise<void> {
    await this.conn.write(() => {
      const result = this.conn
        .statement(
          `UPDATE sessions SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?,
            cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
            total_tokens = total_tokens + ?,
            estimated_cost = CASE WHEN ? IS NULL THEN estimated_cost ELSE COALESCE(estimated_cost, 0) + ? END
          WHERE id = ?`,
        )
        .run(
          delta.promptTokens ?? 0,
          delta.completionTokens ?? 0,
          delta.cacheReadTokens ?? 0,
          delta.cacheWriteTokens ?? 0,
          delta.totalTokens ?? (delta.promptTokens ?? 0) + (delta.completionTokens ?? 0),
          delta.estimatedCost ?? null,
          delta.estimatedCost ?? 0,
          id,
        );
      if (result.changes === 0) throw this.missing(id);
    });
  }

  async rename(id: string, title: string): Promise<void> {
    await this.updateSession(id, { title });
  }

  deleteSession(id: string): Promise<boolean> {
    return this.conn.write(() => this.conn.statement("DELETE FROM sessions WHERE id = ?").run(id).changes > 0);
  }

  truncateMessages(sessionId: string, keep: number): Promise<number> {
    return this.conn.write(() => {
      if (!this.readSession(sessionId)) throw this.missing(sessionId);
      const kept = this.conn
        .statement(
          "SELECT id FROM messages WHERE session_id = ? AND archived = 0 AND role != 'system' ORDER BY id LIMIT 1 OFFSET ?",
        )
        .pluck()
        .get(sessionId, Math.max(0, keep)) as number | undefined;
      if (kept === undefined) return 0;
      const removed = this.conn
        .statement("DELETE FROM messages WHERE session_id = ? AND archived = 0 AND id >= ?")
        .run(sessionId, kept).changes;
      this.conn
        .statement("UPDATE sessions SET message_count = MAX(0, message_count - ?), last_active = ? WHERE id = ?")
        .run(removed, Date.now(), sessionId);
      return removed;
    });
  }

  appendMessage(sessionId: string, message: StoredMessage): Promise<number> {
    return this.appendMessages(sessionId, [message]).then((ids) => ids[0]!);
  }

  appendMessages(sessionId: string, messages: readonly StoredMessage[]): Promise<number[]> {
    return this.conn.write(() => {
      const now = Date.now();
      if (this.touchSession.run(messages.length, now, sessionId).changes === 0) throw this.missing(sessionId);
      return messages.map((message) =>
        Number(this.insertMessage.run(toMessageInsert(sessionId, message, now)).lastInsertRowid),
      );
    });
  }

  getMessages(sessionId: string): Promise<StoredMessage[]> {
    return this.conn.read(() => this.messageRows(sessionId, true).map(toMessage));
  }

  compactInPlace(sessionId: string, systemPrompt: string, messages: readonly StoredMessage[]): Promise<void> {
    return this.conn.write(() => {
      const now = Date.now();
      if (this.touchSession.run(messages.length, now, sessionId).changes === 0) throw this.missing(sessionId);
      this.conn.statement("UPDATE messages SET archived = 1 WHERE session_id = ? AND archived = 0").run(sessionId);
      this.conn.statement("UPDATE sessions SET system_prompt = ? WHERE id = ?").run(systemPrompt, sessionId);
      for (const message of messages) this.insertMessage.run(toMessageInsert(sessionId, message, now));
    });
  }

  private messageRows(sessionId: string, conversationOnly: boolean): MessageRow[] {
    const archived = conversationOnly ? " AND archived = 0" : "";
    return this.conn
      .statement(`SELECT * FROM messages WHERE session_id = ?${archived} ORDER BY id`)
      .all(sessionId) as MessageRow[];
  }

  search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const match = toFtsQuery(query);
    if (!match) return Promise.resolve([]);
    const [open, close] = options.highlight ?? ["**", "**"];
    const where = ["messages_fts MATCH ?"];
    const params: unknown[] = [open, close, match];
    if (options.source) {
      where.push("s.source = ?");
      params.push(options.source);
    }
    if (options.role) {
      where.push("m.role = ?");
      params.push(options.role);
    }
    params.push(options.limit ?? 20);
    // Without filters the index picks the best rows itself, and snippets are cut for those rows
    // only, not for every match (common words match a large share of a big store).
    const sql =
      where.length === 1
        ? `SELECT m.id AS messageId, m.session_id AS sessionId, m.role AS role, m.created_at AS createdAt,
          s.title AS sessionTitle, s.source AS sessionSource, f.rank AS rank, f.snippet AS snippet
        FROM (SELECT rowid AS id, rank, snippet(messages_fts, 0, ?, ?, '…', 16) AS snippet
              FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rank LIMIT ?) f
        JOIN messages m ON m.id = f.id JOIN sessions s ON s.id = m.session_id
        ORDER BY f.rank`
        : `SELECT m.id AS messageId, m.session_id AS sessionId, m.role AS role, m.created_at AS createdAt,
          s.title AS sessionTitle, s.source AS sessionSource, bm25(messages_fts) AS rank,
          snippet(messages_fts, 0, ?, ?, '…', 16) AS snippet
        FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN sessions s ON s.id = m.session_id
        WHERE ${where.join(" AND ")} ORDER BY rank LIMIT ?`;
    return this.conn.read(() =>
      (this.conn.statement(sql).all(...params) as SearchHit[]).map((hit) => ({ ...hit, role: hit.role as StoredRole })),
    );
  }

  async prune(options: { olderThanDays: number; source?: string }): Promise<number> {
    return (await this.pruneSessions(options)).sessions;
  }

  async pruneSessions(options: PruneOptions): Promise<PruneResult> {
    if (!(options.olderThanDays >= 0)) {
      throw new SessionStoreError("prune needs a number of days of 0 or more", this.location);
    }
    const resolved = { ...options, now: options.now ?? Date.now() };
    if (options.dryRun) return this.conn.read(() => pruneIdleSessions(this.db, resolved));
    return this.conn.write(() => pruneIdleSessions(this.db, resolved));
  }

  async compact(): Promise<void> {
    // VACUUM cannot run inside a transaction; reads run outside the write queue's transactions.
    await this.conn.read(() => {
      if (!this.db.inTransaction) this.db.exec("VACUUM");
    });
  }

  async repair(): Promise<StoreRepairReport> {
    const problems = await this.conn.read(() => integrityProblems(this.db));
    try {
      return await this.conn.write(() => repairSessionTables(this.db, problems));
    } catch (error) {
      if (problems.length === 0) throw error;
      const shown = problems.slice(0, 3).join("; ");
      throw new SessionStoreError(
        `${this.location} is damaged (${shown}) and could not be repaired: ${(error as Error).message}`,
        this.location,
        { cause: error },
      );
    }
  }

  stats(): Promise<SessionStats> {
    return this.conn.read(() => {
      const totals = this.conn
        .statement(
          `SELECT COUNT(*) AS sessions, COALESCE(SUM(total_tokens), 0) AS totalTokens,
            SUM(estimated_cost) AS estimatedCost, COUNT(*) - COUNT(estimated_cost) AS unpriced,
            MIN(last_active) AS oldest, MAX(last_active) AS newest
           FROM sessions`,
        )
        .get() as {
        sessions: number;
        totalTokens: number;
        estimatedCost: number | null;
        unpriced: number;
        oldest: number;
        newest: number;
      };
      const messages = this.conn.statement("SELECT COUNT(*) FROM messages").pluck().get() as number;
      const rows = this.conn.statement("SELECT source, COUNT(*) AS n FROM sessions GROUP BY source").all() as Array<{
        source: string;
        n: number;
      }>;
      return {
        sessions: totals.sessions,
        messages,
        bySource: Object.fromEntries(rows.map((r) => [r.source, r.n])),
        totalTokens: totals.totalTokens,
        estimatedCost: totals.estimatedCost,
        unpricedSessions: totals.unpriced,
        oldestActivity: totals.oldest ?? null,
        newestActivity: totals.newest ?? null,
        bytes: this.conn.bytes(),
      };
    });
  }

  exportSession(id: string): Promise<SessionExport> {
    return this.conn.read(() => {
      const session = this.readSession(id);
      if (!session) throw this.missing(id);
      return {
        format: "hermes-session",
        version: 1,
        session,
        messages: this.messageRows(id, false).map(toExportedMessage),
      };
    });
  }

  importSession(data: unknown, options: { replace?: boolean } = {}): Promise<SessionRecord> {
    const parsed = parseSessionExport(data);
    if (typeof parsed === "string") return Promise.reject(new SessionStoreError(parsed, this.location));
    const { session, messages } = parsed;
    return this.conn.write(() => {
      if (this.readSession(session.id)) {
        if (!options.replace) {
          throw new SessionStoreError(
            `a session with id "${session.id}" already exists; delete it first or import with --replace (hermes sessions import FILE --replace)`,
            this.location,
          );
        }
        this.conn.statement("DELETE FROM sessions WHERE id = ?").run(session.id);
      }
      this.conn
        .statement(
          `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, ended_at,
            message_count, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, total_tokens,
            estimated_cost, system_prompt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          session.id,
          session.parentSessionId,
          session.title,
          session.source,
          session.model,
          session.startedAt,
          session.lastActive,
          session.endedAt,
          messages.length,
          session.promptTokens,
          session.completionTokens,
          session.cacheReadTokens,
          session.cacheWriteTokens,
          session.totalTokens,
          session.estimatedCost,
          session.systemPrompt,
        );
      for (const { createdAt, archived, ...message } of messages) {
        this.insertMessage.run(toMessageInsert(session.id, message, createdAt, archived));
      }
      return this.readSession(session.id)!;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.close();
  }
}
