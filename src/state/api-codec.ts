/**
 * Rows of the API server's tables as both stores read and write them (sqlite-api-store.ts,
 * postgres/api-store.ts). A store passes how its text columns are stored: PostgreSQL escapes
 * what its text type cannot hold; the embedded store keeps text as it is.
 */
import type { ApiRunRecord, ApiRunStatus, IdempotencyRecord, StoredResponse } from "./api-store.js";

export interface ResponseRow {
  id: string;
  namespace: string;
  session_id: string;
  message_count: number;
  previous_response_id: string | null;
  conversation: string | null;
  body: string | null;
  created_at: number;
}

export interface RunRow {
  id: string;
  namespace: string;
  status: string;
  session_id: string | null;
  input: string | null;
  output: string | null;
  error: string | null;
  usage: string | null;
  created_at: number;
  updated_at: number;
}

export interface IdempotencyRow {
  namespace: string;
  key: string;
  body_hash: string;
  run_id: string;
  created_at: number;
}

export const RESPONSE_COLUMNS =
  "id, namespace, session_id, message_count, previous_response_id, conversation, body, created_at";
export const RUN_COLUMNS = "id, namespace, status, session_id, input, output, error, usage, created_at, updated_at";
export const KEY_COLUMNS = "namespace, key, body_hash, run_id, created_at";

export interface StoredText {
  encode<T extends string | null>(value: T): T;
  decode<T extends string | null>(value: T): T;
}

const AS_IS: StoredText = { encode: (value) => value, decode: (value) => value };

/** A non-negative whole number, or `fallback` when the value is absent or not finite. */
export function count(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : fallback;
}

export function apiCodec(text: StoredText = AS_IS) {
  const { decode } = text;
  /** JSON columns: null and undefined are SQL NULL, which reads back as null. */
  const toJson = (value: unknown): string | null => {
    if (value === undefined || value === null) return null;
    return text.encode(JSON.stringify(value) ?? null);
  };
  const fromJson = (stored: string | null): unknown => (stored === null ? null : JSON.parse(decode(stored)));
  return {
    toJson,
    fromJson,
    toResponse: (row: ResponseRow): StoredResponse => ({
      id: decode(row.id),
      namespace: decode(row.namespace),
      sessionId: decode(row.session_id),
      messageCount: row.message_count,
      previousResponseId: decode(row.previous_response_id),
      conversation: decode(row.conversation),
      body: fromJson(row.body),
      createdAt: row.created_at,
    }),
    toRun: (row: RunRow): ApiRunRecord => ({
      id: decode(row.id),
      namespace: decode(row.namespace),
      status: row.status as ApiRunStatus,
      sessionId: decode(row.session_id),
      input: fromJson(row.input),
      output: decode(row.output),
      error: decode(row.error),
      usage: fromJson(row.usage),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    }),
    toIdempotency: (row: IdempotencyRow): IdempotencyRecord => ({
      namespace: decode(row.namespace),
      key: decode(row.key),
      bodyHash: decode(row.body_hash),
      runId: decode(row.run_id),
      createdAt: row.created_at,
    }),
  };
}
