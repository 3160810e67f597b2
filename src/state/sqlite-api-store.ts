/**
 * The API server's tables in state.db (schema version 3): stored Responses, runs, idempotency
 * keys and session owners. It shares the process's connection to the file with the session store
 * (sqlite-connection.ts); every read is scoped to the caller's namespace.
 */

import {
  apiCodec,
  count,
  type IdempotencyRow,
  RESPONSE_COLUMNS,
  type ResponseRow,
  RUN_COLUMNS,
  type RunRow,
} from "./api-codec.js";
import type {
  ApiRunPatch,
  ApiRunRecord,
  ApiServerStore,
  IdempotencyClaim,
  IdempotencyRecord,
  ListRunsOptions,
  StoredResponse,
} from "./api-store.js";
import { SessionStoreError } from "./session-store.js";
import { SqliteConnection } from "./sqlite-connection.js";
import type { SqliteStatement as Statement } from "./sqlite-driver.js";

const { toJson, toResponse, toRun, toIdempotency } = apiCodec();

export class SqliteApiServerStore implements ApiServerStore {
  private readonly upsertResponse: Statement;
  private readonly selectResponse: Statement<[string, string]>;
  private readonly removeResponse: Statement<[string, string]>;
  private readonly selectLatest: Statement<[string, string]>;
  private readonly insertRun: Statement;
  private readonly selectRun: Statement<[string, string]>;
  private readonly selectRunById: Statement<[string]>;
  private readonly selectKey: Statement<[string, string]>;
  private readonly replaceKey: Statement;

  private closed = false;

  private constructor(private readonly conn: SqliteConnection) {
    const db = conn.db;
    // A response id is only ever rewritten by the namespace that saved it.
    this.upsertResponse = db.prepare(
      `INSERT INTO api_responses (${RESPONSE_COLUMNS})
       VALUES (@id, @namespace, @session_id, @message_count, @previous_response_id, @conversation, @body, @created_at)
       ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, message_count = excluded.message_count,
         previous_response_id = excluded.previous_response_id, conversation = excluded.conversation,
         body = excluded.body, created_at = excluded.created_at
       WHERE api_responses.namespace = excluded.namespace`,
    );
    this.selectResponse = db.prepare(`SELECT ${RESPONSE_COLUMNS} FROM api_responses WHERE namespace = ? AND id = ?`);
    this.removeResponse = db.prepare("DELETE FROM api_responses WHERE namespace = ? AND id = ?");
    // Equal timestamps fall back to insertion order, so the last one saved wins.
    this.selectLatest = db.prepare(
      `SELECT ${RESPONSE_COLUMNS} FROM api_responses WHERE namespace = ? AND conversation = ?
       ORDER BY created_at DESC, rowid DESC LIMIT 1`,
    );
    this.insertRun = db.prepare(
      `INSERT INTO api_runs (${RUN_COLUMNS})
       VALUES (@id, @namespace, @status, @session_id, @input, @output, @error, @usage, @created_at, @updated_at)`,
    );
    this.selectRun = db.prepare(`SELECT ${RUN_COLUMNS} FROM api_runs WHERE namespace = ? AND id = ?`);
    this.selectRunById = db.prepare(`SELECT ${RUN_COLUMNS} FROM api_runs WHERE id = ?`);
    this.selectKey = db.prepare(
      "SELECT namespace, key, body_hash, run_id, created_at FROM api_idempotency_keys WHERE namespace = ? AND key = ?",
    );
    this.replaceKey = db.prepare(
      `INSERT OR REPLACE INTO api_idempotency_keys (namespace, key, body_hash, run_id, created_at)
       VALUES (@namespace, @key, @body_hash, @run_id, @created_at)`,
    );
  }

  /** Open (and migrate, if needed) the state.db at `path` with a connection of its own. */
  static async open(path: string): Promise<SqliteApiServerStore> {
    return new SqliteApiServerStore(await SqliteConnection.shared(path, 10_000));
  }

  private get db() {
    return this.conn.db;
  }

  async saveResponse(response: StoredResponse): Promise<void> {
    const row: ResponseRow = {
      id: response.id,
      namespace: response.namespace,
      session_id: response.sessionId,
      message_count: response.messageCount,
      previous_response_id: response.previousResponseId,
      conversation: response.conversation,
      body: toJson(response.body),
      created_at: response.createdAt,
    };
    await this.conn.write(() => {
      if (this.upsertResponse.run(row).changes === 0) {
        throw new SessionStoreError(
          `response "${response.id}" already exists under another API key; not overwritten`,
          this.conn.path,
        );
      }
    });
  }

  getResponse(namespace: string, id: string): Promise<StoredResponse | null> {
    return this.conn.read(() => {
      const row = this.selectResponse.get(namespace, id) as ResponseRow | undefined;
      return row ? toResponse(row) : null;
    });
  }

  deleteResponse(namespace: string, id: string): Promise<boolean> {
    return this.conn.write(() => this.removeResponse.run(namespace, id).changes > 0);
  }

