/**
 * `hermes store migrate --to postgres`: every row of the embedded store copied into a PostgreSQL
 * database with the same schema. Rows keep their keys (message ids included), rows already there
 * are left alone, so a second run copies only what is new; after each chunk the rows of that chunk
 * are counted in the target, so a copy that lost a row fails instead of reporting success. The
 * source is opened read-only and never changed.
 */
import { existsSync } from "node:fs";
import { openSqliteDatabase } from "../sqlite-driver.js";
import { storeFileFor } from "../store-location.js";
import { PgConnection, type Queryable } from "./connection.js";
import { toPgText } from "./text.js";

/** Tables in dependency order, with their primary keys. Leases are transient and not copied. */
const TABLES: ReadonlyArray<{ name: string; key: string[]; serial?: string }> = [
  { name: "sessions", key: ["id"] },
  { name: "messages", key: ["id"], serial: "id" },
  { name: "api_responses", key: ["id"] },
  { name: "api_runs", key: ["id"] },
  { name: "api_idempotency_keys", key: ["namespace", "key"] },
  { name: "api_session_owners", key: ["session_id"] },
  { name: "gateway_inbound", key: ["platform", "chat_id", "message_id"] },
  { name: "gateway_deliveries", key: ["id"] },
  { name: "gateway_pairing_requests", key: ["platform", "code"] },
  { name: "gateway_approved_users", key: ["platform", "user_id"] },
  { name: "gateway_session_routes", key: ["session_key"] },
  { name: "gateway_home_channels", key: ["platform"] },
  { name: "cron_jobs", key: ["id"] },
  { name: "cron_runs", key: ["id"], serial: "id" },
  { name: "import_marks", key: ["source", "session_id"] },
];

const CHUNK = 500;

export interface TableCopy {
  table: string;
  /** Rows in the embedded store. */
  source: number;
  /** Of those, rows the target did not have before. */
  copied: number;
}

export interface CopyReport {
  from: string;
  to: string;
  tables: TableCopy[];
}

export class StoreCopyError extends Error {
  override name = "StoreCopyError";
}

export async function copySqliteToPostgres(
  statePath: string,
  url: string,
  progress: (line: string) => void = () => {},
): Promise<CopyReport> {
  const file = storeFileFor(statePath);
  if (!existsSync(file)) throw new StoreCopyError(`there is no embedded store to copy at ${file}`);
  const source = openSqliteDatabase(file, { readonly: true, fileMustExist: true });
  const target = await PgConnection.open(url);
  try {
    const present = new Set(
      (source.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map(String),
    );
    const tables: TableCopy[] = [];
    for (const table of TABLES) {
      if (!present.has(table.name)) continue;
      const columns = (source.prepare(`PRAGMA table_info(${table.name})`).all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
      const total = source.prepare(`SELECT COUNT(*) FROM ${table.name}`).pluck().get() as number;
      const rows = source.prepare(`SELECT ${columns.join(", ")} FROM ${table.name} ORDER BY rowid`).raw();
      let copied = 0;
      let chunk: unknown[][] = [];
      const flush = async () => {
        if (chunk.length === 0) return;
        const batch = chunk;
        chunk = [];
        copied += await target.transaction((db) => insertChunk(db, table, columns, batch));
      };
      for (const row of rows.iterate() as Iterable<unknown[]>) {
        chunk.push(row);
        if (chunk.length >= CHUNK) await flush();
      }
      await flush();
      if (table.serial) {
        await target.query(
          `SELECT setval(pg_get_serial_sequence('${table.name}', '${table.serial}'),
             GREATEST((SELECT MAX(${table.serial}) FROM ${table.name}), 1))`,
        );
      }
      tables.push({ table: table.name, source: total, copied });
      progress(`${table.name}: ${total} row(s), ${copied} new`);
    }
    return { from: file, to: target.location, tables };
  } finally {
    source.close();
    await target.close();
  }
}

/** Inserts one chunk, then checks that every row of it is in the target. Returns the rows that were new. */
async function insertChunk(
  db: Queryable,
  table: { name: string; key: string[] },
  columns: string[],
  rows: unknown[][],
): Promise<number> {
  const params: unknown[] = [];
  const tuples = rows.map((row) => {
    const slots = row.map((value) => {
      params.push(typeof value === "string" ? toPgText(value) : typeof value === "bigint" ? Number(value) : value);
      return `$${params.length}`;
    });
    return `(${slots.join(", ")})`;
  });
  const inserted = await db.query(
    `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES ${tuples.join(", ")} ON CONFLICT DO NOTHING`,
    params,
  );
  const keyIndexes = table.key.map((key) => columns.indexOf(key));
  const keyParams: unknown[] = [];
  const keyTuples = rows.map((row) => {
    const slots = keyIndexes.map((index) => {
      const value = row[index];
      keyParams.push(typeof value === "string" ? toPgText(value) : typeof value === "bigint" ? Number(value) : value);
      return `$${keyParams.length}`;
    });
    return `(${slots.join(", ")})`;
  });
  const { rows: counted } = await db.query<{ n: number }>(
    `SELECT COUNT(*)::int AS n FROM ${table.name} WHERE (${table.key.join(", ")}) IN (${keyTuples.join(", ")})`,
    keyParams,
  );
  if (counted[0]!.n !== rows.length) {
    throw new StoreCopyError(
      `${table.name}: ${rows.length} row(s) copied but ${counted[0]!.n} found in the target; nothing of this chunk was kept`,
    );
  }
  return inserted.rowCount ?? 0;
}
