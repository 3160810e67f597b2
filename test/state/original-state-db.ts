/**
 * Builds a `state.db` in the layout the original Python Hermes writes (schema version 17, or an
 * older one with fewer columns), for the drop-in import tests.
 */
import assert from "node:assert/strict";
import type { ImportReport } from "../../src/state/import-hermes-python.js";
import type { SessionStore } from "../../src/state/session-store.js";
import { openSqliteDatabase } from "../../src/state/sqlite-driver.js";

const V17_SESSION_COLUMNS = `id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, session_key TEXT, chat_id TEXT,
  chat_type TEXT, thread_id TEXT, model TEXT, model_config TEXT, system_prompt TEXT, parent_session_id TEXT,
  started_at REAL NOT NULL, ended_at REAL, end_reason TEXT, message_count INTEGER DEFAULT 0,
  tool_call_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
  cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0, reasoning_tokens INTEGER DEFAULT 0,
  cwd TEXT, git_branch TEXT, git_repo_root TEXT, billing_provider TEXT, billing_base_url TEXT, billing_mode TEXT,
  estimated_cost_usd REAL, actual_cost_usd REAL, cost_status TEXT, cost_source TEXT, pricing_version TEXT,
  title TEXT, api_call_count INTEGER DEFAULT 0, handoff_state TEXT, handoff_platform TEXT, handoff_error TEXT,
  compression_failure_cooldown_until REAL, compression_failure_error TEXT, rewind_count INTEGER DEFAULT 0,
  archived INTEGER DEFAULT 0`;
const V17_MESSAGE_COLUMNS = `id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL, token_count INTEGER,
  finish_reason TEXT, reasoning TEXT, reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
  codex_message_items TEXT, platform_message_id TEXT, observed INTEGER DEFAULT 0, active INTEGER DEFAULT 1,
  compacted INTEGER DEFAULT 0`;
/** An early layout: no titles, costs, reasoning or rewind flags. */
const OLD_SESSION_COLUMNS = `id TEXT PRIMARY KEY, source TEXT NOT NULL, model TEXT, parent_session_id TEXT,
  started_at REAL NOT NULL, ended_at REAL, message_count INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0,
  output_tokens INTEGER DEFAULT 0`;
const OLD_MESSAGE_COLUMNS = `id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,
  content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT, timestamp REAL NOT NULL`;

export interface OriginalSession {
  id: string;
  parent?: string;
  title?: string;
  source?: string;
  startedAt: number;
  messages: Array<{
    role: string;
    content: string | null;
    toolCalls?: unknown[];
    toolCallId?: string;
    toolName?: string;
    reasoning?: string;
    active?: 0 | 1;
    /** With active 0: condensed by an in-place compaction, not rewound. */
    compacted?: 0 | 1;
  }>;
}

