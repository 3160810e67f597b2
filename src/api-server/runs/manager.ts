/**
 * The Runs API's live runs: each starts in the background on an agent turn, reports what it
 * does to its event log, and can be stopped, steered, or asked to approve a command while it
 * works. Records live in the API store, so a run can be read after it ended (and after a
 * restart); its events live in memory for a while.
 */
import { createHash, randomBytes } from "node:crypto";
import type { RunResult } from "../../agent/run-types.js";
import type { ApiRunRecord, ListRunsOptions } from "../../state/api-store.js";
import type { ApprovalAnswer, ApprovalRequest } from "../../tools/registry.js";
import { prepareTurn, type ServerContext, type Turn } from "../context.js";
import { ApiError } from "../errors.js";
import { runTurn } from "../turn-stream.js";
import { type RunEventLog, RunEventLogs, runUsage, terminalEvent, toolEvent } from "./events.js";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
/** How long `stop` waits for the run to wind down before answering. */
const STOP_WAIT_MS = 5000;

export interface StartRunRequest {
  namespace: string;
  input: string;
  sessionId?: string | undefined;
  instructions?: string | undefined;
  memoryScope?: string | undefined;
  /** The parsed request body (stored with the run, hashed for idempotency). */
  body: unknown;
  idempotencyKey?: string | undefined;
}

export interface StartRunResult {
  run: ApiRunRecord;
  /** An earlier request with the same Idempotency-Key started this run. */
  replayed: boolean;
}

export type ApprovalDecision = "approve" | "approve_session" | "deny";
const ANSWERS: Record<ApprovalDecision, ApprovalAnswer> = { approve: "once", approve_session: "session", deny: "deny" };

interface LiveRun {
  id: string;
  namespace: string;
  turn: Turn;
  log: RunEventLog;
  /** Set by stop/stopAll: what the run becomes when the interrupt lands. */
  stop?: { status: "cancelled" | "interrupted"; reason: string };
  /** The agent has returned; only bookkeeping is left. */
  finishing: boolean;
  approvals: Map<string, (answer: ApprovalAnswer) => void>;
  done: Promise<void>;
}

export const newRunId = () => `run_${randomBytes(12).toString("hex")}`;

/** SHA-256 of the body as JSON with its object keys sorted. */
export function bodyHash(body: unknown): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === "object") {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries.map(([k, v]) => [k, canonical(v)]));
    }
    return value;
  };
  return createHash("sha256")
    .update(JSON.stringify(canonical(body)))
    .digest("hex");
}

export class RunManager {
  readonly logs = new RunEventLogs();
  private readonly live = new Map<string, LiveRun>();
  /** Idempotency keys being claimed, so two requests with one key never both start a run. */
  private readonly claiming = new Map<string, Promise<unknown>>();

  constructor(readonly ctx: ServerContext) {}

  /** After a restart: runs left unfinished become interrupted, expired keys go. Returns how many runs. */
  async recover(): Promise<number> {
    await this.ctx.store.pruneIdempotencyKeys(Date.now() - IDEMPOTENCY_TTL_MS);
    return this.ctx.store.interruptUnfinishedRuns("the server stopped before the run finished");
  }

  /** Interrupt every live run (shutdown); they end `interrupted`. */
  stopAll(reason: string): void {
    for (const run of this.live.values()) this.requestStop(run, "interrupted", reason);
  }

  /** Resolves when every live run has ended and its record is written. */
  async settled(): Promise<void> {
    while (this.live.size > 0) await Promise.all([...this.live.values()].map((run) => run.done));
  }

