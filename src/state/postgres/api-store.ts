/**
 * The API server's tables in PostgreSQL: stored Responses, runs, idempotency keys and session
 * owners, the same rows as the embedded store (sqlite-api-store.ts), every read scoped to the
 * caller's namespace. Many replicas share the database: an idempotency key is claimed by one
 * upsert whose conflicting row stays locked until the claim's transaction ends, so exactly one
 * caller wins a key and every other one reads the winner's claim.
 */
import {
  apiCodec,
  count,
  type IdempotencyRow,
  KEY_COLUMNS,
  RESPONSE_COLUMNS,
  type ResponseRow,
  RUN_COLUMNS,
  type RunRow,
} from "../api-codec.js";
import type {
  ApiRunPatch,
  ApiRunRecord,
  ApiServerStore,
  IdempotencyClaim,
  IdempotencyRecord,
  ListRunsOptions,
  StoredResponse,
} from "../api-store.js";
import { SessionStoreError } from "../session-store.js";
import { PgConnection } from "./connection.js";
import { fromPgText, toPgText } from "./text.js";

// Every text column goes through the escape of text.ts (PostgreSQL text cannot hold U+0000), as
// copy-from-sqlite.ts writes them.
const { toJson, toResponse, toRun, toIdempotency } = apiCodec({ encode: toPgText, decode: fromPgText });

export class PgApiServerStore implements ApiServerStore {
  private closed = false;

  private constructor(private readonly conn: PgConnection) {}

  static async open(url: string): Promise<PgApiServerStore> {
    return new PgApiServerStore(await PgConnection.open(url));
  }

  get location(): string {
    return this.conn.location;
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return this.conn.guard(work);
  }

  saveResponse(response: StoredResponse): Promise<void> {
    return this.guard(async () => {
      // A response id is only ever rewritten by the namespace that saved it; `seq` (the order of
      // first saving) is kept, as SQLite keeps the rowid.
      const rows = await this.conn.query(
        `INSERT INTO api_responses (${RESPONSE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET session_id = excluded.session_id, message_count = excluded.message_count,
           previous_response_id = excluded.previous_response_id, conversation = excluded.conversation,
           body = excluded.body, created_at = excluded.created_at
         WHERE api_responses.namespace = excluded.namespace
         RETURNING id`,
        [
          toPgText(response.id),
          toPgText(response.namespace),
          toPgText(response.sessionId),
          response.messageCount,
          toPgText(response.previousResponseId),
          toPgText(response.conversation),
          toJson(response.body),
          response.createdAt,
        ],
      );
      if (rows.length === 0) {
        throw new SessionStoreError(
          `response "${response.id}" already exists under another API key; not overwritten`,
          this.location,
        );
      }
    });
  }

  getResponse(namespace: string, id: string): Promise<StoredResponse | null> {
    return this.guard(async () => {
      const rows = await this.conn.query<ResponseRow>(
        `SELECT ${RESPONSE_COLUMNS} FROM api_responses WHERE namespace = $1 AND id = $2`,
        [toPgText(namespace), toPgText(id)],
      );
      return rows[0] ? toResponse(rows[0]) : null;
    });
  }

  deleteResponse(namespace: string, id: string): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.conn.pool.query("DELETE FROM api_responses WHERE namespace = $1 AND id = $2", [
        toPgText(namespace),
        toPgText(id),
      ]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  latestInConversation(namespace: string, conversation: string): Promise<StoredResponse | null> {
    return this.guard(async () => {
      // Equal timestamps fall back to the order of first saving, so the last one saved wins.
      const rows = await this.conn.query<ResponseRow>(
        `SELECT ${RESPONSE_COLUMNS} FROM api_responses WHERE namespace = $1 AND conversation = $2
         ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [toPgText(namespace), toPgText(conversation)],
      );
      return rows[0] ? toResponse(rows[0]) : null;
    });
  }

  createRun(run: ApiRunRecord): Promise<void> {
    return this.guard(async () => {
      await this.conn.query(`INSERT INTO api_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        toPgText(run.id),
        toPgText(run.namespace),
        run.status,
        toPgText(run.sessionId),
        toJson(run.input),
        toPgText(run.output),
        toPgText(run.error),
        toJson(run.usage),
        run.createdAt,
        run.updatedAt,
      ]);
    });
  }

  updateRun(id: string, patch: ApiRunPatch): Promise<ApiRunRecord> {
    const params: unknown[] = [Date.now()];
    const sets = ["updated_at = $1"];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (patch.status !== undefined) set("status", patch.status);
    if (patch.sessionId !== undefined) set("session_id", toPgText(patch.sessionId));
    if (patch.output !== undefined) set("output", toPgText(patch.output));
    if (patch.error !== undefined) set("error", toPgText(patch.error));
    if (patch.usage !== undefined) set("usage", toJson(patch.usage));
    params.push(toPgText(id));
    return this.guard(async () => {
      const rows = await this.conn.query<RunRow>(
        `UPDATE api_runs SET ${sets.join(", ")} WHERE id = $${params.length} RETURNING ${RUN_COLUMNS}`,
        params,
      );
      if (!rows[0]) throw new SessionStoreError(`no API run with id "${id}" in ${this.location}`, this.location);
      return toRun(rows[0]);
    });
  }

