/**
 * One connection pool per database URL and process, shared by every store opened on it and
 * closed when the last of them closes. Opening applies pending migrations under an advisory
 * lock, so replicas starting together never apply one twice. `pg` loads only here, and only
 * when a store is configured with a PostgreSQL URL.
 */
import type { Pool, PoolClient, QueryResultRow } from "pg";
import { SessionStoreError } from "../session-store.js";
import { PG_MIGRATIONS } from "./schema.js";
import { redactUrl } from "./url.js";

export { isPostgresUrl, redactUrl } from "./url.js";

const INT8_OID = 20;
const SCHEMA_LOCK = 7_412_093_311;

export type Queryable = Pick<PoolClient, "query">;

/** A PostgreSQL error (it carries a SQLSTATE and a severity). */
function isDatabaseError(error: unknown): error is Error & { code: string } {
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === "string" &&
    typeof (error as { severity?: unknown }).severity === "string"
  );
}

export class PgConnection {
  private static readonly shared = new Map<string, { pool: Promise<PgConnection>; users: number }>();

  private constructor(
    readonly pool: Pool,
    readonly url: string,
  ) {}

  /** The pool for `url` (opened, migrated) and one more user of it. */
  static open(url: string): Promise<PgConnection> {
    const entry = PgConnection.shared.get(url);
    if (entry) {
      entry.users++;
      return entry.pool;
    }
    const pool = PgConnection.connect(url);
    PgConnection.shared.set(url, { pool, users: 1 });
    pool.catch(() => PgConnection.shared.delete(url));
    return pool;
  }

  private static async connect(url: string): Promise<PgConnection> {
    const { default: pg } = await import("pg");
    const types = {
      // Epoch milliseconds and counters are BIGINT: numbers here, as in the embedded store.
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text")) as never,
    };
    // A connection attempt the server never answers fails after 10 s instead of holding its caller.
    const pool = new pg.Pool({
      connectionString: url,
      types,
      max: 10,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 10_000,
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on("error", () => {});
    const connection = new PgConnection(pool, url);
    try {
      await connection.migrate();
    } catch (error) {
      await pool.end().catch(() => {});
      throw new SessionStoreError(
        `cannot use the PostgreSQL store at ${redactUrl(url)}: ${(error as Error).message}`,
        redactUrl(url),
        { cause: error },
      );
    }
    return connection;
  }

  /** The URL without its password, for messages and `location`. */
  get location(): string {
    return redactUrl(this.url);
  }

  /** Database errors become store errors naming the database, as the embedded store names its file. */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!isDatabaseError(error)) throw error;
      throw new SessionStoreError(`${this.location}: ${error.message}`, this.location, { cause: error });
    }
  }

  async query<R extends QueryResultRow = QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.pool.query<R>(sql, params)).rows;
  }

  /** Runs `fn` in one transaction on one client; rolls back when it throws. */
  async transaction<T>(fn: (client: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private async migrate(): Promise<void> {
    await this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [SCHEMA_LOCK]);
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)",
      );
      const { rows } = await client.query<{ version: number | null }>(
        "SELECT MAX(version) AS version FROM schema_version",
      );
      const current = rows[0]?.version ?? 0;
      if (current > PG_MIGRATIONS.length) {
        throw new Error(
          `its schema is version ${current}, newer than this hermes knows (${PG_MIGRATIONS.length}); upgrade hermes`,
        );
      }
      for (let version = current + 1; version <= PG_MIGRATIONS.length; version++) {
        await client.query(PG_MIGRATIONS[version - 1]!);
        await client.query("INSERT INTO schema_version (version, applied_at) VALUES ($1, $2)", [version, Date.now()]);
      }
    });
  }

  /** One user fewer (each store calls it once); the pool closes with the last. */
  async close(): Promise<void> {
    const entry = PgConnection.shared.get(this.url);
    if (!entry) return;
    entry.users--;
    if (entry.users > 0) return;
    PgConnection.shared.delete(this.url);
    await this.pool.end();
  }
}
