/**
 * Sessions: `GET/POST /api/sessions`, `GET/PATCH/DELETE /api/sessions/{id}`,
 * `GET /api/sessions/{id}/messages` and `POST /api/sessions/{id}/fork`. With several keys a key
 * sees only the sessions it created; with one key it sees every session of this Hermes home
 * (CLI and gateway ones too) except those another key created. System prompts never leave.
 */
import type { Context, Hono } from "hono";
import type { SessionRecord, SessionSummary, StoredMessage } from "../../state/session-store.js";
import { type HonoEnv, PLATFORM, requireSession, type ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { paging, readJsonObject } from "../http.js";

const MAX_TITLE_CHARS = 200;
const MAX_ID_CHARS = 256;

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The session object every endpoint returns. */
export function sessionObject(session: SessionRecord | SessionSummary): Record<string, unknown> {
  return {
    id: session.id,
    object: "session",
    title: session.title,
    source: session.source,
    model: session.model,
    parent_session_id: session.parentSessionId,
    started_at: seconds(session.startedAt),
    last_active: seconds(session.lastActive),
    ended_at: seconds(session.endedAt),
    message_count: session.messageCount,
    usage: {
      prompt_tokens: session.promptTokens,
      completion_tokens: session.completionTokens,
      total_tokens: session.totalTokens,
      cache_read_tokens: session.cacheReadTokens,
      cache_write_tokens: session.cacheWriteTokens,
    },
    estimated_cost: session.estimatedCost,
    ...("preview" in session && session.preview !== null ? { preview: session.preview } : {}),
  };
}

function messageObject(message: StoredMessage, index: number): Record<string, unknown> {
  return {
    index,
    role: message.role,
    content: message.content,
    ...(message.tool_calls
      ? { tool_calls: message.tool_calls.map(({ id, type, function: fn }) => ({ id, type, function: fn })) }
      : {}),
    ...(message.tool_call_id !== undefined ? { tool_call_id: message.tool_call_id } : {}),
    ...(message.name !== undefined ? { name: message.name } : {}),
    ...(message.reasoning !== undefined ? { reasoning: message.reasoning } : {}),
  };
}

/** `{id}` of the path: a 400 for one no session could have, so typos and junk never reach the store. */
function sessionIdParam(c: Context<HonoEnv>): string {
  const id = c.req.param("id") ?? "";
  const control = [...id].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
  if (!id.trim() || id.length > MAX_ID_CHARS || control) {
    const shown = id.length > 40 ? `${id.slice(0, 40)}…` : id;
    throw new ApiError(400, `"${shown}" is not a session id: ids are 1 to ${MAX_ID_CHARS} printable characters`, {
      param: "session_id",
    });
  }
  return id;
}

function rejectUnknownFields(body: Record<string, unknown>, known: readonly string[]): void {
  const unknown = Object.keys(body).find((name) => !known.includes(name));
  if (unknown !== undefined) {
    throw new ApiError(400, `unknown field "${unknown}"; accepted fields: ${known.join(", ")}`, { param: unknown });
  }
}

/** `title` of a body: undefined when absent, null to clear, else a trimmed non-empty string. */
function titleField(body: Record<string, unknown>): string | null | undefined {
  const value = body.title;
  if (value === undefined || value === null) return value;
  if (typeof value !== "string") throw new ApiError(400, "title must be a string or null", { param: "title" });
  const title = value.trim();
  if (!title) throw new ApiError(400, "title must not be empty; send null to clear it", { param: "title" });
  if (title.length > MAX_TITLE_CHARS) {
    throw new ApiError(400, `title is ${title.length} characters; the limit is ${MAX_TITLE_CHARS}`, { param: "title" });
  }
  return title;
}

async function loadSession(ctx: ServerContext, namespace: string, id: string): Promise<SessionRecord> {
  await requireSession(ctx, namespace, id);
  const session = await ctx.runtime.store.getSession(id);
  if (!session)
    throw new ApiError(404, `no session with id "${id}"`, { param: "session_id", code: "session_not_found" });
  return session;
}

/** Stored messages without system messages: what clients see and what a resumed agent loads. */
async function conversation(ctx: ServerContext, id: string): Promise<StoredMessage[]> {
  return (await ctx.runtime.store.getMessages(id)).filter((m) => m.role !== "system");
}

/** The first `want` sessions the caller may see, most recently active first. */
async function visibleSessions(
  ctx: ServerContext,
  namespace: string,
  source: string | undefined,
  offset: number,
  want: number,
): Promise<{ page: Array<SessionRecord | SessionSummary>; hasMore: boolean }> {
  const { store } = ctx.runtime;
  if (ctx.keys.shared) {
    const ids = await ctx.store.sessionsOwnedBy(namespace, source ? {} : { limit: want + 1, offset });
    const records = (await Promise.all(ids.map((id) => store.getSession(id)))).filter(
      (s): s is SessionRecord => s !== null && (!source || s.source === source),
    );
    if (!source) return { page: records.slice(0, want), hasMore: ids.length > want };
    return { page: records.slice(offset, offset + want), hasMore: records.length > offset + want };
  }
  // One key: every session, less any another (earlier configured) key created. The store pages
  // without an offset, so read from the top, widening until the page is full or the store ends.
  for (let wanted = offset + want + 1; ; wanted *= 2) {
    const summaries = await store.listSessions({ limit: wanted, ...(source ? { source } : {}) });
    const owners = await Promise.all(summaries.map((s) => ctx.store.sessionOwner(s.id)));
    const visible = summaries.filter((_, i) => owners[i] === null || owners[i] === namespace);
    if (visible.length > offset + want || summaries.length < wanted) {
      return { page: visible.slice(offset, offset + want), hasMore: visible.length > offset + want };
    }
  }
}

/** Forget cached agents of a deleted session; a 409 while one of them is running a turn. */
function releaseAgents(ctx: ServerContext, id: string): void {
  const keys = ctx.runtime
    .cachedKeys()
    .filter((key) => key.startsWith("api:") && key.slice(key.indexOf(":", 4) + 1).startsWith(`${id}:`));
  if (ctx.busySessions.has(id)) {
    throw new ApiError(409, `session "${id}" is running a turn; wait for it to finish, then delete it`, {
      code: "session_busy",
    });
  }
  for (const key of keys) ctx.runtime.evict(key);
}

/** How many leading messages a fork keeps; never splits a tool call from its results. */
function keepCount(body: Record<string, unknown>, messages: readonly StoredMessage[]): number {
  const value = body.keep;
  if (value === undefined || value === null) return messages.length;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > messages.length) {
    throw new ApiError(400, `keep must be a whole number from 0 to ${messages.length} (the session's messages)`, {
      param: "keep",
    });
  }
  const next = messages[value];
  if (next?.role === "tool") {
    throw new ApiError(
      400,
      `keep ${value} would separate tool results from the tool calls that asked for them; keep fewer or more messages`,
      { param: "keep" },
    );
  }
  return value;
}

