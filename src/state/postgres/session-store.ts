/**
 * Sessions and messages in PostgreSQL: the same rows as the embedded store (shared codec), full-text
 * search over a generated tsvector (GIN), and a trigram index for words the search cannot find whole
 * (a fragment of an identifier, a partial word). Appends run in one transaction each; many processes
 * may write one database at once.
 */
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
} from "../session-codec.js";
import {
  type ListSessionsOptions,
  type NewSession,
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
} from "../session-store.js";
import { sessionIdNew } from "../titles.js";
import { PgConnection, type Queryable } from "./connection.js";
import { fromPgText, toPgText } from "./text.js";
import { tsQuerySql } from "./ts-query.js";

const MESSAGE_COLUMNS = `id, session_id, role, content, content_is_parts, search_text, tool_calls, tool_call_id,
  tool_name, finish_reason, reasoning, reasoning_continuity, created_at, archived`;

const INSERT_COLUMNS: ReadonlyArray<keyof MessageInsert> = [
  "session_id",
  "role",
  "content",
  "content_is_parts",
  "search_text",
  "tool_calls",
  "tool_call_id",
  "tool_name",
  "finish_reason",
  "reasoning",
  "reasoning_continuity",
  "created_at",
  "archived",
];

/** A fragment shorter than this is not searched by substring (trigrams need three characters). */
const SUBSTRING_MIN_CHARS = 3;

export class PgSessionStore implements SessionStore {
  private closed = false;
  /** Writes to one session from this process run in call order (transcripts keep their order). */
  private readonly sessionWrites = new Map<string, Promise<unknown>>();

  private constructor(private readonly conn: PgConnection) {}

  static async open(url: string): Promise<PgSessionStore> {
    return new PgSessionStore(await PgConnection.open(url));
  }

  get location(): string {
    return this.conn.location;
  }

  private missing(id: string): SessionStoreError {
    return new SessionStoreError(`no session with id "${id}" in ${this.location}`, this.location);
  }

  private async readSession(db: Queryable, id: string): Promise<SessionRecord | null> {
    const { rows } = await db.query<SessionRow>(
      `SELECT ${SUMMARY_COLUMNS}, s.system_prompt FROM sessions s WHERE s.id = $1`,
      [id],
    );
    return rows[0] ? toRecord(sessionFromPg(rows[0])) : null;
  }

  async createSession(init: NewSession = {}): Promise<SessionRecord> {
    const id = init.id ?? sessionIdNew();
    const startedAt = init.startedAt ?? Date.now();
    const { rows } = await this.conn.pool.query<SessionRow>(
      `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, system_prompt)
       VALUES ($1, $2, $3, $4, $5, $6, $6, $7) ON CONFLICT (id) DO NOTHING
       RETURNING ${SUMMARY_COLUMNS.replace(/s\./g, "")}, system_prompt`,
      [
        id,
        init.parentSessionId ?? null,
        toPgText(init.title ?? null),
        init.source ?? "cli",
        init.model ?? null,
        startedAt,
        toPgText(init.systemPrompt ?? null),
      ],
    );
    if (!rows[0]) throw new SessionStoreError(`a session with id "${id}" already exists`, this.location);
    return toRecord(sessionFromPg(rows[0]));
  }

