/**
 * The state.db schema and its ordered migrations. A database without a schema_version table
 * but with a `sessions` table is the original layout (version 1). Every migration runs in
 * the caller's write transaction, so an interrupted upgrade leaves the old schema intact.
 */
import type { SqliteDatabase } from "./sqlite-driver.js";
import { STORE_APPLICATION_ID } from "./store-location.js";

/**
 * The searchable text of a message row: its content, or for a content-parts array the text
 * of its text parts (kept in `search_text` when the row is written, so no JSON is parsed here).
 */
export function searchTextSql(row: string): string {
  return `CASE WHEN ${row}.content_is_parts = 1 THEN ${row}.search_text ELSE ${row}.content END`;
}

/** Timestamps in old databases may be epoch seconds, epoch ms, or date strings. */
export function toEpochMs(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "number" || typeof value === "bigint") {
    const n = Number(value);
    return Number.isFinite(n) ? Math.round(n < 1e11 ? n * 1000 : n) : null;
  }
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^-?\d+(\.\d+)?$/.test(text)) return toEpochMs(Number(text));
  // SQLite's CURRENT_TIMESTAMP ("YYYY-MM-DD HH:MM:SS") is UTC without saying so.
  const iso = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text.replace(" ", "T")}Z` : text;
  const parsed = Date.parse(iso);
  return Number.isNaN(parsed) ? null : parsed;
}

const V1 = `
CREATE TABLE IF NOT EXISTS sessions (
  session_id TEXT PRIMARY KEY,
  parent_session_id TEXT,
  title TEXT,
  source TEXT,
  started_at TIMESTAMP,
  last_active TIMESTAMP,
  message_count INTEGER DEFAULT 0,
  prompt_tokens INTEGER DEFAULT 0,
  completion_tokens INTEGER DEFAULT 0,
  total_tokens INTEGER DEFAULT 0,
  estimated_cost REAL,
  actual_cost REAL
);
CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  session_id TEXT,
  role TEXT,
  content TEXT,
  tool_calls TEXT,
  tool_call_id TEXT,
  finish_reason TEXT,
  reasoning TEXT,
  created_at TIMESTAMP
);
`;

const V2_TABLES = `
CREATE TABLE sessions_v2 (
  id TEXT PRIMARY KEY,
  parent_session_id TEXT,
  title TEXT,
  source TEXT NOT NULL DEFAULT 'cli',
  model TEXT,
  started_at INTEGER NOT NULL,
  last_active INTEGER NOT NULL,
  ended_at INTEGER,
  message_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  total_tokens INTEGER NOT NULL DEFAULT 0,
  estimated_cost REAL,
  actual_cost REAL,
  system_prompt TEXT
);
CREATE TABLE messages_v2 (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  role TEXT NOT NULL,
  content TEXT,
  content_is_parts INTEGER NOT NULL DEFAULT 0,
  search_text TEXT,
  tool_calls TEXT,
  tool_call_id TEXT,
  tool_name TEXT,
  finish_reason TEXT,
  reasoning TEXT,
  reasoning_continuity TEXT,
  created_at INTEGER NOT NULL
);
INSERT INTO sessions_v2 (id, parent_session_id, title, source, started_at, last_active, message_count,
  prompt_tokens, completion_tokens, total_tokens, estimated_cost, actual_cost)
SELECT session_id, parent_session_id, title, COALESCE(source, 'cli'),
  COALESCE(hermes_epoch_ms(started_at), hermes_epoch_ms(last_active), 0),
  COALESCE(hermes_epoch_ms(last_active), hermes_epoch_ms(started_at), 0),
  COALESCE(message_count, 0), COALESCE(prompt_tokens, 0), COALESCE(completion_tokens, 0),
  COALESCE(total_tokens, 0), estimated_cost, actual_cost
FROM sessions WHERE session_id IS NOT NULL;
-- Messages whose session row is missing keep a session of their own rather than being dropped.
INSERT INTO sessions_v2 (id, source, started_at, last_active, message_count)
SELECT COALESCE(session_id, 'unknown'), 'cli', COALESCE(MIN(hermes_epoch_ms(created_at)), 0),
  COALESCE(MAX(hermes_epoch_ms(created_at)), 0), COUNT(*)
FROM messages WHERE COALESCE(session_id, 'unknown') NOT IN (SELECT id FROM sessions_v2)
GROUP BY COALESCE(session_id, 'unknown');
INSERT INTO messages_v2 (id, session_id, role, content, tool_calls, tool_call_id, finish_reason, reasoning, created_at)
SELECT id, COALESCE(session_id, 'unknown'), COALESCE(role, 'user'), content, tool_calls, tool_call_id,
  finish_reason, reasoning, COALESCE(hermes_epoch_ms(created_at), 0)
FROM messages;
DROP TABLE messages;
DROP TABLE sessions;
ALTER TABLE sessions_v2 RENAME TO sessions;
ALTER TABLE messages_v2 RENAME TO messages;
CREATE INDEX idx_messages_session ON messages(session_id, id);
CREATE INDEX idx_sessions_last_active ON sessions(last_active);
CREATE INDEX idx_sessions_source ON sessions(source, last_active);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
`;

const V2_SEARCH = `
CREATE VIEW messages_search AS SELECT m.id AS id, ${searchTextSql("m")} AS content FROM messages AS m;
CREATE VIRTUAL TABLE messages_fts USING fts5(
  content, content='messages_search', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${searchTextSql("new")});
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, ${searchTextSql("old")});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, content_is_parts, search_text ON messages BEGIN
  INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, ${searchTextSql("old")});
  INSERT INTO messages_fts(rowid, content) VALUES (new.id, ${searchTextSql("new")});
