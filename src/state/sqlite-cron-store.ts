/**
 * Cron jobs, runs and the ticker lease in state.db (schema version 5). A job is one row: the
 * columns the ticker queries (enabled, state, next run) beside the whole job as JSON. Claims,
 * skips and lease changes are compare-and-set inside one write transaction, so processes sharing
 * the file agree on who fires what.
 */

import { type JobRow, parseJob, RUN_COLUMNS, type RunRow, toRun, withDefaults } from "./cron-codec.js";
import {
  type CronJob,
  type CronJobPatch,
  type CronRun,
  type CronRunResult,
  type CronRunStatus,
  type CronStore,
  CronStoreError,
  type NewCronJob,
} from "./cron-store.js";
import { SqliteConnection } from "./sqlite-connection.js";

export class SqliteCronStore implements CronStore {
  private closed = false;

  private constructor(private readonly conn: SqliteConnection) {}

  static async open(path: string): Promise<SqliteCronStore> {
    return new SqliteCronStore(await SqliteConnection.shared(path, 10_000));
  }

  private jobRow(id: string): CronJob | null {
    const row = this.conn.statement("SELECT job FROM cron_jobs WHERE id = ?").get(id) as JobRow | undefined;
    return row ? parseJob(row) : null;
  }

  private saveJob(job: CronJob, now: number): void {
    this.conn
      .statement(
        `INSERT INTO cron_jobs (id, name, enabled, state, next_run_at, created_at, updated_at, job)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, enabled = excluded.enabled, state = excluded.state,
           next_run_at = excluded.next_run_at, updated_at = excluded.updated_at, job = excluded.job`,
      )
      .run(job.id, job.name, job.enabled ? 1 : 0, job.state, job.nextRunAt, job.createdAt, now, JSON.stringify(job));
  }

  createJob(input: NewCronJob, now = Date.now()): Promise<CronJob> {
    return this.conn.write(() => {
      const job = withDefaults(input, now);
      if (!/^[0-9a-f]{12}$/.test(job.id)) throw new CronStoreError(`job id "${job.id}" is not 12 hex characters`);
      if (this.jobRow(job.id)) throw new CronStoreError(`a job with id ${job.id} already exists`);
      this.saveJob(job, now);
      return job;
    });
  }

  getJob(id: string): Promise<CronJob | null> {
    return this.conn.read(() => this.jobRow(id));
  }

  listJobs(options: { all?: boolean } = {}): Promise<CronJob[]> {
    return this.conn.read(() => {
      const rows = this.conn
        .statement(
          options.all
            ? "SELECT job FROM cron_jobs ORDER BY created_at, id"
            : "SELECT job FROM cron_jobs WHERE state != 'completed' ORDER BY created_at, id",
        )
        .all() as JobRow[];
      return rows.map((row) => parseJob(row));
    });
  }

  updateJob(id: string, patch: CronJobPatch, now = Date.now()): Promise<CronJob> {
    return this.conn.write(() => {
      const current = this.jobRow(id);
      if (!current) throw new CronStoreError(`no job with id ${id}`);
      const job: CronJob = { ...current, ...patch, id: current.id, createdAt: current.createdAt };
      this.saveJob(job, now);
      return job;
    });
  }

  deleteJob(id: string): Promise<boolean> {
    return this.conn.write(() => this.conn.statement("DELETE FROM cron_jobs WHERE id = ?").run(id).changes > 0);
  }

  dueJobs(now: number): Promise<CronJob[]> {
    return this.conn.read(() => {
      const rows = this.conn
        .statement(
          `SELECT job FROM cron_jobs WHERE enabled = 1 AND state = 'scheduled'
           AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id`,
        )
        .all(now) as JobRow[];
      return rows.map((row) => parseJob(row));
    });
  }

  /** Moves the job's next run from `scheduledFor` to `nextRunAt`; false when it no longer says `scheduledFor`. */
  private advance(jobId: string, scheduledFor: number | null, nextRunAt: number | null, now: number): CronJob | null {
    const job = this.jobRow(jobId);
    if (!job) throw new CronStoreError(`no job with id ${jobId}`);
    // A fire the schedule named (not `hermes cron run`) is claimed once: the next run must still be it.
    if (scheduledFor !== null && job.nextRunAt !== scheduledFor) return null;
    const advanced: CronJob = { ...job, nextRunAt: scheduledFor === null ? job.nextRunAt : nextRunAt, lastRunAt: now };
    this.saveJob(advanced, now);
    return advanced;
  }

