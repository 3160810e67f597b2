/**
 * What every endpoint shares: the runtime, the API tables, the keys, the run slots, and how a
 * request becomes an agent turn (which session, whose memory, which layer of instructions).
 */
import type { Agent, RunOptions } from "../agent/agent.js";
import type { ContentPart, Message } from "../llm/types.js";
import type { HermesRuntime } from "../runtime/runtime.js";
import type { ApiServerStore } from "../state/api-store.js";
import type { KeyRing } from "./auth.js";
import { ApiError } from "./errors.js";
import type { ApiServerSettings } from "./settings.js";

export const PLATFORM = "api_server";

/** At most `limit` agent runs at once across every endpoint. */
export class RunSlots {
  private used = 0;
  constructor(readonly limit: number) {}

  get inUse(): number {
    return this.used;
  }

  /** A release function, or an ApiError 429 when every slot is taken. */
  acquire(): () => void {
    if (this.used >= this.limit) {
      throw new ApiError(
        429,
        `too many runs in progress (gateway.api_server.max_concurrent_runs is ${this.limit}); retry shortly`,
        { code: "rate_limit_exceeded", headers: { "retry-after": "1" } },
      );
    }
    this.used++;
    let released = false;
    return () => {
      if (!released) this.used--;
      released = true;
    };
  }
}

export interface ServerContext {
  runtime: HermesRuntime;
  store: ApiServerStore;
  settings: ApiServerSettings;
  keys: KeyRing;
  slots: RunSlots;
  startedAt: number;
  /** Sessions with a turn in progress (cached agents and one-off ones alike). */
  busySessions: Set<string>;
  /** Told each time a turn gives its session and run slot back (work waiting for either goes on). */
  onTurnReleased?: () => void;
}

export type HonoEnv = { Variables: { namespace: string; maxBodyBytes: number } };

/** Whether `namespace` may read and continue a stored session. */
export async function mayUseSession(ctx: ServerContext, namespace: string, sessionId: string): Promise<boolean> {
  if (!(await ctx.runtime.store.getSession(sessionId))) return false;
  const owner = await ctx.store.sessionOwner(sessionId);
  if (owner === namespace) return true;
  // With one key, its holder is the owner of this Hermes home and sees every session.
  return !ctx.keys.shared && (owner === null || owner === namespace);
}

export async function requireSession(ctx: ServerContext, namespace: string, sessionId: string): Promise<void> {
  if (!(await mayUseSession(ctx, namespace, sessionId))) {
    throw new ApiError(404, `no session with id "${sessionId}"`, { param: "session_id", code: "session_not_found" });
  }
}

export interface TurnRequest {
  namespace: string;
  /** Continue this stored session; otherwise a new one starts. */
  sessionId?: string | undefined;
  /** Earlier messages the client sent (new sessions only). */
  history?: Message[];
  /** Scopes MEMORY.md / USER.md (`X-Hermes-Session-Key`). */
  memoryScope?: string | undefined;
  /** The client's system text, layered on top of our prompt for this run. */
  instructions?: string;
  /** `false`: nothing of the turn is written to the session store. */
  persist?: boolean;
  /** The run has someone to answer approval prompts (the Runs API). */
  approvals?: RunOptions["requestApproval"];
  /**
   * `false` (the Responses API): a compression continues in a child session, so the stored
   * responses before it still hold the conversation they ended, for branching.
   */
  compressInPlace?: false;
}

export interface Turn {
  agent: Agent;
  /** The session the turn runs in (known before it starts). */
  sessionId: string;
  options: RunOptions;
  /** Give back the run slot. */
  release(): void;
}

function scopeName(ctx: ServerContext, namespace: string, scope: string): string {
  return ctx.keys.shared ? `${namespace}-${scope}` : scope;
}

/** Claims a run slot and finds (or creates) the session's agent. Throws ApiError 404/409/429. */
export async function prepareTurn(ctx: ServerContext, request: TurnRequest): Promise<Turn> {
  const { namespace } = request;
  if (request.sessionId) await requireSession(ctx, namespace, request.sessionId);
  const release = ctx.slots.acquire();
  try {
    const memory = request.memoryScope ? { memoryScope: scopeName(ctx, namespace, request.memoryScope) } : {};
    const mode = request.compressInPlace === false ? { compressInPlace: false as const } : {};
    let agent: Agent;
    let history: Message[] | undefined;
    if (request.sessionId) {
      const key = `api:${namespace}:${request.sessionId}:${request.memoryScope ?? ""}`;
      agent = ctx.runtime.agentFor(key, { platform: PLATFORM, sessionId: request.sessionId, ...memory, ...mode });
    } else {
      const persist = request.persist !== false;
      agent = ctx.runtime.createAgent({ platform: PLATFORM, ...memory, ...mode, ...(persist ? {} : { persist }) });
      history = request.history;
      if (persist) await ctx.store.setSessionOwner(agent.sessionId, namespace);
    }
    // The id the client knows: a compression (not in place) may since have moved the agent to a child session.
    const busyKey = request.sessionId ?? agent.sessionId;
    if (ctx.busySessions.has(busyKey) || agent.running) {
      throw new ApiError(409, `session "${busyKey}" is already running a turn; wait for it to finish`, {
        code: "session_busy",
      });
    }
    ctx.busySessions.add(busyKey);
    const options: RunOptions = {
      ...(history?.length ? { conversationHistory: history } : {}),
      ...(request.instructions ? { ephemeralSystemPrompt: request.instructions } : {}),
      ...(request.approvals ? { requestApproval: request.approvals, interactive: true } : { interactive: false }),
    };
    return {
      agent,
      sessionId: agent.sessionId,
      options,
      release: () => {
        ctx.busySessions.delete(busyKey);
        release();
        ctx.onTurnReleased?.();
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}

/** After a run: a compression may have moved the conversation to a child session; it stays ours. */
export async function adoptSession(ctx: ServerContext, namespace: string, sessionId: string): Promise<void> {
  if ((await ctx.store.sessionOwner(sessionId)) === null) await ctx.store.setSessionOwner(sessionId, namespace);
}

export type TurnInput = string | ContentPart[];