  /**
   * Starts a run (or, for a known Idempotency-Key with the same body, returns the run it
   * started). Throws ApiError 404 (session), 409 (key reused with another body, session busy), 429.
   */
  async start(request: StartRunRequest): Promise<StartRunResult> {
    const { idempotencyKey: key, namespace } = request;
    if (key === undefined) return { run: await this.launch(request, newRunId()), replayed: false };
    return this.serialized(`${namespace}\n${key}`, async () => {
      const hash = bodyHash(request.body);
      const runId = newRunId();
      const claim = await this.ctx.store.claimIdempotencyKey(
        { namespace, key, bodyHash: hash, runId, createdAt: Date.now() },
        IDEMPOTENCY_TTL_MS,
      );
      if (claim.claimed) return { run: await this.launch(request, runId), replayed: false };
      if (claim.existing.bodyHash !== hash) {
        throw new ApiError(409, "this Idempotency-Key was already used with a different request body; use a new key", {
          param: "Idempotency-Key",
          code: "idempotency_key_reused",
        });
      }
      const existing = await this.ctx.store.getRun(namespace, claim.existing.runId);
      if (existing) return { run: existing, replayed: true };
      // The key's first request never started its run (429, 404): this one starts it under the claimed id.
      return { run: await this.launch(request, claim.existing.runId), replayed: false };
    });
  }

  list(namespace: string, options: ListRunsOptions): Promise<ApiRunRecord[]> {
    return this.ctx.store.listRuns(namespace, options);
  }

  /**
   * A run the server starts itself (a finished background subagent's result for its session);
   * `done` resolves with the record once it ended. Throws ApiError 404 (session), 409 (busy), 429.
   */
  async startInternal(request: StartRunRequest): Promise<{ run: ApiRunRecord; done: Promise<ApiRunRecord> }> {
    const run = await this.launch(request, newRunId());
    const live = this.live.get(run.id);
    const done = (live?.done ?? Promise.resolve()).then(() => this.get(request.namespace, run.id));
    return { run, done };
  }

  async get(namespace: string, id: string): Promise<ApiRunRecord> {
    const run = await this.ctx.store.getRun(namespace, id);
    if (!run) throw new ApiError(404, `no run with id "${id}"`, { param: "run_id", code: "run_not_found" });
    return run;
  }

