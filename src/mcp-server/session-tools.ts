/**
 * The session store as MCP tools: list recent sessions, search their messages, read one
 * session page by page. Everything read is redacted and capped like tool output.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SessionStore, SessionSummary, StoredMessage } from "../state/session-store.js";
import { capResult } from "../tools/registry.js";
import { z } from "../util/schema/index.js";
import { dataResult, toolError } from "./results.js";
import { type ServerTool, serverTool } from "./server-tool.js";

const MESSAGE_CHARS = 10_000;
const ARGUMENT_CHARS = 2_000;
export const SESSION_ID = z.string().min(1).max(200);

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

function sessionSummary(session: Omit<SessionSummary, "preview"> & { preview?: string | null }) {
  return {
    id: session.id,
    title: session.title,
    source: session.source,
    started_at: iso(session.startedAt),
    last_active: iso(session.lastActive),
    message_count: session.messageCount,
    ...(session.preview !== undefined ? { preview: session.preview } : {}),
  };
}

function contentText(content: StoredMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "[image]")).join("\n");
}

function messageView(message: StoredMessage, index: number) {
  return {
    index,
    role: message.role,
    content: capResult(contentText(message.content), MESSAGE_CHARS),
    ...(message.tool_calls?.length
      ? {
          tool_calls: message.tool_calls.map((call) => ({
            id: call.id,
            name: call.function.name,
            arguments: capResult(call.function.arguments, ARGUMENT_CHARS),
          })),
        }
      : {}),
    ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
  };
}

export function noSuchSession(id: string): CallToolResult {
  return toolError(`No session with id "${id}". Find ids with sessions_list or sessions_search.`);
}

export function sessionTools(store: SessionStore): ServerTool[] {
  const list = serverTool({
    name: "sessions_list",
    description:
      "List recent Hermes sessions, most recently active first: id, title, source (cli, telegram, mcp, ...), start and last activity time, message count and a preview of the first message.",
    parameters: z.object({
      limit: z.number().int().min(1).max(100).optional().describe("How many sessions (default 20, at most 100)"),
      source: z.string().min(1).max(64).optional().describe("Only sessions from this source, e.g. cli or mcp"),
    }),
    run: async (args) => {
      const sessions = await store.listSessions({
        limit: args.limit ?? 20,
        ...(args.source ? { source: args.source } : {}),
      });
      return dataResult({ sessions: sessions.map(sessionSummary) });
    },
  });

  const search = serverTool({
    name: "sessions_search",
    description:
      "Full-text search over the messages of every stored session. Returns matching snippets with their session id, title, source and time; read a whole session with session_read.",
    parameters: z.object({
      query: z.string().min(1).max(500).describe("Words to look for"),
      limit: z.number().int().min(1).max(50).optional().describe("How many matches (default 10, at most 50)"),
      source: z.string().min(1).max(64).optional().describe("Only sessions from this source"),
    }),
    run: async (args) => {
      const hits = await store.search(args.query, {
        limit: args.limit ?? 10,
        ...(args.source ? { source: args.source } : {}),
      });
      return dataResult({
        matches: hits.map((hit) => ({
          session_id: hit.sessionId,
          session_title: hit.sessionTitle,
          source: hit.sessionSource,
          role: hit.role,
          snippet: hit.snippet,
          at: iso(hit.createdAt),
        })),
      });
    },
  });

  const read = serverTool({
    name: "session_read",
    description:
      "Read the messages of one session in order, a page at a time. Long messages are shortened in the middle; the result says where the next page starts.",
    parameters: z.object({
      session_id: SESSION_ID.describe("The session's id (from sessions_list or sessions_search)"),
      offset: z.number().int().min(0).optional().describe("Index of the first message to return (default 0)"),
      limit: z.number().int().min(1).max(200).optional().describe("How many messages (default 50, at most 200)"),
    }),
    run: async (args) => {
      const session = await store.getSession(args.session_id);
      if (!session) return noSuchSession(args.session_id);
      const messages = (await store.getMessages(args.session_id)).filter((m) => m.role !== "system");
      const offset = args.offset ?? 0;
      const page = messages.slice(offset, offset + (args.limit ?? 50));
      const next = offset + page.length;
      return dataResult({
        session: sessionSummary(session),
        total_messages: messages.length,
        offset,
        messages: page.map((message, i) => messageView(message, offset + i)),
        next_offset: next < messages.length ? next : null,
      });
    },
  });

  return [list, search, read];
}