  private insertRun(
    jobId: string,
    scheduledFor: number | null,
    status: CronRunStatus,
    reason: string | null,
    now: number,
  ): CronRun {
    const finishedAt = status === "running" ? null : now;
    const info = this.conn
      .statement(
        `INSERT INTO cron_runs (job_id, scheduled_for, started_at, finished_at, status, reason)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(jobId, scheduledFor, now, finishedAt, status, reason);
    return {
      id: Number(info.lastInsertRowid),
      jobId,
      scheduledFor,
      startedAt: now,
      finishedAt,
      status,
      reason,
      outputPath: null,
      deliveries: [],
    };
  }

  claimFire(
    jobId: string,
    scheduledFor: number | null,
    nextRunAt: number | null,
    now = Date.now(),
  ): Promise<CronRun | null> {
    return this.conn.write(() => {
      if (!this.advance(jobId, scheduledFor, nextRunAt, now)) return null;
      return this.insertRun(jobId, scheduledFor, "running", null, now);
    });
  }

  recordSkip(
    jobId: string,
    scheduledFor: number | null,
    reason: string,
    nextRunAt: number | null,
    now = Date.now(),
  ): Promise<CronRun | null> {
    return this.conn.write(() => {
      const job = this.advance(jobId, scheduledFor, nextRunAt, now);
      if (!job) return null;
      this.saveJob({ ...job, lastStatus: "skipped", lastError: reason }, now);
      return this.insertRun(jobId, scheduledFor, "skipped", reason, now);
    });
  }

  finishRun(runId: number, result: CronRunResult, now = Date.now()): Promise<CronRun> {
    return this.conn.write(() => {
      const row = this.conn.statement(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE id = ?`).get(runId) as
        | RunRow
        | undefined;
      if (!row) throw new CronStoreError(`no run ${runId}`);
      if (row.status !== "running") throw new CronStoreError(`run ${runId} already ended (${row.status})`);
      const deliveries = result.deliveries ?? [];
      this.conn
        .statement(
          "UPDATE cron_runs SET finished_at = ?, status = ?, reason = ?, output_path = ?, deliveries = ? WHERE id = ?",
        )
        .run(now, result.status, result.reason ?? null, result.outputPath ?? null, JSON.stringify(deliveries), runId);
      const job = this.jobRow(row.job_id);
      if (job) {
        const failedDelivery = deliveries.find((d) => d.state === "failed");
        const completed = job.repeat.completed + 1;
        // Done when the repeat count is reached, or a scheduled fire left no next one (a one-shot job).
        const done =
          (job.repeat.times !== null && completed >= job.repeat.times) ||
          (row.scheduled_for !== null && job.nextRunAt === null);
        this.saveJob(
          {
            ...job,
            lastStatus: result.status,
            lastError: result.status === "error" || result.status === "timed_out" ? (result.reason ?? null) : null,
            lastDeliveryError: failedDelivery
              ? (failedDelivery.error ?? `delivery to ${failedDelivery.target} failed`)
              : null,
            repeat: { ...job.repeat, completed },
            ...(done ? { state: "completed" as const, nextRunAt: null } : {}),
          },
          now,
        );
      }
      return toRun(this.conn.statement(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE id = ?`).get(runId) as RunRow);
    });
  }

  getRun(runId: number): Promise<CronRun | null> {
    return this.conn.read(() => {
      const row = this.conn.statement(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE id = ?`).get(runId) as
        | RunRow
        | undefined;
      return row ? toRun(row) : null;
    });
  }

  runs(jobId: string, limit = 50): Promise<CronRun[]> {
    return this.conn.read(() =>
      (
        this.conn
          .statement(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?`)
          .all(jobId, limit) as RunRow[]
      ).map((row) => toRun(row)),
    );
  }

  unfinishedRuns(): Promise<CronRun[]> {
    return this.conn.read(() =>
      (
        this.conn
          .statement(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE status = 'running' ORDER BY id`)
          .all() as RunRow[]
      ).map((row) => toRun(row)),
    );
  }

  acquireLease(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    return this.conn.write(() => {
      const row = this.conn.statement("SELECT holder, expires_at FROM cron_leases WHERE name = ?").get(name) as
        | { holder: string; expires_at: number }
        | undefined;
      if (row && row.holder !== holder && row.expires_at > now) return false;
      this.conn
        .statement(
          `INSERT INTO cron_leases (name, holder, expires_at) VALUES (?, ?, ?)
           ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at`,
        )
        .run(name, holder, now + ttlMs);
      return true;
    });
  }

  releaseLease(name: string, holder: string): Promise<void> {
    return this.conn.write(() => {
      this.conn.statement("DELETE FROM cron_leases WHERE name = ? AND holder = ?").run(name, holder);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.conn.close();
  }
}
