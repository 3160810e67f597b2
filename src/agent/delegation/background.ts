/**
 * Background subagents of one process: which are running (at most `delegation.max_async_children`
 * at once), which finished with a result nobody has taken yet, and the surfaces that hand a
 * finished child's summary back to the session that dispatched it. A dispatch past the cap is
 * refused, never queued, so the model can wait or run the task in the foreground instead.
 */
import { nodeCrypto } from "../../util/node-crypto.js";
import type { ChildReport } from "./run-child.js";

/** Where a background child came from. */
export interface BackgroundOrigin {
  /** The dispatching agent's session at the time of the call. */
  sessionId: string;
  /** The platform that agent serves ("cli", "telegram", "api_server", ...). */
  platform: string;
  /** The chat the session belongs to, when the surface named one (its `cronOrigin` service). */
  chat?: unknown;
}

export interface BackgroundResult {
  id: string;
  goal: string;
  origin: BackgroundOrigin;
  report: ChildReport;
  startedAt: number;
  finishedAt: number;
}

/** A surface that puts finished background results into its sessions. */
export interface BackgroundSurface {
  /** Whether results of children dispatched from `origin` are this surface's to deliver. */
  accepts(origin: BackgroundOrigin): boolean;
  /** Hands one result to its session. Must not throw. */
  deliver(result: BackgroundResult): void;
}

export interface BackgroundJob {
  goal: string;
  /** Runs the child to its report; `signal` stops it (a closing runtime, a reset session). */
  run(signal: AbortSignal): Promise<ChildReport>;
}

export type DispatchEntry = { delegation_id: string; goal: string; status: "dispatched" | "duplicate" };

export type DispatchOutcome = { ok: true; entries: DispatchEntry[] } | { ok: false; error: string };

/** A background child still running, as `runningChildren` lists it. */
export interface RunningBackgroundChild {
  id: string;
  goal: string;
  origin: BackgroundOrigin;
  startedAt: number;
}

interface RunningChild extends RunningBackgroundChild {
  controller: AbortController;
  done: Promise<void>;
}

const duplicateKey = (origin: BackgroundOrigin, goal: string) => `${origin.sessionId}\0${goal}`;
const newDelegationId = () => `bg_${nodeCrypto().randomBytes(5).toString("hex")}`;

export class BackgroundDelegations {
  private readonly running = new Map<string, RunningChild>();
  private readonly pending: BackgroundResult[] = [];
  private readonly surfaces = new Set<BackgroundSurface>();
  private closed = false;

