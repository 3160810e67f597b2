/**
 * The session store contract: everything the agent and the surfaces need to persist and
 * find conversations. Nothing outside src/state issues SQL; a server-backed implementation
 * can replace the embedded SQLite one behind this interface.
 */

// Structural twins of the internal history types in src/llm/types.ts (state may not import
// llm). A test checks that both directions stay assignable.
export type StoredRole = "system" | "user" | "assistant" | "tool";

export type StoredContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } };

export interface StoredToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  responseItemId?: string;
}

export interface StoredReasoningContinuity {
  anthropicThinking?: Array<
    { type: "thinking"; thinking: string; signature?: string } | { type: "redacted_thinking"; data: string }
  >;
  openrouterDetails?: unknown[];
  responsesItems?: unknown[];
}

export type StoredFinishReason = "stop" | "tool_calls" | "length" | "content_filter";

export interface StoredMessage {
  role: StoredRole;
  content: string | StoredContentPart[] | null;
  tool_calls?: StoredToolCall[];
  tool_call_id?: string;
  name?: string;
  reasoning?: string;
  reasoningContinuity?: StoredReasoningContinuity;
  finish_reason?: StoredFinishReason;
}

/** Times are epoch milliseconds. */
export interface SessionRecord {
  id: string;
  parentSessionId: string | null;
  title: string | null;
  /** Where the session came from: "cli", "telegram", "api_server", "cron", ... */
  source: string;
  model: string | null;
  startedAt: number;
  lastActive: number;
  endedAt: number | null;
  messageCount: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  estimatedCost: number | null;
  /** The exact system prompt the session runs with, reused byte for byte on resume. */
  systemPrompt: string | null;
}

export interface SessionSummary extends Omit<SessionRecord, "systemPrompt"> {
  /** Start of the first user message, for listings. */
  preview: string | null;
}

export interface NewSession {
  id?: string;
  source?: string;
  model?: string | null;
  title?: string | null;
  parentSessionId?: string | null;
  systemPrompt?: string | null;
  startedAt?: number;
}

export interface SessionPatch {
  title?: string | null;
  model?: string | null;
  parentSessionId?: string | null;
  endedAt?: number | null;
  systemPrompt?: string | null;
  promptTokens?: number;
  completionTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  totalTokens?: number;
  estimatedCost?: number | null;
}

/** Counters added to a session's totals (one API call's usage). */
export interface UsageDelta {
  promptTokens?: number;
  completionTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  totalTokens?: number;
  estimatedCost?: number;
}

export interface ListSessionsOptions {
  limit?: number;
  source?: string;
  /** Only sessions active at or after this time (epoch ms). */
  since?: number;
}

export interface SearchOptions {
  limit?: number;
  source?: string;
  role?: StoredRole;
  /** Markers placed around matched terms in the snippet. Default `**`, `**`. */
  highlight?: [string, string];
}

export interface SearchHit {
  messageId: number;
  sessionId: string;
  role: StoredRole;
  snippet: string;
  /** bm25 score: lower is a better match. */
  rank: number;
  createdAt: number;
  sessionTitle: string | null;
  sessionSource: string;
}

export interface SessionStats {
  sessions: number;
  messages: number;
  bySource: Record<string, number>;
  totalTokens: number;
  /** Sum of the sessions whose cost is known; null when none is. */
  estimatedCost: number | null;
  /** Sessions whose cost is unknown (a model with no price), left out of estimatedCost. */
  unpricedSessions: number;
  oldestActivity: number | null;
  newestActivity: number | null;
  /** Size of the store on disk (database plus write-ahead log), when it has one. */
  bytes: number | null;
}

export interface ExportedMessage extends StoredMessage {
  createdAt: number;
  /** A message a compaction in place condensed: kept, no longer part of the conversation. */
  archived?: boolean;
}

export interface SessionExport {
  format: "hermes-session";
  version: 1;
  session: SessionRecord;
  messages: ExportedMessage[];
}

export interface PruneOptions {
  /** Sessions whose last activity is older than this many days (0 or more). */
  olderThanDays: number;
  source?: string;
  /** Count what would go, delete nothing. */
  dryRun?: boolean;
  /** The time ages are measured from (epoch ms; default now), so a count and a prune agree. */
  now?: number;
}

export interface PruneResult {
  sessions: number;
  messages: number;
}

