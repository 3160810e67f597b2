/** The `session_search` tool: recall earlier conversations through the agent's session store. */
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

export const SESSION_SEARCH_DEFAULT_LIMIT = 3;
export const SESSION_SEARCH_MAX_LIMIT = 5;
const SNIPPET_MAX_CHARS = 1500;

/** The search function the agent passes as `ctx.services.sessionSearch`. */
export type SessionSearchFn = (query: string, limit: number) => unknown[] | Promise<unknown[]>;

export const sessionSearchParameters = z.object({
  query: z.string().describe("Words to find (full-text)"),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SESSION_SEARCH_MAX_LIMIT)
    .optional()
    .describe(`How many sessions to return (default ${SESSION_SEARCH_DEFAULT_LIMIT})`),
});

export type SessionSearchArgs = z.infer<typeof sessionSearchParameters>;

function pick(hit: Record<string, unknown>, ...keys: string[]): unknown {
  for (const key of keys) {
    const value = hit[key];
    if (value !== undefined && value !== null && value !== "") return value;
  }
  return undefined;
}

/** Seconds or milliseconds since the epoch, or a date string, as an ISO timestamp. */
function toIso(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isFinite(value)) {
    return new Date(value < 1e12 ? value * 1000 : value).toISOString();
  }
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

function shorten(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  return text.length > SNIPPET_MAX_CHARS ? `${text.slice(0, SNIPPET_MAX_CHARS)}…` : text;
}

/** Present one hit with the same field names whatever shape the store returned. */
export function formatSessionHit(raw: unknown): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null) return { text: shorten(String(raw)) };
  const hit = raw as Record<string, unknown>;
  const formatted: Record<string, unknown> = {
    session_id: pick(hit, "sessionId", "session_id", "id"),
    title: pick(hit, "title"),
    source: pick(hit, "source", "platform"),
    when: toIso(pick(hit, "startedAt", "started_at", "timestamp", "createdAt", "created_at")),
    role: pick(hit, "role"),
    summary: shorten(pick(hit, "summary")),
    snippet: shorten(pick(hit, "snippet", "content", "text")),
  };
  for (const key of Object.keys(formatted)) if (formatted[key] === undefined) delete formatted[key];
  return formatted;
}

export async function sessionSearchTool(
  args: SessionSearchArgs,
  ctx: Pick<ToolContext, "services" | "sessionId">,
): Promise<string> {
  const search = ctx.services?.sessionSearch;
  if (typeof search !== "function") {
    return JSON.stringify({ success: false, error: "Session history is not available in this session." });
  }
  const limit = Math.min(args.limit ?? SESSION_SEARCH_DEFAULT_LIMIT, SESSION_SEARCH_MAX_LIMIT);
  let hits: unknown[];
  try {
    hits = await (search as SessionSearchFn)(args.query.trim(), limit);
  } catch (error) {
    return JSON.stringify({ success: false, error: `Session search failed: ${(error as Error).message}` });
  }
  const results = (Array.isArray(hits) ? hits : []).slice(0, limit).map(formatSessionHit);
  return JSON.stringify({
    success: true,
    query: args.query,
    count: results.length,
    results,
    ...(results.length === 0 ? { note: "No past session matched. Try other words or fewer of them." } : {}),
  });
}

export function registerSessionSearchTools(registry: ToolRegistry): void {
  registry.register({
    name: "session_search",
    toolset: "session_search",
    description:
      "Recall what was discussed or decided in past sessions. Returns the best matching sessions with a snippet each.",
    parameters: sessionSearchParameters,
    handler: sessionSearchTool,
    parallelSafe: true,
    emoji: "🔍",
  });
}