export function writeOriginalStateDb(path: string, sessions: OriginalSession[], version: 17 | 6 = 17): void {
  const db = openSqliteDatabase(path);
  const full = version === 17;
  db.pragma("journal_mode = WAL");
  db.exec(`CREATE TABLE schema_version (version INTEGER NOT NULL);
    INSERT INTO schema_version VALUES (${version});
    CREATE TABLE sessions (${full ? V17_SESSION_COLUMNS : OLD_SESSION_COLUMNS});
    CREATE TABLE messages (${full ? V17_MESSAGE_COLUMNS : OLD_MESSAGE_COLUMNS});
    CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);`);
  if (full) {
    db.exec(`CREATE TABLE state_meta (key TEXT PRIMARY KEY, value TEXT);
      CREATE VIRTUAL TABLE messages_fts_trigram USING fts5(content, content=messages, content_rowid=id, tokenize='trigram');`);
  }
  const insertSession = full
    ? db.prepare(
        `INSERT INTO sessions (id, source, parent_session_id, started_at, ended_at, title, input_tokens, output_tokens,
          cache_read_tokens, estimated_cost_usd, model) VALUES (?, ?, ?, ?, ?, ?, 120, 30, 7, 0.25, 'some-model')`,
      )
    : db.prepare(
        "INSERT INTO sessions (id, source, parent_session_id, started_at, ended_at, model, input_tokens, output_tokens) VALUES (?, ?, ?, ?, ?, 'some-model', 120, 30)",
      );
  const insertMessage = full
    ? db.prepare(
        `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, reasoning, active,
           compacted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
    : db.prepare(
        "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)",
      );
  db.transaction(() => {
    for (const session of sessions) {
      const ended = session.startedAt + session.messages.length;
      if (full) {
        insertSession.run(
          session.id,
          session.source ?? "cli",
          session.parent ?? null,
          session.startedAt,
          ended,
          session.title ?? null,
        );
      } else {
        insertSession.run(session.id, session.source ?? "cli", session.parent ?? null, session.startedAt, ended);
      }
      session.messages.forEach((m, i) => {
        const common = [
          session.id,
          m.role,
          m.content,
          m.toolCallId ?? null,
          m.toolCalls ? JSON.stringify(m.toolCalls) : null,
          m.toolName ?? null,
          session.startedAt + i * 0.5,
        ];
        if (full) insertMessage.run(...common, m.reasoning ?? null, m.active ?? 1, m.compacted ?? 0);
        else insertMessage.run(...common);
      });
    }
  })();
  db.close();
}

/** Adds messages to a session of an existing original database (the original went on with it). */
export function appendOriginalMessages(path: string, sessionId: string, texts: string[]): void {
  const db = openSqliteDatabase(path);
  const insert = db.prepare("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)");
  for (const [i, text] of texts.entries()) insert.run(sessionId, text, 2_000_000_000 + i);
  db.close();
}

/** A session of the original with a tool call, its result, reasoning and a rewound message; `question` opens it. */
export function zeppelinSession(question: string): OriginalSession {
  return {
    id: "20250301_101500_a1b2c3",
    title: "Fixing the zeppelin build",
    source: "telegram",
    startedAt: 1_740_824_100,
    messages: [
      { role: "user", content: question },
      {
        role: "assistant",
        content: null,
        reasoning: "Look at the log first.",
        toolCalls: [
          { id: "call_1", type: "function", function: { name: "terminal", arguments: '{"command":"make"}' } },
        ],
      },
      { role: "tool", content: "make: *** [all] Error 2", toolCallId: "call_1", toolName: "terminal" },
      { role: "assistant", content: "The Makefile target is missing." },
      { role: "user", content: "an exchange the user rewound", active: 0 },
    ],
  };
}

const COMPACTED_ID = "20250302_090000_c0ffee";

/** A session the original compacted in place: two archived messages, one rewound, the compacted conversation. */
export function compactedSession(): OriginalSession {
  return {
    id: COMPACTED_ID,
    startedAt: 1_740_906_000,
    messages: [
      { role: "user", content: "plan the narwhal migration", active: 0, compacted: 1 },
      { role: "assistant", content: "step one: back up", active: 0, compacted: 1 },
      { role: "user", content: "a question the user rewound", active: 0 },
      { role: "user", content: "[summary] the narwhal migration was planned" },
      { role: "assistant", content: "Continuing." },
    ],
  };
}

/** What an import of `compactedSession()` alone must give: archived messages kept, searchable and exported. */
export async function assertCompactedImport(store: SessionStore, report: ImportReport): Promise<void> {
  assert.deepEqual(report.messages, { inSource: 5, added: 4, rewound: 1, alreadyImported: 0 });
  assert.deepEqual(report.mismatches, []);
  assert.deepEqual(
    (await store.getMessages(COMPACTED_ID)).map((m) => m.content),
    ["[summary] the narwhal migration was planned", "Continuing."],
  );
  assert.deepEqual(
    (await store.exportSession(COMPACTED_ID)).messages.map((m) => [m.content, Boolean(m.archived)]),
    [
      ["plan the narwhal migration", true],
      ["step one: back up", true],
      ["[summary] the narwhal migration was planned", false],
      ["Continuing.", false],
    ],
  );
  assert.ok(
    (await store.search("back up")).some((hit) => hit.sessionId === COMPACTED_ID),
    "archived messages are searchable",
  );
}