export interface StoreRepairReport {
  /** What `PRAGMA integrity_check` found before the repair; empty when nothing. */
  problemsBefore: string[];
  /** What is still wrong after it: damage beyond repair (restore a backup). Empty when healthy. */
  problemsAfter: string[];
  /** Whether the ordinary indexes were rebuilt from their tables (done when the check found problems). */
  indexesRebuilt: boolean;
  /** Whether the full-text index disagreed with the messages before it was rebuilt. */
  searchIndexStale: boolean;
  /** Messages in the rebuilt index. */
  messagesIndexed: number;
  /** Sessions whose stored message count was wrong and was recounted. */
  messageCountsFixed: number;
}

export interface SessionStore {
  /** Where the data lives (a file path for the embedded store). */
  readonly location: string;
  createSession(init?: NewSession): Promise<SessionRecord>;
  getSession(id: string): Promise<SessionRecord | null>;
  listSessions(options?: ListSessionsOptions): Promise<SessionSummary[]>;
  updateSession(id: string, patch: SessionPatch): Promise<SessionRecord>;
  recordUsage(id: string, delta: UsageDelta): Promise<void>;
  rename(id: string, title: string): Promise<void>;
  /** Deletes the session and its messages. False when it did not exist. */
  deleteSession(id: string): Promise<boolean>;
  /** Appends one message, committed before the promise resolves. Returns the message id. */
  appendMessage(sessionId: string, message: StoredMessage): Promise<number>;
  /** Appends several messages in one transaction. Returns their ids in order. */
  appendMessages(sessionId: string, messages: readonly StoredMessage[]): Promise<number[]>;
  /** The conversation: the session's messages in order, without those a compaction archived. */
  getMessages(sessionId: string): Promise<StoredMessage[]>;
  /**
   * Compacts the conversation in place, in one transaction: the session's current messages are
   * archived (kept, found by search, exported, no longer returned by `getMessages`) and
   * `messages` become the conversation under the same id, with `systemPrompt` as its prompt.
   */
  compactInPlace(sessionId: string, systemPrompt: string, messages: readonly StoredMessage[]): Promise<void>;
  /**
   * Keeps the first `keep` messages of the conversation (system messages and archived ones
   * aside) and deletes the rest, e.g. after /undo. Returns how many were deleted.
   */
  truncateMessages(sessionId: string, keep: number): Promise<number>;
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** Deletes sessions whose last activity is older than the given age. Returns how many. */
  prune(options: { olderThanDays: number; source?: string }): Promise<number>;
  /** Like `prune`, in one transaction, counting the messages that went too (or would, with `dryRun`). */
  pruneSessions(options: PruneOptions): Promise<PruneResult>;
  /** Gives the space of deleted rows back to the file system (SQLite's VACUUM); absent where the server does it. */
  compact?(): Promise<void>;
  /**
   * Runs SQLite's integrity check, then in one transaction rebuilds damaged indexes (when it found
   * problems) and the search index, and recounts each session's messages.
   */
  repair(): Promise<StoreRepairReport>;
  stats(): Promise<SessionStats>;
  exportSession(id: string): Promise<SessionExport>;
  /** Imports an exported session. Refuses an id that exists unless `replace` is set. */
  importSession(data: unknown, options?: { replace?: boolean }): Promise<SessionRecord>;
  close(): void;
}

export class SessionStoreError extends Error {
  readonly exitCode = 1;
  override name = "SessionStoreError";
  constructor(
    message: string,
    readonly location: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface OpenSessionStoreOptions {
  /** Give up waiting for another writer after this long (ms). Default 10 000. */
  lockTimeoutMs?: number;
}

/**
 * Open the store at `path`: the embedded one in a state.db file (normally `hermesPaths().stateDb`), or
 * PostgreSQL for a `postgres://` URL (see store-target.ts). Each driver loads only when used.
 */
export async function openSessionStore(path: string, options: OpenSessionStoreOptions = {}): Promise<SessionStore> {
  if (/^postgres(ql)?:\/\//i.test(path)) {
    const { PgSessionStore } = await import("./postgres/session-store.js");
    return PgSessionStore.open(path);
  }
  const { SqliteSessionStore } = await import("./sqlite-session-store.js");
  return SqliteSessionStore.open(path, options);
}