  latestInConversation(namespace: string, conversation: string): Promise<StoredResponse | null> {
    return this.conn.read(() => {
      const row = this.selectLatest.get(namespace, conversation) as ResponseRow | undefined;
      return row ? toResponse(row) : null;
    });
  }

  async createRun(run: ApiRunRecord): Promise<void> {
    const row: RunRow = {
      id: run.id,
      namespace: run.namespace,
      status: run.status,
      session_id: run.sessionId,
      input: toJson(run.input),
      output: run.output,
      error: run.error,
      usage: toJson(run.usage),
      created_at: run.createdAt,
      updated_at: run.updatedAt,
    };
    await this.conn.write(() => {
      this.insertRun.run(row);
    });
  }

  updateRun(id: string, patch: ApiRunPatch): Promise<ApiRunRecord> {
    const sets = ["updated_at = ?"];
    const params: unknown[] = [Date.now()];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (patch.status !== undefined) set("status", patch.status);
    if (patch.sessionId !== undefined) set("session_id", patch.sessionId);
    if (patch.output !== undefined) set("output", patch.output);
    if (patch.error !== undefined) set("error", patch.error);
    if (patch.usage !== undefined) set("usage", toJson(patch.usage));
    return this.conn.write(() => {
      const result = this.conn.statement(`UPDATE api_runs SET ${sets.join(", ")} WHERE id = ?`).run(...params, id);
      const row = result.changes > 0 ? (this.selectRunById.get(id) as RunRow | undefined) : undefined;
      if (!row) throw new SessionStoreError(`no API run with id "${id}" in ${this.conn.path}`, this.conn.path);
      return toRun(row);
    });
  }

  getRun(namespace: string, id: string): Promise<ApiRunRecord | null> {
    return this.conn.read(() => {
      const row = this.selectRun.get(namespace, id) as RunRow | undefined;
      return row ? toRun(row) : null;
    });
  }

  listRuns(namespace: string, options: ListRunsOptions): Promise<ApiRunRecord[]> {
    const where = ["namespace = ?"];
    const params: unknown[] = [namespace];
    if (options.sessionId !== undefined) {
      where.push("session_id = ?");
      params.push(options.sessionId);
    }
    if (options.status !== undefined) {
      where.push("status = ?");
      params.push(options.status);
    }
    return this.conn.read(() =>
      (
        this.conn
          .statement(
            `SELECT ${RUN_COLUMNS} FROM api_runs WHERE ${where.join(" AND ")}
             ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?`,
          )
          .all(...params, options.limit, options.offset) as RunRow[]
      ).map(toRun),
    );
  }

  interruptUnfinishedRuns(error: string): Promise<number> {
    return this.conn.write(
      () =>
        this.db
          .prepare(
            `UPDATE api_runs SET status = 'interrupted', error = ?, updated_at = ?
             WHERE status IN ('queued', 'running')`,
          )
          .run(error, Date.now()).changes,
    );
  }

  claimIdempotencyKey(record: IdempotencyRecord, ttlMs: number): Promise<IdempotencyClaim> {
    // One write transaction: the look-up and the claim cannot interleave with another
    // process's claim of the same key.
    return this.conn.write((): IdempotencyClaim => {
      const row = this.selectKey.get(record.namespace, record.key) as IdempotencyRow | undefined;
      if (row && row.created_at >= record.createdAt - ttlMs) return { claimed: false, existing: toIdempotency(row) };
      this.replaceKey.run({
        namespace: record.namespace,
        key: record.key,
        body_hash: record.bodyHash,
        run_id: record.runId,
        created_at: record.createdAt,
      });
      return { claimed: true };
    });
  }

  pruneIdempotencyKeys(before: number): Promise<number> {
    return this.conn.write(
      () => this.conn.statement("DELETE FROM api_idempotency_keys WHERE created_at < ?").run(before).changes,
    );
  }

  async setSessionOwner(sessionId: string, namespace: string): Promise<void> {
    await this.conn.write(() => {
      this.conn
        .statement(
          `INSERT INTO api_session_owners (session_id, namespace) VALUES (?, ?)
           ON CONFLICT (session_id) DO UPDATE SET namespace = excluded.namespace`,
        )
        .run(sessionId, namespace);
    });
  }

  sessionOwner(sessionId: string): Promise<string | null> {
    return this.conn.read(
      () =>
        (this.conn.statement("SELECT namespace FROM api_session_owners WHERE session_id = ?").pluck().get(sessionId) as
          | string
          | undefined) ?? null,
    );
  }

  sessionsOwnedBy(namespace: string, options: { limit?: number; offset?: number } = {}): Promise<string[]> {
    // LIMIT -1 is no limit. Owners of deleted sessions drop out through the join.
    const limit = count(options.limit, -1);
    const offset = count(options.offset, 0);
    return this.conn.read(
      () =>
        this.db
          .prepare(
            `SELECT o.session_id FROM api_session_owners o JOIN sessions s ON s.id = o.session_id
             WHERE o.namespace = ? ORDER BY s.last_active DESC, s.id DESC LIMIT ? OFFSET ?`,
          )
          .pluck()
          .all(namespace, limit, offset) as string[],
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.close();
  }
}
