/**
 * The PostgreSQL schema: the same tables and columns as the embedded store (sqlite-schema.ts),
 * so rows move between them unchanged, with PostgreSQL's own search: a generated `tsvector`
 * over each message's searchable text with a GIN index, and a trigram index for substring search.
 * Migrations are ordered and recorded in schema_version; the runner holds an advisory lock so
 * replicas starting together apply each one once.
 */

const V1_SESSIONS = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  parent_session_id TEXT,
  title TEXT,
  source TEXT NOT NULL DEFAULT 'cli',
  model TEXT,
  started_at BIGINT NOT NULL,
  last_active BIGINT NOT NULL,
  ended_at BIGINT,
  message_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens BIGINT NOT NULL DEFAULT 0,
  completion_tokens BIGINT NOT NULL DEFAULT 0,
  cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0,
  total_tokens BIGINT NOT NULL DEFAULT 0,
  estimated_cost DOUBLE PRECISION,
  actual_cost DOUBLE PRECISION,
  system_prompt TEXT
);
CREATE INDEX idx_sessions_last_active ON sessions(last_active);
CREATE INDEX idx_sessions_source ON sessions(source, last_active);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE TABLE messages (
  id BIGSERIAL PRIMARY KEY,
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
  created_at BIGINT NOT NULL,
  searchable TEXT GENERATED ALWAYS AS (
    CASE WHEN content_is_parts = 1 THEN COALESCE(search_text, '') ELSE COALESCE(content, '') END
  ) STORED,
  search_vector TSVECTOR GENERATED ALWAYS AS (to_tsvector('english',
    CASE WHEN content_is_parts = 1 THEN COALESCE(search_text, '') ELSE COALESCE(content, '') END
  )) STORED
);
CREATE INDEX idx_messages_session ON messages(session_id, id);
CREATE INDEX idx_messages_search ON messages USING GIN (search_vector);
CREATE INDEX idx_messages_trigram ON messages USING GIN (searchable gin_trgm_ops);
`;

const V2_API = `
CREATE TABLE api_responses (
  id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL,
  session_id TEXT NOT NULL,
  message_count INTEGER NOT NULL,
  previous_response_id TEXT,
  conversation TEXT,
  body TEXT,
  created_at BIGINT NOT NULL
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
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE api_idempotency_keys (
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  body_hash TEXT NOT NULL,
  run_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (namespace, key)
);
CREATE TABLE api_session_owners (
  session_id TEXT PRIMARY KEY,
  namespace TEXT NOT NULL
);
CREATE INDEX idx_api_session_owners_namespace ON api_session_owners(namespace);
`;

const V3_GATEWAY = `
CREATE TABLE gateway_inbound (
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  session_key TEXT NOT NULL,
  state TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  payload TEXT,
  error TEXT,
  received_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
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
  next_attempt_at BIGINT NOT NULL,
  possible_duplicate INTEGER NOT NULL DEFAULT 0,
  platform_message_id TEXT,
  last_error TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX idx_gateway_deliveries_due ON gateway_deliveries(state, next_attempt_at);
CREATE TABLE gateway_pairing_requests (
  platform TEXT NOT NULL,
  code TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_name TEXT,
  chat_id TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (platform, code)
);
CREATE INDEX idx_gateway_pairing_user ON gateway_pairing_requests(platform, user_id, created_at);
CREATE TABLE gateway_approved_users (
  platform TEXT NOT NULL,
  user_id TEXT NOT NULL,
  user_name TEXT,
  is_admin INTEGER NOT NULL DEFAULT 0,
  approved_at BIGINT NOT NULL,
  PRIMARY KEY (platform, user_id)
);
CREATE TABLE gateway_session_routes (
  session_key TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  platform TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE TABLE gateway_home_channels (
  platform TEXT PRIMARY KEY,
  chat_id TEXT NOT NULL,
  thread_id TEXT,
  set_at BIGINT NOT NULL
);
`;

const V4_CRON = `
CREATE TABLE cron_jobs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  state TEXT NOT NULL,
  next_run_at BIGINT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  job TEXT NOT NULL
);
CREATE INDEX idx_cron_jobs_due ON cron_jobs(enabled, state, next_run_at);
CREATE TABLE cron_runs (
  id BIGSERIAL PRIMARY KEY,
  job_id TEXT NOT NULL,
  scheduled_for BIGINT,
  started_at BIGINT NOT NULL,
  finished_at BIGINT,
  status TEXT NOT NULL,
  reason TEXT,
  output_path TEXT,
  deliveries TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX idx_cron_runs_job ON cron_runs(job_id, id);
CREATE INDEX idx_cron_runs_status ON cron_runs(status);
-- One fire per job and due time, whichever replica claims it first.
CREATE UNIQUE INDEX idx_cron_runs_once ON cron_runs(job_id, scheduled_for) WHERE scheduled_for IS NOT NULL;
CREATE TABLE cron_leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
`;

const V5_IMPORTS = `
CREATE TABLE import_marks (
  source TEXT NOT NULL,
  session_id TEXT NOT NULL,
  last_source_message_id BIGINT NOT NULL,
  imported_at BIGINT NOT NULL,
  PRIMARY KEY (source, session_id)
);
`;

/** Replicas: which replica runs a session's turn, until when (coordination.ts). */
const V6_LEASES = `
CREATE TABLE gateway_session_leases (
  session_key TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
`;

/**
 * The order in which stored Responses were first saved, which SQLite has as the rowid: the latest
 * of a conversation among responses of the same millisecond is the one saved last. Existing rows
 * are numbered in table order.
 */
const V7_API_RESPONSE_ORDER = `
ALTER TABLE api_responses ADD COLUMN seq BIGSERIAL;
`;

/**
 * The order in which inbound messages and deliveries were recorded, which SQLite has as the rowid:
 * "oldest first" and "in the order they were recorded" among rows of the same millisecond. Existing
 * rows are numbered in table order; copy-from-sqlite.ts inserts rows in rowid order, so copied rows
 * keep their order.
 */
const V8_GATEWAY_ORDER = `
ALTER TABLE gateway_inbound ADD COLUMN seq BIGSERIAL;
ALTER TABLE gateway_deliveries ADD COLUMN seq BIGSERIAL;
`;

/** The Runs API lists a key's runs newest first. */
const V9_RUN_LISTING = "CREATE INDEX idx_api_runs_listing ON api_runs(namespace, created_at);";

/** Messages a compaction in place condensed are archived: kept, searchable, no longer the conversation. */
const V10_ARCHIVED_MESSAGES = "ALTER TABLE messages ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;";

export const PG_MIGRATIONS: readonly string[] = [
  V1_SESSIONS,
  V2_API,
  V3_GATEWAY,
  V4_CRON,
  V5_IMPORTS,
  V6_LEASES,
  V7_API_RESPONSE_ORDER,
  V8_GATEWAY_ORDER,
  V9_RUN_LISTING,
  V10_ARCHIVED_MESSAGES,
];
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