  /** Interrupts the run and waits (briefly) for it to end; 409 when it had already ended. */
  async stop(namespace: string, id: string): Promise<ApiRunRecord> {
    const run = await this.running(namespace, id);
    this.requestStop(run, "cancelled", "stopped by the client");
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run.done, new Promise((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS).unref()))]);
    clearTimeout(timer);
    return this.get(namespace, id);
  }

  /** A note the model reads with its next tool result (or next turn). */
  async steer(namespace: string, id: string, text: string): Promise<ApiRunRecord> {
    const run = await this.running(namespace, id);
    run.turn.agent.steer(text);
    return this.get(namespace, id);
  }

  async answerApproval(
    namespace: string,
    id: string,
    approvalId: string,
    decision: ApprovalDecision,
  ): Promise<ApiRunRecord> {
    const run = await this.running(namespace, id);
    const resolve = run.approvals.get(approvalId);
    if (!resolve) {
      throw new ApiError(404, `no pending approval with id "${approvalId}" (it may have been answered or timed out)`, {
        param: "approval_id",
        code: "approval_not_found",
      });
    }
    run.approvals.delete(approvalId);
    resolve(ANSWERS[decision]);
    return this.get(namespace, id);
  }

  /** The live run, or 404 (unknown) / 409 (finished). */
  private async running(namespace: string, id: string): Promise<LiveRun> {
    const run = this.live.get(id);
    if (run && run.namespace === namespace && !run.finishing) return run;
    if (run?.namespace === namespace) await run.done;
    const record = await this.get(namespace, id);
    throw new ApiError(409, `run "${id}" has already ended (${record.status})`, { code: "run_finished" });
  }

  private requestStop(run: LiveRun, status: "cancelled" | "interrupted", reason: string): void {
    run.stop ??= { status, reason };
    // Before the agent's turn has begun there is nothing to interrupt yet; its first event does it.
    if (run.turn.agent.running) run.turn.agent.interrupt(reason);
  }

  private async serialized<T>(name: string, task: () => Promise<T>): Promise<T> {
    const previous = this.claiming.get(name) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.claiming.set(name, tail);
    try {
      return await current;
    } finally {
      if (this.claiming.get(name) === tail) this.claiming.delete(name);
    }
  }

  /** Claims a slot (429), records the run as running and starts it in the background. */
  private async launch(request: StartRunRequest, id: string): Promise<ApiRunRecord> {
    const approvals = new Map<string, (answer: ApprovalAnswer) => void>();
    let log: RunEventLog | undefined;
    const requestApproval = (ask: ApprovalRequest) =>
      new Promise<ApprovalAnswer>((resolve) => {
        const approvalId = `appr_${randomBytes(8).toString("hex")}`;
        approvals.set(approvalId, resolve);
        // The approval policy denies an unanswered prompt after `approvals.timeout`; so does this id.
        setTimeout(() => approvals.delete(approvalId), this.ctx.runtime.config.approvals.timeout * 1000).unref();
        log?.push("approval.requested", { approval_id: approvalId, command: ask.command, reason: ask.reason });
      });
    const turn = await prepareTurn(this.ctx, {
      namespace: request.namespace,
      sessionId: request.sessionId,
      memoryScope: request.memoryScope,
      ...(request.instructions ? { instructions: request.instructions } : {}),
      approvals: requestApproval,
    });
    const now = Date.now();
    const record: ApiRunRecord = {
      id,
      namespace: request.namespace,
      status: "running",
      sessionId: turn.sessionId,
      input: request.body,
      output: null,
      error: null,
      usage: null,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await this.ctx.store.createRun(record);
    } catch (error) {
      turn.release();
      throw error;
    }
    log = this.logs.create(id);
    let finished!: () => void;
    const done = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const run: LiveRun = { id, namespace: request.namespace, turn, log, finishing: false, approvals, done };
    this.live.set(id, run);
    void this.execute(run, request.input)
      .catch(() => undefined)
      .finally(() => {
        this.live.delete(id);
        finished();
      });
    return record;
  }

  private async execute(run: LiveRun, input: string): Promise<void> {
    const { log, turn } = run;
    let result: RunResult | undefined;
    let failure: string | undefined;
    try {
      result = await runTurn(this.ctx, run.namespace, turn, input, {
        text: (text) => log.push("message.delta", { text }),
        reasoning: (text) => log.push("reasoning.delta", { text }),
        event: (event) => {
          if (run.stop && turn.agent.running) turn.agent.interrupt(run.stop.reason);
          const mapped = toolEvent(event);
          if (mapped) log.push(mapped.event, mapped.data);
        },
      });
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    run.finishing = true;
    for (const resolve of run.approvals.values()) resolve("deny");
    run.approvals.clear();
    let record: ApiRunRecord | undefined;
    try {
      record = await this.ctx.store.updateRun(run.id, outcome(run, result, failure));
    } catch {
      // The store is gone (shutdown): the record stays `running` and becomes interrupted at the next start.
    }
    const terminal = record && terminalEvent(record);
    log.push(
      terminal?.event ?? "run.failed",
      terminal?.data ?? { status: "failed", error: "the run's record could not be saved" },
    );
    this.logs.retire(run.id);
  }
}

/** How the run ended, as a record patch. */
function outcome(run: LiveRun, result: RunResult | undefined, failure: string | undefined) {
  if (!result) return { status: "failed" as const, error: `the agent could not run: ${failure}` };
  const base = { sessionId: result.sessionId, usage: runUsage(result.usage) };
  if (result.interrupted) {
    const stop = run.stop ?? { status: "interrupted" as const, reason: "the run was interrupted" };
    return { ...base, status: stop.status, error: stop.reason };
  }
  if (result.error && !result.finalResponse) {
    return { ...base, status: "failed" as const, error: `the agent could not finish: ${result.error}` };
  }
  return { ...base, status: "completed" as const, output: result.finalResponse };
}