  getRun(namespace: string, id: string): Promise<ApiRunRecord | null> {
    return this.guard(async () => {
      const rows = await this.conn.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM api_runs WHERE namespace = $1 AND id = $2`,
        [toPgText(namespace), toPgText(id)],
      );
      return rows[0] ? toRun(rows[0]) : null;
    });
  }

  listRuns(namespace: string, options: ListRunsOptions): Promise<ApiRunRecord[]> {
    const params: unknown[] = [toPgText(namespace)];
    const where = ["namespace = $1"];
    if (options.sessionId !== undefined) {
      params.push(toPgText(options.sessionId));
      where.push(`session_id = $${params.length}`);
    }
    if (options.status !== undefined) {
      params.push(options.status);
      where.push(`status = $${params.length}`);
    }
    params.push(options.limit, options.offset);
    return this.guard(async () => {
      const rows = await this.conn.query<RunRow>(
        `SELECT ${RUN_COLUMNS} FROM api_runs WHERE ${where.join(" AND ")}
         ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
      return rows.map(toRun);
    });
  }

  interruptUnfinishedRuns(error: string): Promise<number> {
    return this.guard(async () => {
      const result = await this.conn.pool.query(
        `UPDATE api_runs SET status = 'interrupted', error = $1, updated_at = $2
         WHERE status IN ('queued', 'running')`,
        [toPgText(error), Date.now()],
      );
      return result.rowCount ?? 0;
    });
  }

  claimIdempotencyKey(record: IdempotencyRecord, ttlMs: number): Promise<IdempotencyClaim> {
    const params = [
      toPgText(record.namespace),
      toPgText(record.key),
      toPgText(record.bodyHash),
      toPgText(record.runId),
      record.createdAt,
      record.createdAt - ttlMs,
    ];
    // One transaction: the upsert takes the key when it is free or expired; otherwise it still
    // locks the holder's row (ON CONFLICT DO UPDATE locks the row its WHERE rejects), so the row
    // read next is the claim that won, and no one replaces or prunes it meanwhile.
    return this.guard(() =>
      this.conn.transaction(async (db): Promise<IdempotencyClaim> => {
        const taken = await db.query(
          `INSERT INTO api_idempotency_keys (${KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (namespace, key) DO UPDATE SET body_hash = excluded.body_hash, run_id = excluded.run_id,
             created_at = excluded.created_at
           WHERE api_idempotency_keys.created_at < $6
           RETURNING key`,
          params,
        );
        if (taken.rows.length > 0) return { claimed: true };
        const { rows } = await db.query<IdempotencyRow>(
          `SELECT ${KEY_COLUMNS} FROM api_idempotency_keys WHERE namespace = $1 AND key = $2`,
          params.slice(0, 2),
        );
        if (!rows[0]) throw new Error(`idempotency key "${record.key}" vanished while locked`);
        return { claimed: false, existing: toIdempotency(rows[0]) };
      }),
    );
  }

  pruneIdempotencyKeys(before: number): Promise<number> {
    return this.guard(async () => {
      const result = await this.conn.pool.query("DELETE FROM api_idempotency_keys WHERE created_at < $1", [before]);
      return result.rowCount ?? 0;
    });
  }

  setSessionOwner(sessionId: string, namespace: string): Promise<void> {
    return this.guard(async () => {
      await this.conn.query(
        `INSERT INTO api_session_owners (session_id, namespace) VALUES ($1, $2)
         ON CONFLICT (session_id) DO UPDATE SET namespace = excluded.namespace`,
        [toPgText(sessionId), toPgText(namespace)],
      );
    });
  }

  sessionOwner(sessionId: string): Promise<string | null> {
    return this.guard(async () => {
      const rows = await this.conn.query<{ namespace: string }>(
        "SELECT namespace FROM api_session_owners WHERE session_id = $1",
        [toPgText(sessionId)],
      );
      return rows[0] ? fromPgText(rows[0].namespace) : null;
    });
  }

  sessionsOwnedBy(namespace: string, options: { limit?: number; offset?: number } = {}): Promise<string[]> {
    // A NULL limit is none (SQLite's -1). Owners of deleted sessions drop out through the join.
    // Ids compare bytewise, as in SQLite, whatever the database's collation.
    const limit = count(options.limit, -1);
    const offset = count(options.offset, 0);
    return this.guard(async () => {
      const rows = await this.conn.query<{ session_id: string }>(
        `SELECT o.session_id FROM api_session_owners o JOIN sessions s ON s.id = o.session_id
         WHERE o.namespace = $1 ORDER BY s.last_active DESC, s.id COLLATE "C" DESC LIMIT $2 OFFSET $3`,
        [toPgText(namespace), limit < 0 ? null : limit, offset],
      );
      return rows.map((row) => fromPgText(row.session_id));
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.conn.close();
  }
}
