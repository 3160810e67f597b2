/**
 * One SQLite connection with the locking discipline of state.db: WAL, no SQLite busy
 * handler, and our own BEGIN IMMEDIATE with jittered retries (20-150 ms) up to a bounded
 * total, so many writers (gateway, cron, CLI) take turns instead of convoying.
 */
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionStoreError } from "./session-store.js";
import { openSqliteDatabase, type SqliteDatabase, type SqliteStatement } from "./sqlite-driver.js";
import { currentVersion, migrate, SCHEMA_VERSION } from "./sqlite-schema.js";
import { storeFileFor } from "./store-location.js";

const SQLITE_HEADER = "SQLite format 3\0";
const CHECKPOINT_EVERY = 50;
/** Distinct SQL texts kept prepared; dynamic queries (filters, patches) have few variants. */
const STATEMENT_CACHE_SIZE = 256;
const RETRY_MIN_MS = 20;
const RETRY_MAX_MS = 150;

function sqliteCode(error: unknown): string | undefined {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

const isBusy = (error: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(sqliteCode(error) ?? "");

function notADatabase(path: string, cause?: unknown): SessionStoreError {
  return new SessionStoreError(
    `${path} is not a readable SQLite database (corrupt or another kind of file). It was left untouched: ` +
      "move it aside to start a new session store, or restore it from a backup.",
    path,
    { cause },
  );
}

/** Refuse anything that is not an SQLite file before the driver gets a chance to write to it. */
function checkFile(path: string): void {
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    try {
      // An empty file is a valid new database; creating it here sets a private mode.
      closeSync(openSync(path, "wx", 0o600));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return;
  }
  const stat = statSync(path);
  if (!stat.isFile()) throw new SessionStoreError(`${path} is not a file`, path);
  if (stat.size === 0) return;
  const header = Buffer.alloc(16);
  const fd = openSync(path, "r");
  try {
    readSync(fd, header, 0, 16, 0);
  } finally {
    closeSync(fd);
  }
  if (header.toString("latin1") !== SQLITE_HEADER) throw notADatabase(path);
}

interface PendingWrite {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Connections shared by the stores of one process, by file and lock timeout. */
const sharedConnections = new Map<string, Promise<SqliteConnection>>();

export class SqliteConnection {
  private commitCount = 0;
  /** Stores holding this connection; it closes when the last lets go. */
  private holders = 1;
  private sharedKey: string | undefined;
  private readonly statements = new Map<string, SqliteStatement>();
  private readonly pending: PendingWrite[] = [];
  /** Write transactions committed so far (each may hold several writes). */
  transactions = 0;
  private flushing = false;

  private constructor(
    readonly db: SqliteDatabase,
    readonly path: string,
    private readonly lockTimeoutMs: number,
  ) {}

  static async open(asked: string, lockTimeoutMs: number): Promise<SqliteConnection> {
    const path = storeFileFor(asked);
    checkFile(path);
    let db: SqliteDatabase;
    try {
      db = openSqliteDatabase(path, { timeout: 0 });
    } catch (error) {
      throw new SessionStoreError(`cannot open ${path}: ${(error as Error).message}`, path, { cause: error });
    }
    const conn = new SqliteConnection(db, path, lockTimeoutMs);
    try {
      await conn.retrying(() => {
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
      });
      // Table rebuilds in migrations must not trip foreign-key checks halfway through.
      db.pragma("foreign_keys = OFF");
      await conn.migrateIfNeeded();
      db.pragma("foreign_keys = ON");
    } catch (error) {
      db.close();
      throw conn.wrap(error);
    }
    return conn;
  }

  /**
   * The connection this process already has to the file, or a new one. The stores of one
   * process (sessions, API runs, gateway, cron) share it: one write queue, so their writes share
   * group commits, and no page cache thrown away because another connection of the same process
   * committed (measured: 15 reads per API request with two connections, 1 with one).
   * Every holder calls `close()` once.
   */
  static shared(asked: string, lockTimeoutMs: number): Promise<SqliteConnection> {
    const key = `${storeFileFor(asked)}\0${lockTimeoutMs}`;
    const existing = sharedConnections.get(key);
    if (existing) {
      return existing.then((conn) => {
        conn.holders++;
        return conn;
      });
    }
    const opening = SqliteConnection.open(asked, lockTimeoutMs).then(
      (conn) => {
        conn.sharedKey = key;
        return conn;
      },
      (error: unknown) => {
        sharedConnections.delete(key);
        throw error;
      },
    );
    sharedConnections.set(key, opening);
    return opening;
  }

  private async migrateIfNeeded(): Promise<void> {
    const version = await this.read(() => currentVersion(this.db));
    if (version > SCHEMA_VERSION) {
      throw new SessionStoreError(
        `${this.path} was written by a newer hermes (schema ${version}, this one knows ${SCHEMA_VERSION}); upgrade hermes`,
        this.path,
      );
    }
    if (version === SCHEMA_VERSION) return;
    await this.write(() => {
      // Another process may have migrated while we waited for the lock.
      const now = currentVersion(this.db);
      if (now < SCHEMA_VERSION) migrate(this.db, now);
    });
  }

  /** Map driver errors to store errors that name the file. */
  wrap(error: unknown): unknown {
    if (error instanceof SessionStoreError) return error;
    const code = sqliteCode(error);
    if (code === "SQLITE_NOTADB" || code?.startsWith("SQLITE_CORRUPT")) return notADatabase(this.path, error);
    if (code?.startsWith("SQLITE_")) {
      return new SessionStoreError(`${this.path}: ${(error as Error).message}`, this.path, { cause: error });
    }
    return error;
  }

  private lockedError(): SessionStoreError {
    const seconds = (this.lockTimeoutMs / 1000).toFixed(1);
    return new SessionStoreError(
      `database is locked: another process kept ${this.path} busy for more than ${seconds}s. ` +
        "Close other hermes processes using this profile, or try again.",
      this.path,
    );
  }

  /** Run `step` until it stops failing with SQLITE_BUSY, sleeping 20-150 ms between tries. */
  private async retrying<T>(step: () => T): Promise<T> {
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        return step();
      } catch (error) {
        if (!isBusy(error)) throw this.wrap(error);
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw this.lockedError();
        const jitter = RETRY_MIN_MS + Math.random() * (RETRY_MAX_MS - RETRY_MIN_MS);
        await sleep(Math.min(jitter, remaining));
      }
    }
  }

  /**
   * A prepared statement for `sql`, compiled once per connection. Statements are shared, so a
   * caller that switches one to `pluck()` must use that SQL text only that way.
   */
  statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (!statement) {
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  read<T>(fn: () => T): Promise<T> {
    return this.retrying(fn);
  }

  /**
   * Run `fn` atomically and commit it before the promise resolves. Writes from this connection
   * commit in the order they were requested, even while one of them waits for the lock. Writes
   * requested while another batch is being prepared share one transaction (group commit), each
   * in its own savepoint, so a failing write undoes only itself: under many concurrent sessions
   * the commit cost is paid once per batch instead of once per message.
   */
  write<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) await this.commitBatch(this.pending.splice(0));
    this.flushing = false;
  }

  private async commitBatch(batch: PendingWrite[]): Promise<void> {
    try {
      await this.retrying(() => this.db.exec("BEGIN IMMEDIATE"));
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      for (const write of batch) {
        this.statement("SAVEPOINT hermes_write").run();
        try {
          outcomes.push({ ok: true, value: write.fn() });
          this.statement("RELEASE hermes_write").run();
        } catch (error) {
          this.statement("ROLLBACK TO hermes_write").run();
          this.statement("RELEASE hermes_write").run();
          outcomes.push({ ok: false, error: this.wrap(error) });
        }
      }
      this.db.exec("COMMIT");
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      for (const write of batch) write.reject(this.wrap(error));
      return;
    }
    this.transactions++;
    this.afterCommit();
    for (const [i, write] of batch.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    }
  }

  /** Every CHECKPOINT_EVERY commits (a commit may hold many writes) the WAL is copied back. */
  private afterCommit(): void {
    this.commitCount++;
    if (this.commitCount % CHECKPOINT_EVERY !== 0) return;
    try {
      this.db.pragma("wal_checkpoint(PASSIVE)");
    } catch {
      // A checkpoint that cannot run now simply runs on a later write.
    }
  }

  /** Bytes on disk: the database file plus its write-ahead log. */
  bytes(): number {
    let total = 0;
    for (const file of [this.path, `${this.path}-wal`]) {
      if (existsSync(file)) total += statSync(file).size;
    }
    return total;
  }

  close(): void {
    if (--this.holders > 0) return;
    if (this.sharedKey !== undefined) sharedConnections.delete(this.sharedKey);
    this.sharedKey = undefined;
    if (this.db.open) this.db.close();
  }
}