  getSession(id: string): Promise<SessionRecord | null> {
    return this.readSession(this.conn.pool, id);
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.source) {
      params.push(options.source);
      where.push(`s.source = $${params.length}`);
    }
    if (options.since !== undefined) {
      params.push(options.since);
      where.push(`s.last_active >= $${params.length}`);
    }
    params.push(options.limit ?? 50);
    const rows = await this.conn.query<SessionRow>(
      `SELECT ${SUMMARY_COLUMNS},
        (SELECT substr(pm.searchable, 1, 120) FROM messages pm
          WHERE pm.session_id = s.id AND pm.role = 'user' ORDER BY pm.id LIMIT 1) AS preview
      FROM sessions s ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
      ORDER BY s.last_active DESC, s.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map((row) => toSummary(sessionFromPg(row)));
  }

  async updateSession(id: string, patch: SessionPatch): Promise<SessionRecord> {
    const sets: string[] = [];
    const params: unknown[] = [];
    for (const [key, column] of Object.entries(PATCH_COLUMNS)) {
      const value = patch[key as keyof SessionPatch];
      if (value === undefined) continue;
      params.push(typeof value === "string" ? toPgText(value) : value);
      sets.push(`${column} = $${params.length}`);
    }
    if (sets.length > 0) {
      params.push(id);
      const result = await this.conn.pool.query(
        `UPDATE sessions SET ${sets.join(", ")} WHERE id = $${params.length}`,
        params,
      );
      if (result.rowCount === 0) throw this.missing(id);
    }
    const record = await this.readSession(this.conn.pool, id);
    if (!record) throw this.missing(id);
    return record;
  }

  async recordUsage(id: string, delta: UsageDelta): Promise<void> {
    const result = await this.conn.pool.query(
      `UPDATE sessions SET prompt_tokens = prompt_tokens + $1, completion_tokens = completion_tokens + $2,
        cache_read_tokens = cache_read_tokens + $3, cache_write_tokens = cache_write_tokens + $4,
        total_tokens = total_tokens + $5,
        estimated_cost = CASE WHEN $6::double precision IS NULL THEN estimated_cost
          ELSE COALESCE(estimated_cost, 0) + $6 END
      WHERE id = $7`,
      [
        delta.promptTokens ?? 0,
        delta.completionTokens ?? 0,
        delta.cacheReadTokens ?? 0,
        delta.cacheWriteTokens ?? 0,
        delta.totalTokens ?? (delta.promptTokens ?? 0) + (delta.completionTokens ?? 0),
        delta.estimatedCost ?? null,
        id,
      ],
    );
    if (result.rowCount === 0) throw this.missing(id);
  }

  async rename(id: string, title: string): Promise<void> {
    await this.updateSession(id, { title });
  }

  async deleteSession(id: string): Promise<boolean> {
    return ((await this.conn.pool.query("DELETE FROM sessions WHERE id = $1", [id])).rowCount ?? 0) > 0;
  }

  private inOrder<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    const previous = this.sessionWrites.get(sessionId) ?? Promise.resolve();
    const next = previous.then(write, write);
    const settled = next.catch(() => {});
    this.sessionWrites.set(sessionId, settled);
    void settled.then(() => {
      if (this.sessionWrites.get(sessionId) === settled) this.sessionWrites.delete(sessionId);
    });
    return next;
  }

  truncateMessages(sessionId: string, keep: number): Promise<number> {
    return this.inOrder(sessionId, () => this.truncateNow(sessionId, keep));
  }

  private truncateNow(sessionId: string, keep: number): Promise<number> {
    return this.conn.transaction(async (db) => {
      const locked = await db.query("SELECT id FROM sessions WHERE id = $1 FOR UPDATE", [sessionId]);
      if (locked.rowCount === 0) throw this.missing(sessionId);
      const { rows } = await db.query<{ id: number }>(
        "SELECT id FROM messages WHERE session_id = $1 AND archived = 0 AND role <> 'system' ORDER BY id LIMIT 1 OFFSET $2",
        [sessionId, Math.max(0, keep)],
      );
      if (!rows[0]) return 0;
      const removed =
        (
          await db.query("DELETE FROM messages WHERE session_id = $1 AND archived = 0 AND id >= $2", [
            sessionId,
            rows[0].id,
          ])
        ).rowCount ?? 0;
      await db.query(
        "UPDATE sessions SET message_count = GREATEST(0, message_count - $1), last_active = $2 WHERE id = $3",
        [removed, Date.now(), sessionId],
      );
      return removed;
    });
  }

  appendMessage(sessionId: string, message: StoredMessage): Promise<number> {
    return this.appendMessages(sessionId, [message]).then((ids) => ids[0]!);
  }

  appendMessages(sessionId: string, messages: readonly StoredMessage[]): Promise<number[]> {
    return this.inOrder(sessionId, () => this.appendNow(sessionId, messages));
  }

  private appendNow(sessionId: string, messages: readonly StoredMessage[]): Promise<number[]> {
    const now = Date.now();
    return this.conn.transaction(async (db) => {
      const touched = await db.query(
        "UPDATE sessions SET message_count = message_count + $1, last_active = $2 WHERE id = $3",
        [messages.length, now, sessionId],
      );
      if (touched.rowCount === 0) throw this.missing(sessionId);
      return this.insertMessages(
        db,
        messages.map((message) => toMessageInsert(sessionId, message, now)),
      );
    });
  }

  /** One multi-row INSERT; ids come back in the order given. */
  private async insertMessages(db: Queryable, inserts: readonly MessageInsert[]): Promise<number[]> {
    if (inserts.length === 0) return [];
    const params: unknown[] = [];
    const tuples = inserts.map((insert) => {
      const slots = INSERT_COLUMNS.map((column) => {
        const value = insert[column];
        params.push(typeof value === "string" ? toPgText(value) : value);
        return `$${params.length}`;
      });
      return `(${slots.join(", ")})`;
    });
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO messages (${INSERT_COLUMNS.join(", ")}) VALUES ${tuples.join(", ")} RETURNING id`,
      params,
    );
    return rows.map((row) => row.id).sort((a, b) => a - b);
  }

  async getMessages(sessionId: string): Promise<StoredMessage[]> {
    return (await this.messageRows(this.conn.pool, sessionId, true)).map(toMessage);
  }

  compactInPlace(sessionId: string, systemPrompt: string, messages: readonly StoredMessage[]): Promise<void> {
    return this.inOrder(sessionId, () => {
      const now = Date.now();
      return this.conn.transaction(async (db) => {
        const touched = await db.query(
          "UPDATE sessions SET message_count = message_count + $1, last_active = $2, system_prompt = $3 WHERE id = $4",
          [messages.length, now, toPgText(systemPrompt), sessionId],
        );
        if (touched.rowCount === 0) throw this.missing(sessionId);
        await db.query("UPDATE messages SET archived = 1 WHERE session_id = $1 AND archived = 0", [sessionId]);
        await this.insertMessages(
          db,
          messages.map((message) => toMessageInsert(sessionId, message, now)),
        );
      });
    });
  }

  private async messageRows(db: Queryable, sessionId: string, conversationOnly: boolean): Promise<MessageRow[]> {
    const archived = conversationOnly ? " AND archived = 0" : "";
    const { rows } = await db.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1${archived} ORDER BY id`,
      [sessionId],
    );
    return rows.map(messageFromPg);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const tsQuery = tsQuerySql(query);
    if (!tsQuery) return [];
    const [open, close] = options.highlight ?? ["**", "**"];
    const params: unknown[] = [...tsQuery.params];
    const filters: string[] = [];
    if (options.source) {
      params.push(options.source);
      filters.push(`s.source = $${params.length}`);
    }
    if (options.role) {
      params.push(options.role);
      filters.push(`m.role = $${params.length}`);
    }
    params.push(options.limit ?? 20);
    const limit = `$${params.length}`;
    params.push(`StartSel="${open}", StopSel="${close}", MaxWords=16, MinWords=6, ShortWord=1, MaxFragments=1`);
    const headline = `$${params.length}`;
    // Ranked first, headlines cut for the rows returned only.
    const hits = await this.conn.query<SearchHit>(
      `WITH q AS (SELECT ${tsQuery.sql} AS query),
      top AS (
        SELECT m.id, m.session_id, m.role, m.created_at, m.searchable, s.title, s.source,
          ts_rank_cd(m.search_vector, q.query) AS score
        FROM messages m JOIN sessions s ON s.id = m.session_id, q
        WHERE m.search_vector @@ q.query ${filters.length ? `AND ${filters.join(" AND ")}` : ""}
        ORDER BY score DESC, m.id DESC LIMIT ${limit}
      )
      SELECT top.id AS "messageId", top.session_id AS "sessionId", top.role, top.created_at AS "createdAt",
        top.title AS "sessionTitle", top.source AS "sessionSource", -top.score AS rank,
        ts_headline('english', top.searchable, q.query, ${headline}) AS snippet
      FROM top, q ORDER BY top.score DESC, top.id DESC`,
      params,
    );
    if (hits.length > 0 || !tsQuery.fragment) {
      return hits.map((hit) => ({ ...hit, role: hit.role as StoredRole, snippet: fromPgText(hit.snippet) }));
    }
    return this.substringSearch(tsQuery.fragment, options, open, close);
  }

  /** Where whole-word search finds nothing: rows containing the fragment, by the trigram index. */
  private async substringSearch(
    fragment: string,
    options: SearchOptions,
    open: string,
    close: string,
  ): Promise<SearchHit[]> {
    if (fragment.length < SUBSTRING_MIN_CHARS) return [];
    const pattern = `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const params: unknown[] = [pattern];
    const filters: string[] = [];
    if (options.source) {
      params.push(options.source);
      filters.push(`s.source = $${params.length}`);
    }
    if (options.role) {
      params.push(options.role);
      filters.push(`m.role = $${params.length}`);
    }
    params.push(options.limit ?? 20);
    const rows = await this.conn.query<SearchHit & { searchable: string }>(
      `SELECT m.id AS "messageId", m.session_id AS "sessionId", m.role, m.created_at AS "createdAt",
        s.title AS "sessionTitle", s.source AS "sessionSource", 0 AS rank, m.searchable
      FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE m.searchable ILIKE $1 ${filters.length ? `AND ${filters.join(" AND ")}` : ""}
      ORDER BY m.id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(({ searchable, ...hit }) => ({
      ...hit,
      role: hit.role as StoredRole,
      snippet: fragmentSnippet(fromPgText(searchable), fragment, open, close),
    }));
  }

  async prune(options: { olderThanDays: number; source?: string }): Promise<number> {
    return (await this.pruneSessions(options)).sessions;
  }

  async pruneSessions(options: PruneOptions): Promise<PruneResult> {
    if (!(options.olderThanDays >= 0)) {
      throw new SessionStoreError("prune needs a number of days of 0 or more", this.location);
    }
    const cutoff = (options.now ?? Date.now()) - options.olderThanDays * 86_400_000;
    const params: unknown[] = options.source ? [cutoff, options.source] : [cutoff];
    const where = options.source ? "last_active < $1 AND source = $2" : "last_active < $1";
    return this.conn.transaction(async (db) => {
      const chosen = `SELECT id FROM sessions WHERE ${where}`;
      if (options.dryRun) {
        const { rows } = await db.query<{ sessions: number; messages: number }>(
          `SELECT (SELECT COUNT(*)::int FROM sessions WHERE ${where}) AS sessions,
            (SELECT COUNT(*)::int FROM messages WHERE session_id IN (${chosen})) AS messages`,
          params,
        );
        return { sessions: rows[0]!.sessions, messages: rows[0]!.messages };
      }
      const messages = (await db.query(`DELETE FROM messages WHERE session_id IN (${chosen})`, params)).rowCount ?? 0;
      const sessions = (await db.query(`DELETE FROM sessions WHERE ${where}`, params)).rowCount ?? 0;
      return { sessions, messages };
    });
  }

  /**
   * PostgreSQL checks its own pages and keeps the search vector in step with the text (a generated
   * column), so repair recounts each session's messages.
   */
  async repair(): Promise<StoreRepairReport> {
    return this.conn.transaction(async (db) => {
      const fixed = await db.query(
        `UPDATE sessions s SET message_count = c.n
         FROM (SELECT s2.id, COUNT(m.id)::int AS n FROM sessions s2 LEFT JOIN messages m ON m.session_id = s2.id
               GROUP BY s2.id) c
         WHERE s.id = c.id AND s.message_count <> c.n`,
      );
      const { rows } = await db.query<{ n: number }>("SELECT COUNT(*)::int AS n FROM messages");
      return {
        problemsBefore: [],
        problemsAfter: [],
        indexesRebuilt: false,
        searchIndexStale: false,
        messagesIndexed: rows[0]!.n,
        messageCountsFixed: fixed.rowCount ?? 0,
      };
    });
  }

  async stats(): Promise<SessionStats> {
    const [totals] = await this.conn.query<{
      sessions: number;
      totalTokens: number;
      estimatedCost: number | null;
      unpriced: number;
      oldest: number | null;
      newest: number | null;
      messages: number;
      bytes: number;
    }>(
      `SELECT COUNT(*)::int AS sessions, COALESCE(SUM(total_tokens), 0)::bigint AS "totalTokens",
        SUM(estimated_cost) AS "estimatedCost", (COUNT(*) - COUNT(estimated_cost))::int AS unpriced,
        MIN(last_active) AS oldest, MAX(last_active) AS newest,
        (SELECT COUNT(*)::int FROM messages) AS messages,
        pg_database_size(current_database()) AS bytes
       FROM sessions`,
    );
    const rows = await this.conn.query<{ source: string; n: number }>(
      "SELECT source, COUNT(*)::int AS n FROM sessions GROUP BY source",
    );
    return {
      sessions: totals!.sessions,
      messages: totals!.messages,
      bySource: Object.fromEntries(rows.map((r) => [r.source, r.n])),
      totalTokens: totals!.totalTokens,
      estimatedCost: totals!.estimatedCost,
      unpricedSessions: totals!.unpriced,
      oldestActivity: totals!.oldest ?? null,
      newestActivity: totals!.newest ?? null,
      bytes: totals!.bytes,
    };
  }

  async exportSession(id: string): Promise<SessionExport> {
    const session = await this.readSession(this.conn.pool, id);
    if (!session) throw this.missing(id);
    const messages = await this.messageRows(this.conn.pool, id, false);
    return { format: "hermes-session", version: 1, session, messages: messages.map(toExportedMessage) };
  }

  async importSession(data: unknown, options: { replace?: boolean } = {}): Promise<SessionRecord> {
    const parsed = parseSessionExport(data);
    if (typeof parsed === "string") throw new SessionStoreError(parsed, this.location);
    const { session, messages } = parsed;
    return this.conn.transaction(async (db) => {
      if (await this.readSession(db, session.id)) {
        if (!options.replace) {
          throw new SessionStoreError(
            `a session with id "${session.id}" already exists; delete it first or import with --replace (hermes sessions import FILE --replace)`,
            this.location,
          );
        }
        await db.query("DELETE FROM sessions WHERE id = $1", [session.id]);
      }
      await db.query(
        `INSERT INTO sessions (id, parent_session_id, title, source, model, started_at, last_active, ended_at,
          message_count, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, total_tokens,
          estimated_cost, system_prompt) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
        [
          session.id,
          session.parentSessionId,
          toPgText(session.title),
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
          toPgText(session.systemPrompt),
        ],
      );
      await this.insertMessages(
        db,
        messages.map(({ createdAt, archived, ...message }) =>
          toMessageInsert(session.id, message, createdAt, archived),
        ),
      );
      return (await this.readSession(db, session.id))!;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.conn.close();
  }
}

/** About 16 words around the first occurrence of `fragment`, the occurrence marked. */
function fragmentSnippet(text: string, fragment: string, open: string, close: string): string {
  const at = text.toLowerCase().indexOf(fragment.toLowerCase());
  if (at < 0) return text.slice(0, 120);
  const start = Math.max(0, text.lastIndexOf(" ", Math.max(0, at - 60)) + 1);
  const end = Math.min(text.length, at + fragment.length + 60);
  const before = text.slice(start, at);
  const match = text.slice(at, at + fragment.length);
  const after = text.slice(at + fragment.length, end);
  return `${start > 0 ? "…" : ""}${before}${open}${match}${close}${after}${end < text.length ? "…" : ""}`;
}

function sessionFromPg(row: SessionRow): SessionRow {
  return {
    ...row,
    title: fromPgText(row.title),
    ...(row.system_prompt !== undefined ? { system_prompt: fromPgText(row.system_prompt) } : {}),
    ...(row.preview !== undefined ? { preview: fromPgText(row.preview) } : {}),
  };
}

function messageFromPg(row: MessageRow): MessageRow {
  return {
    ...row,
    content: fromPgText(row.content),
    search_text: fromPgText(row.search_text),
    reasoning: fromPgText(row.reasoning),
  };
}