END;
INSERT INTO messages_fts(messages_fts) VALUES ('rebuild');
`;

function migrateToV2(db: SqliteDatabase): void {
  // Whatever search index and triggers the old layout had are rebuilt from scratch.
  const oldTriggers = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ('messages', 'sessions')")
    .pluck()
    .all() as string[];
  for (const name of oldTriggers) db.exec(`DROP TRIGGER IF EXISTS "${name.replace(/"/g, '""')}"`);
  db.exec("DROP TABLE IF EXISTS messages_fts; DROP VIEW IF EXISTS messages_search;");
  db.exec(V2_TABLES);
  db.exec(V2_SEARCH);
}

/** The API server's tables (src/state/api-store.ts). Every row carries its API key's namespace. */
const V3_API = `
CREATE TABLE api_responses (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  session_id TEXT NOT NULL,
  message_count INTEGER NOT NULL,
  previous_response_id TEXT,
  conversation TEXT,
  body TEXT,
  created_at INTEGER NOT NULL
);
CREATE INDEX idx_api_responses_conversation ON api_responses(namespace, conversation, created_at);
CREATE TABLE api_runs (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  status TEXT NOT NULL,
  session_id TEXT,
  input TEXT,
  output TEXT,
  error TEXT,
  usage TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE api_idempotency_keys (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  run_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE TABLE api_session_owners (
  session_id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL
);
CREATE INDEX idx_api_session_owners_namespace ON api_session_owners(namespace);
`;

/** The messaging gateway's tables (src/state/gateway-store.ts). */
const V4_GATEWAY = `
CREATE TABLE gateway_inbound (
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  session_key TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  payload TEXT,
  error TEXT,
  received_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (platform, chat_id, message_id)
);
CREATE INDEX idx_gateway_inbound_state ON gateway_inbound(state, received_at);
CREATE TABLE gateway_deliveries (
  id TEXT PRIMARY KEY,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  reply_to TEXT,
  session_key TEXT,
  body TEXT NOT NULL,
  idempotency_key TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  possible_duplicate INTEGER NOT NULL DEFAULT 0,
  platform_message_id TEXT,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX idx_gateway_deliveries_due ON gateway_deliveries(state, next_attempt_at);
CREATE TABLE gateway_pairing_requests (
  platform TEXT NOT NULL,
  code TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_name TEXT,
  chat_id TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (platform, code)
);
CREATE INDEX idx_gateway_pairing_user ON gateway_pairing_requests(platform, user_id, created_at);
CREATE TABLE gateway_approved_users (
  platform TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_name TEXT,
  is_admin INTEGER NOT NULL DEFAULT 0,
  approved_at INTEGER NOT NULL,
  PRIMARY KEY (platform, user_id)
);
CREATE TABLE gateway_session_routes (
  session_key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE gateway_home_channels (
  platform TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  set_at INTEGER NOT NULL
);
`;

/** Version 5: scheduled jobs, the record of every fire, and the ticker's lease. */
const V5_CRON = `
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  state TEXT NOT NULL,
  next_run_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  job TEXT NOT NULL
);
CREATE INDEX idx_cron_jobs_due ON cron_jobs(enabled, state, next_run_at);
CREATE TABLE cron_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  scheduled_for INTEGER,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  status TEXT NOT NULL,
  reason TEXT,
  output_path TEXT,
  deliveries TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX idx_cron_runs_job ON cron_runs(job_id, id);
CREATE INDEX idx_cron_runs_status ON cron_runs(status);
CREATE TABLE cron_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

/** Version 6: which sessions came from another store (the original's state.db), and how far. */
const V6_IMPORTS = `
CREATE TABLE import_marks (
  source TEXT NOT NULL,
  session_id TEXT NOT NULL,
  last_source_message_id INTEGER NOT NULL,
  imported_at INTEGER NOT NULL,
  PRIMARY KEY (source, session_id)
);
`;

/** Version 7: the Runs API lists a key's runs newest first. */
const V7_RUN_LISTING = "CREATE INDEX idx_api_runs_listing ON api_runs(namespace, created_at);";

/**
 * Version 8: a compaction in place archives the messages it condensed rather than moving the
 * conversation to a new session; archived messages stay searchable and exported.
 */
const V8_ARCHIVED_MESSAGES = "ALTER TABLE messages ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;";

const MIGRATIONS: ReadonlyArray<(db: SqliteDatabase) => void> = [
  (db) => db.exec(V1),
  migrateToV2,
  (db) => db.exec(V3_API),
  (db) => db.exec(V4_GATEWAY),
  (db) => db.exec(V5_CRON),
  (db) => db.exec(V6_IMPORTS),
  (db) => db.exec(V7_RUN_LISTING),
  (db) => db.exec(V8_ARCHIVED_MESSAGES),
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function currentVersion(db: SqliteDatabase): number {
  const has = (name: string) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (has("schema_version")) {
    return (db.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version").pluck().get() as number) ?? 0;
  }
  return has("sessions") ? 1 : 0;
}

/** Apply pending migrations. Call inside a write transaction with foreign keys off. */
export function migrate(db: SqliteDatabase, from: number): void {
  db.function("hermes_epoch_ms", { deterministic: true }, (value: unknown) => toEpochMs(value));
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const record = db.prepare("INSERT OR IGNORE INTO schema_version (version, applied_at) VALUES (?, ?)");
  if (from >= 1) record.run(1, Date.now());
  for (let version = from + 1; version <= SCHEMA_VERSION; version++) {
    MIGRATIONS[version - 1]!(db);
    record.run(version, Date.now());
  }
  // Marks the file as ours, so it is never taken for another program's database.
  db.pragma(`application_id = ${STORE_APPLICATION_ID}`);
}
