/**
 * The ticker: every tick, the process holding the store's `cron-ticker` lease looks at due jobs.
 * A fire within its grace is claimed (the claim itself moves the job on, so no other process
 * can fire it again) and run; an older one is recorded as skipped and the job fast-forwards to
 * its next time. Runs a crash left open are closed as interrupted when a ticker starts.
 */
import { randomUUID } from "node:crypto";
import type { CronJob } from "../state/cron-store.js";
import { type CronRunDeps, executeRun } from "./run-job.js";
import { graceMs, nextRunAfter, nextRunAfterNow } from "./timing.js";

export const TICK_INTERVAL_MS = 60_000;
const LEASE = "cron-ticker";

export interface TickReport {
  fired: string[];
  skipped: string[];
  /** False when another process holds the ticker lease. */
  leader: boolean;
}

export class CronTicker {
  readonly holder = `${process.pid}-${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private running = new Set<Promise<unknown>>();
  private ticking: Promise<TickReport> | undefined;
  /** Jobs with a working directory run one at a time: they may change the same files. */
  private workdirTail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: CronRunDeps,
    private readonly options: { maxParallel?: number; leaseMs?: number } = {},
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Closes runs a crashed process left open, then ticks every `intervalMs`. */
  async start(intervalMs = TICK_INTERVAL_MS): Promise<void> {
    await this.closeInterrupted();
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.running]);
    await this.deps.cron.releaseLease(LEASE, this.holder);
  }

  async closeInterrupted(): Promise<number> {
    const open = await this.deps.cron.unfinishedRuns();
    for (const run of open) {
      await this.deps.cron.finishRun(
        run.id,
        { status: "error", reason: "interrupted: the process running it stopped" },
        this.now(),
      );
    }
    return open.length;
  }

  /** One pass over due jobs; resolves when the fires it started have finished. */
  tick(): Promise<TickReport> {
    if (!this.ticking) {
      this.ticking = this.pass().finally(() => {
        this.ticking = undefined;
      });
    }
    return this.ticking;
  }

  private async pass(): Promise<TickReport> {
    const report: TickReport = { fired: [], skipped: [], leader: false };
    const leaseMs = this.options.leaseMs ?? TICK_INTERVAL_MS * 3;
    if (!(await this.deps.cron.acquireLease(LEASE, this.holder, leaseMs, this.now()))) return report;
    report.leader = true;
    const limit = this.options.maxParallel ?? this.deps.runtime.config.cron.max_parallel_jobs;
    const started: Promise<unknown>[] = [];
    for (const job of await this.deps.cron.dueJobs(this.now())) {
      if (limit > 0 && this.running.size >= limit) break;
      const fire = await this.fire(job, report);
      if (fire) started.push(fire.work);
    }
    await Promise.allSettled(started);
    return report;
  }

  /** Skips or claims the fire; a claimed one starts, and its work is handed back (not awaited). */
  private async fire(job: CronJob, report: TickReport): Promise<{ work: Promise<unknown> } | undefined> {
    const due = job.nextRunAt as number;
    const now = this.now();
    const grace = graceMs(job, due);
    if (now - due > grace) {
      const next = nextRunAfterNow(job, due, now);
      const late = Math.round((now - due) / 1000);
      const reason = `missed by ${late} s (grace ${Math.round(grace / 1000)} s)${next === null ? "" : "; moved on to the next time"}`;
      if (await this.deps.cron.recordSkip(job.id, due, reason, next, now)) report.skipped.push(job.id);
      return undefined;
    }
    const run = await this.deps.cron.claimFire(job.id, due, nextRunAfter(job, due, due), now);
    if (!run) return undefined;
    report.fired.push(job.id);
    const execute = () =>
      executeRun(this.deps, job, run).catch((error: unknown) => {
        this.deps.log?.(`cron job ${job.id} failed outside its run: ${error instanceof Error ? error.message : error}`);
      });
    const work = job.workdir ? this.workdirTail.then(execute) : execute();
    if (job.workdir) this.workdirTail = work;
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
    return { work };
  }
}
