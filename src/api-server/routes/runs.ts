/**
 * The Runs API, for long tasks: `POST /v1/runs` starts a run in the background (202), `GET
 * /v1/runs/{id}` reads it, `GET /v1/runs/{id}/events` streams what it does (SSE, resumable with
 * Last-Event-ID), and `stop`, `steer` and `approval` act on it while it works. `GET /v1/runs`
 * lists the key's runs, newest first, including those the server started itself to hand a
 * finished background subagent's result to its session.
 */
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { ApiRunRecord, ApiRunStatus } from "../../state/api-store.js";
import type { HonoEnv, ServerContext } from "../context.js";
import { ApiError } from "../errors.js";
import { paging, readJsonObject } from "../http.js";
import { terminalEvent } from "../runs/events.js";
import type { ApprovalDecision, RunManager } from "../runs/manager.js";

const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const DECISIONS: readonly ApprovalDecision[] = ["approve", "approve_session", "deny"];
const STATUSES: readonly ApiRunStatus[] = ["queued", "running", "completed", "failed", "cancelled", "interrupted"];

/** What started a run the server began on its own: a background subagent's finished result. */
function triggerOf(run: ApiRunRecord): Record<string, unknown> | undefined {
  const input = run.input as { background_result?: { delegation_id?: unknown; goal?: unknown } } | null;
  const result = input?.background_result;
  if (!result || typeof result !== "object") return undefined;
  return { type: "background_result", delegation_id: result.delegation_id, goal: result.goal };
}

/** The run object every endpoint returns. */
export function runObject(run: ApiRunRecord): Record<string, unknown> {
  return {
    id: run.id,
    object: "run",
    status: run.status,
    session_id: run.sessionId,
    created_at: Math.floor(run.createdAt / 1000),
    ...(run.output !== null ? { output: run.output } : {}),
    ...(run.error !== null ? { error: run.error } : {}),
    ...(run.usage !== null && run.usage !== undefined ? { usage: run.usage } : {}),
    ...(triggerOf(run) ? { trigger: triggerOf(run) } : {}),
  };
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ApiError(400, `${name} must be a string`, { param: name });
  return value;
}

function requiredText(body: Record<string, unknown>, name: string, what: string): string {
  const value = optionalString(body, name);
  if (value === undefined || !value.trim()) throw new ApiError(400, `${name} is required: ${what}`, { param: name });
  return value;
}

/** `Last-Event-ID` (or `?last_event_id=`): resume after this event; 0 reads from the start. */
function lastEventId(c: Context): number {
  const raw = c.req.header("last-event-id") ?? c.req.query("last_event_id");
  if (raw === undefined || raw.trim() === "") return 0;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ApiError(400, "Last-Event-ID must be the id of an event this stream sent (a whole number)", {
      param: "last_event_id",
    });
  }
  return value;
}

export function registerRuns(app: Hono<HonoEnv>, _ctx: ServerContext, runs: RunManager): void {
  app.post("/v1/runs", async (c) => {
    const body = await readJsonObject(c);
    const input = requiredText(body, "input", "the task for the agent, as a non-empty string");
    const sessionId = optionalString(body, "session_id") || undefined;
    const instructions = optionalString(body, "instructions");
    const memoryScope = optionalString(body, "session_key") || c.req.header("x-hermes-session-key") || undefined;
    const idempotencyKey = c.req.header("idempotency-key");
    if (
      idempotencyKey !== undefined &&
      (!idempotencyKey.trim() || idempotencyKey.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    ) {
      throw new ApiError(400, `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`, {
        param: "Idempotency-Key",
      });
    }
    const { run, replayed } = await runs.start({
      namespace: c.get("namespace"),
      input,
      sessionId,
      instructions,
      memoryScope,
      body,
      idempotencyKey,
    });
    if (replayed) c.header("Idempotency-Replayed", "true");
    return c.json(runObject(run), replayed ? 200 : 202);
  });

  app.get("/v1/runs", async (c) => {
    const { limit, offset } = paging(c);
    const sessionId = c.req.query("session_id") || undefined;
    const status = c.req.query("status") || undefined;
    if (status !== undefined && !STATUSES.includes(status as ApiRunStatus)) {
      throw new ApiError(400, `status must be one of ${STATUSES.join(", ")}`, { param: "status" });
    }
    // One more than asked for says whether there are more.
    const found = await runs.list(c.get("namespace"), {
      ...(sessionId ? { sessionId } : {}),
      ...(status ? { status: status as ApiRunStatus } : {}),
      limit: limit + 1,
      offset,
    });
    return c.json({ object: "list", data: found.slice(0, limit).map(runObject), has_more: found.length > limit });
  });

  app.get("/v1/runs/:id", async (c) => c.json(runObject(await runs.get(c.get("namespace"), c.req.param("id")))));

  app.get("/v1/runs/:id/events", async (c) => {
    const id = c.req.param("id");
    const record = await runs.get(c.get("namespace"), id);
    const after = lastEventId(c);
    const log = runs.logs.get(id);
    const terminal = terminalEvent(record);
    if (!log && !terminal) {
      throw new ApiError(409, `the events of run "${id}" are not available on this server`, {
        code: "run_events_unavailable",
      });
    }
    c.header("x-accel-buffering", "no");
    return streamSSE(c, async (out) => {
      if (!log) {
        // Its events are gone (retention, restart): the stored record gives the ending.
        await out.writeSSE({ id: String(after + 1), event: terminal!.event, data: JSON.stringify(terminal!.data) });
        return;
      }
      const closed = new AbortController();
      out.onAbort(() => closed.abort());
      c.req.raw.signal.addEventListener("abort", () => closed.abort(), { once: true });
      // Leaving early (the client went away) never stops the run.
      for await (const item of log.follow(after, closed.signal)) {
        if (item === "idle") await out.write(": keep-alive\n\n");
        else await out.writeSSE({ id: String(item.id), event: item.event, data: JSON.stringify(item.data) });
      }
    });
  });

  app.post("/v1/runs/:id/stop", async (c) => c.json(runObject(await runs.stop(c.get("namespace"), c.req.param("id")))));

  app.post("/v1/runs/:id/steer", async (c) => {
    const text = requiredText(await readJsonObject(c), "text", "the note for the agent, as a non-empty string");
    return c.json(runObject(await runs.steer(c.get("namespace"), c.req.param("id"), text)));
  });

  app.post("/v1/runs/:id/approval", async (c) => {
    const body = await readJsonObject(c);
    const approvalId = requiredText(body, "approval_id", "the approval_id of an approval.requested event");
    const decision = body.decision;
    if (typeof decision !== "string" || !DECISIONS.includes(decision as ApprovalDecision)) {
      throw new ApiError(400, `decision must be one of ${DECISIONS.join(", ")}`, { param: "decision" });
    }
    const run = await runs.answerApproval(
      c.get("namespace"),
      c.req.param("id"),
      approvalId,
      decision as ApprovalDecision,
    );
    return c.json(runObject(run));
  });
}