export function registerSessions(app: Hono<HonoEnv>, ctx: ServerContext): void {
  const { store } = ctx.runtime;

  app.get("/api/sessions", async (c) => {
    const { limit, offset } = paging(c);
    const source = c.req.query("source")?.trim() || undefined;
    const { page, hasMore } = await visibleSessions(ctx, c.get("namespace"), source, offset, limit);
    return c.json({ object: "list", data: page.map(sessionObject), has_more: hasMore });
  });

  app.post("/api/sessions", async (c) => {
    const body = await readJsonObject(c, true);
    rejectUnknownFields(body, ["title"]);
    const title = titleField(body);
    const session = await store.createSession({ source: PLATFORM, model: ctx.runtime.model, title: title ?? null });
    await ctx.store.setSessionOwner(session.id, c.get("namespace"));
    return c.json(sessionObject(session), 201);
  });

  app.get("/api/sessions/:id", async (c) => {
    return c.json(sessionObject(await loadSession(ctx, c.get("namespace"), sessionIdParam(c))));
  });

  app.patch("/api/sessions/:id", async (c) => {
    const id = sessionIdParam(c);
    await requireSession(ctx, c.get("namespace"), id);
    const body = await readJsonObject(c);
    rejectUnknownFields(body, ["title"]);
    const title = titleField(body);
    if (title === undefined)
      throw new ApiError(400, "nothing to change: send {title: string | null}", { param: "title" });
    return c.json(sessionObject(await store.updateSession(id, { title })));
  });

  app.delete("/api/sessions/:id", async (c) => {
    const id = sessionIdParam(c);
    await requireSession(ctx, c.get("namespace"), id);
    releaseAgents(ctx, id);
    await store.deleteSession(id);
    return c.json({ id, object: "session.deleted", deleted: true });
  });

  app.get("/api/sessions/:id/messages", async (c) => {
    const id = sessionIdParam(c);
    const { limit, offset } = paging(c, 100, 1000);
    await requireSession(ctx, c.get("namespace"), id);
    const messages = await conversation(ctx, id);
    const data = messages.slice(offset, offset + limit).map((m, i) => messageObject(m, offset + i));
    return c.json({ object: "list", data, has_more: messages.length > offset + limit });
  });

  app.post("/api/sessions/:id/fork", async (c) => {
    const id = sessionIdParam(c);
    const namespace = c.get("namespace");
    const original = await loadSession(ctx, namespace, id);
    const body = await readJsonObject(c, true);
    rejectUnknownFields(body, ["title", "keep"]);
    const title = titleField(body);
    const messages = await conversation(ctx, id);
    const keep = keepCount(body, messages);
    const fork = await store.createSession({
      source: PLATFORM,
      model: original.model,
      title: title ?? null,
      parentSessionId: original.id,
      // The same bytes, so the provider's prompt cache still holds when the fork resumes.
      systemPrompt: original.systemPrompt,
    });
    if (keep > 0) await store.appendMessages(fork.id, messages.slice(0, keep));
    await ctx.store.setSessionOwner(fork.id, namespace);
    return c.json(sessionObject((await store.getSession(fork.id)) ?? fork), 201);
  });
}
