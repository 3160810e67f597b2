/**
 * The API server's durable tables: stored Responses, run records, idempotency keys, and which
 * API key owns which session. Every record carries the `namespace` of the API key that made it,
 * and every read takes one, so a key never sees another key's data. Nothing outside src/state
 * issues SQL; the embedded SQLite implementation lives beside the session store in state.db.
 */

import { isPostgresUrl } from "./postgres/url.js";

/** A Responses API object kept for `GET /v1/responses/{id}` and `previous_response_id`. */
export interface StoredResponse {
  /** `resp_...` */
  id: string;
  namespace: string;
  /** The session that holds the conversation up to and including this response. */
  sessionId: string;
  /** Messages in that session (system prompt aside) once this response was complete. */
  messageCount: number;
  previousResponseId: string | null;
  /** The named conversation (`conversation` in the request), if any. */
  conversation: string | null;
  /** The Response object exactly as it was returned to the client. */
  body: unknown;
  /** Epoch milliseconds. */
  createdAt: number;
}

export type ApiRunStatus = "queued" | "running" | "completed" | "failed" | "cancelled" | "interrupted";

export interface ApiRunRecord {
  /** `run_...` */
  id: string;
  namespace: string;
  status: ApiRunStatus;
  sessionId: string | null;
  /** The request body that started the run. */
  input: unknown;
  /** The final answer, once there is one. */
  output: string | null;
  error: string | null;
  /** Token counts of the run, once finished. */
  usage: unknown;
  createdAt: number;
  updatedAt: number;
}

export interface ApiRunPatch {
  status?: ApiRunStatus;
  sessionId?: string | null;
  output?: string | null;
  error?: string | null;
  usage?: unknown;
}

export interface IdempotencyRecord {
  namespace: string;
  key: string;
  /** A hash of the request body the key was first used with. */
  bodyHash: string;
  runId: string;
  createdAt: number;
}

/** Which runs `listRuns` returns: newest first, `limit` of them after skipping `offset`. */
export interface ListRunsOptions {
  sessionId?: string;
  status?: ApiRunStatus;
  limit: number;
  offset: number;
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface ApiServerStore {
  saveResponse(response: StoredResponse): Promise<void>;
  getResponse(namespace: string, id: string): Promise<StoredResponse | null>;
  /** False when there was no such response in this namespace. */
  deleteResponse(namespace: string, id: string): Promise<boolean>;
  /** The newest response of a named conversation. */
  latestInConversation(namespace: string, conversation: string): Promise<StoredResponse | null>;

  createRun(run: ApiRunRecord): Promise<void>;
  /** Throws when the run does not exist. Sets `updatedAt` to now. */
  updateRun(id: string, patch: ApiRunPatch): Promise<ApiRunRecord>;
  getRun(namespace: string, id: string): Promise<ApiRunRecord | null>;
  /** The namespace's runs, newest first (by creation; the same millisecond: the later made first where the store knows). */
  listRuns(namespace: string, options: ListRunsOptions): Promise<ApiRunRecord[]>;
  /**
   * After a restart: every run still `queued` or `running` becomes `interrupted` with `error`.
   * Returns how many.
   */
  interruptUnfinishedRuns(error: string): Promise<number>;

  /**
   * Atomically claim `key` for a new run. A key already held (and younger than `ttlMs`) is
   * returned instead; an expired one is replaced by the new claim.
   */
  claimIdempotencyKey(record: IdempotencyRecord, ttlMs: number): Promise<IdempotencyClaim>;
  /** Deletes keys created before `before` (epoch ms). Returns how many. */
  pruneIdempotencyKeys(before: number): Promise<number>;

  setSessionOwner(sessionId: string, namespace: string): Promise<void>;
  /** The namespace that created the session through the API, or null. */
  sessionOwner(sessionId: string): Promise<string | null>;
  /** Ids of the sessions this namespace owns, most recently active first. */
  sessionsOwnedBy(namespace: string, options?: { limit?: number; offset?: number }): Promise<string[]>;

  close(): void;
}

/**
 * Open the embedded store in the state.db at `path`, or PostgreSQL for a `postgres://` URL. Each
 * driver loads lazily.
 */
export async function openApiServerStore(path: string): Promise<ApiServerStore> {
  if (isPostgresUrl(path)) {
    const { PgApiServerStore } = await import("./postgres/api-store.js");
    return PgApiServerStore.open(path);
  }
  const { SqliteApiServerStore } = await import("./sqlite-api-store.js");
  return SqliteApiServerStore.open(path);
}