  constructor(
    readonly maxRunning: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Background children running now, across every session of the process. */
  get activeCount(): number {
    return this.running.size;
  }

  /** Whether some surface of this process would deliver a result dispatched from `origin`. */
  deliverable(origin: BackgroundOrigin): boolean {
    return !this.closed && [...this.surfaces].some((surface) => surface.accepts(origin));
  }

  /** Adds a surface; results already waiting for it are delivered at once. Returns the detach function. */
  attach(surface: BackgroundSurface): () => void {
    this.surfaces.add(surface);
    for (const result of [...this.pending]) {
      if (!surface.accepts(result.origin)) continue;
      this.pending.splice(this.pending.indexOf(result), 1);
      surface.deliver(result);
    }
    return () => {
      this.surfaces.delete(surface);
    };
  }

  /**
   * Starts every job in the background, or none: when the jobs that are not duplicates of a
   * running child do not all fit under the cap, the whole call is refused.
   */
  dispatch(jobs: readonly BackgroundJob[], origin: BackgroundOrigin): DispatchOutcome {
    if (this.closed) return { ok: false, error: "background subagents are shutting down with this process" };
    const byGoal = new Map([...this.running.values()].map((child) => [duplicateKey(child.origin, child.goal), child]));
    const fresh = new Set(jobs.map((job) => duplicateKey(origin, job.goal)).filter((key) => !byGoal.has(key))).size;
    const free = this.maxRunning - this.running.size;
    if (fresh > free) {
      const asked = fresh === 1 ? "another" : `${fresh} more`;
      return {
        ok: false,
        error:
          `cannot start ${asked} background subagent${fresh === 1 ? "" : "s"}: ${this.running.size} already running ` +
          `and delegation.max_async_children is ${this.maxRunning}. Wait for a running one to report back, ` +
          "or run this task in the foreground (background: false).",
      };
    }
    const entries: DispatchEntry[] = [];
    const seen = new Map<string, string>();
    for (const job of jobs) {
      const key = duplicateKey(origin, job.goal);
      const existing = byGoal.get(key)?.id ?? seen.get(key);
      if (existing) {
        entries.push({ delegation_id: existing, goal: job.goal, status: "duplicate" });
        continue;
      }
      const id = this.start(job, origin);
      seen.set(key, id);
      entries.push({ delegation_id: id, goal: job.goal, status: "dispatched" });
    }
    return { ok: true, entries };
  }

  /** The children running now that `filter` picks (all when omitted), oldest first. */
  runningChildren(filter: (origin: BackgroundOrigin) => boolean = () => true): RunningBackgroundChild[] {
    return [...this.running.values()]
      .filter((child) => filter(child.origin) && !child.controller.signal.aborted)
      .map(({ id, goal, origin, startedAt }) => ({ id, goal, origin, startedAt }));
  }

  /** Stops one running child, if `filter` picks it; its result is dropped. False when there is none. */
  stop(id: string, filter: (origin: BackgroundOrigin) => boolean, reason = "stopped by the user"): boolean {
    const child = this.running.get(id);
    if (!child || !filter(child.origin) || child.controller.signal.aborted) return false;
    child.controller.abort(new Error(reason));
    return true;
  }

  /** Stops the children `filter` picks (all when omitted); their results are dropped. Returns how many. */
  cancel(filter: (origin: BackgroundOrigin) => boolean = () => true, reason = "cancelled"): number {
    let count = 0;
    for (const child of this.running.values()) {
      if (!filter(child.origin) || child.controller.signal.aborted) continue;
      child.controller.abort(new Error(reason));
      count++;
    }
    return count;
  }

  /** Resolves once no child that `filter` picks is running (every child when omitted). */
  async idle(filter?: (origin: BackgroundOrigin) => boolean): Promise<void> {
    for (;;) {
      const waiting = [...this.running.values()].filter((child) => !filter || filter(child.origin));
      if (waiting.length === 0) return;
      await Promise.race(waiting.map((child) => child.done));
    }
  }

  /** Stops every running child and waits for each to wind down; nothing is delivered after this. */
  async close(): Promise<number> {
    this.closed = true;
    const stopped = this.cancel(() => true, "the process is closing");
    await Promise.all([...this.running.values()].map((child) => child.done));
    this.surfaces.clear();
    return stopped;
  }

  private start(job: BackgroundJob, origin: BackgroundOrigin): string {
    const id = newDelegationId();
    const controller = new AbortController();
    const startedAt = this.now();
    const done = job
      .run(controller.signal)
      .catch(
        (error: unknown): ChildReport => ({
          goal: job.goal,
          status: "failed",
          summary: "",
          apiCalls: 0,
          toolCalls: 0,
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .then((report) => {
        this.running.delete(id);
        // A child stopped on purpose (closing runtime, reset session) has nobody left to tell.
        if (controller.signal.aborted || this.closed) return;
        this.finish({ id, goal: job.goal, origin, report, startedAt, finishedAt: this.now() });
      });
    this.running.set(id, { id, goal: job.goal, origin, startedAt, controller, done });
    return id;
  }

  private finish(result: BackgroundResult): void {
    const surface = [...this.surfaces].find((candidate) => candidate.accepts(result.origin));
    if (surface) surface.deliver(result);
    else this.pending.push(result);
  }
}
