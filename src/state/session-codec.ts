/**
 * Conversions between session-store rows and the public record and message shapes, and the
 * validation of exported session files before they are imported.
 */
import { z } from "../util/schema/index.js";
import type {
  ExportedMessage,
  SessionExport,
  SessionPatch,
  SessionRecord,
  SessionSummary,
  StoredContentPart,
  StoredMessage,
} from "./session-store.js";

/** The session columns a patch may set, by field. */
export const PATCH_COLUMNS: Record<keyof SessionPatch, string> = {
  title: "title",
  model: "model",
  parentSessionId: "parent_session_id",
  endedAt: "ended_at",
  systemPrompt: "system_prompt",
  promptTokens: "prompt_tokens",
  completionTokens: "completion_tokens",
  cacheReadTokens: "cache_read_tokens",
  cacheWriteTokens: "cache_write_tokens",
  totalTokens: "total_tokens",
  estimatedCost: "estimated_cost",
};

/** A session's summary columns, read through the alias `s`. */
export const SUMMARY_COLUMNS = `s.id, s.parent_session_id, s.title, s.source, s.model, s.started_at, s.last_active,
  s.ended_at, s.message_count, s.prompt_tokens, s.completion_tokens, s.cache_read_tokens, s.cache_write_tokens,
  s.total_tokens, s.estimated_cost`;

export interface SessionRow {
  id: string;
  parent_session_id: string | null;
  title: string | null;
  source: string;
  model: string | null;
  started_at: number;
  last_active: number;
  ended_at: number | null;
  message_count: number;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  estimated_cost: number | null;
  system_prompt?: string | null;
  preview?: string | null;
}

export interface MessageRow {
  id: number;
  session_id: string;
  role: string;
  content: string | null;
  content_is_parts: number;
  search_text: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  finish_reason: string | null;
  reasoning: string | null;
  reasoning_continuity: string | null;
  created_at: number;
  /** 1 once a compaction in place condensed the message: kept and searchable, no longer the conversation. */
  archived: number;
}

export type MessageInsert = Omit<MessageRow, "id">;

export function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    parentSessionId: row.parent_session_id,
    title: row.title,
    source: row.source,
    model: row.model,
    startedAt: row.started_at,
    lastActive: row.last_active,
    endedAt: row.ended_at,
    messageCount: row.message_count,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    totalTokens: row.total_tokens,
    estimatedCost: row.estimated_cost,
    preview: row.preview ?? null,
  };
}

export function toRecord(row: SessionRow): SessionRecord {
  const { preview: _preview, ...summary } = toSummary(row);
  return { ...summary, systemPrompt: row.system_prompt ?? null };
}

export function toMessageInsert(
  sessionId: string,
  message: StoredMessage,
  createdAt: number,
  archived = false,
): MessageInsert {
  const parts = Array.isArray(message.content);
  return {
    session_id: sessionId,
    role: message.role,
    content: parts ? JSON.stringify(message.content) : (message.content as string | null),
    content_is_parts: parts ? 1 : 0,
    search_text: parts ? partsText(message.content as StoredContentPart[]) : null,
    tool_calls: message.tool_calls ? JSON.stringify(message.tool_calls) : null,
    tool_call_id: message.tool_call_id ?? null,
    tool_name: message.name ?? null,
    finish_reason: message.finish_reason ?? null,
    reasoning: message.reasoning ?? null,
    reasoning_continuity: message.reasoningContinuity ? JSON.stringify(message.reasoningContinuity) : null,
    created_at: createdAt,
    archived: archived ? 1 : 0,
  };
}

function partsText(parts: readonly StoredContentPart[]): string {
  return parts
    .filter((part): part is Extract<StoredContentPart, { type: "text" }> => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function toMessage(row: MessageRow): StoredMessage {
  let content: StoredMessage["content"] = row.content;
  if (row.content_is_parts === 1 && row.content !== null) {
    const parts = parseJson(row.content);
    if (Array.isArray(parts)) content = parts as StoredMessage["content"];
  }
  const message: StoredMessage = { role: row.role as StoredMessage["role"], content };
  if (row.tool_calls) {
    const calls = parseJson(row.tool_calls);
    if (Array.isArray(calls) && calls.length > 0) message.tool_calls = calls as StoredMessage["tool_calls"];
  }
  if (row.tool_call_id !== null) message.tool_call_id = row.tool_call_id;
  if (row.tool_name !== null) message.name = row.tool_name;
  if (row.reasoning !== null) message.reasoning = row.reasoning;
  if (row.reasoning_continuity) {
    const continuity = parseJson(row.reasoning_continuity);
    if (continuity && typeof continuity === "object") {
      message.reasoningContinuity = continuity as StoredMessage["reasoningContinuity"];
    }
  }
  if (row.finish_reason !== null) message.finish_reason = row.finish_reason as StoredMessage["finish_reason"];
  return message;
}

export function toExportedMessage(row: MessageRow): ExportedMessage {
  return { ...toMessage(row), createdAt: row.created_at, ...(row.archived === 1 ? { archived: true } : {}) };
}

const nullableString = z.string().nullable();
const count = z.number().int().min(0);

const exportedMessage = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]),
  tool_calls: z
    .array(
      z.looseObject({
        id: z.string(),
        type: z.literal("function"),
        function: z.object({ name: z.string(), arguments: z.string() }),
      }),
    )
    .optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
  reasoning: z.string().optional(),
  reasoningContinuity: z.looseObject({}).optional(),
  finish_reason: z.enum(["stop", "tool_calls", "length", "content_filter"]).optional(),
  createdAt: z.number(),
  archived: z.boolean().optional(),
});

const sessionExportSchema = z.object({
  format: z.literal("hermes-session"),
  version: z.literal(1),
  session: z.object({
    id: z.string().min(1),
    parentSessionId: nullableString,
    title: nullableString,
    source: z.string(),
    model: nullableString,
    startedAt: z.number(),
    lastActive: z.number(),
    endedAt: z.number().nullable(),
    messageCount: count,
    promptTokens: count,
    completionTokens: count,
    cacheReadTokens: count,
    cacheWriteTokens: count,
    totalTokens: count,
    estimatedCost: z.number().nullable(),
    systemPrompt: nullableString,
  }),
  messages: z.array(exportedMessage),
});

/** Validate an exported session file. Returns a readable reason when it is not one. */
export function parseSessionExport(data: unknown): SessionExport | string {
  const result = sessionExportSchema.safeParse(data);
  if (result.success) return result.data as SessionExport;
  const issue = result.error.issues[0]!;
  const where = issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
  return `not a hermes session export${where}: ${issue.message}`;
}
