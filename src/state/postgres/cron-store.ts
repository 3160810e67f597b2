/**
 * Cron jobs, runs and the ticker lease in PostgreSQL: the same rows as the embedded store
 * (sqlite-cron-store.ts). Where SQLite's single writer made a claim atomic, here the job's row is
 * locked (`SELECT ... FOR UPDATE`) for the transaction that checks its next run, moves it on and
 * writes the run record, so replicas sharing the database fire each due time once; the unique
 * index on (job_id, scheduled_for) backs that up. A lease is taken or renewed in one upsert.
 */

import { type JobRow, parseJob, RUN_COLUMNS, type RunRow, toRun, withDefaults } from "../cron-codec.js";
import {
  type CronJob,
  type CronJobPatch,
  type CronRun,
  type CronRunResult,
  type CronRunStatus,
  type CronStore,
  CronStoreError,
  type NewCronJob,
} from "../cron-store.js";
import { PgConnection, type Queryable } from "./connection.js";
import { fromPgText, toPgText } from "./text.js";

// Every text column goes through the escape of text.ts (PostgreSQL text cannot hold U+0000), as
// copy-from-sqlite.ts writes them.
const jobOf = (row: JobRow) => parseJob(row, fromPgText);
const runOf = (row: RunRow) => toRun(row, fromPgText);

export class PgCronStore implements CronStore {
  private closed = false;

  private constructor(private readonly conn: PgConnection) {}

  static async open(url: string): Promise<PgCronStore> {
    return new PgCronStore(await PgConnection.open(url));
  }

  get location(): string {
    return this.conn.location;
  }

  private guard<T>(work: () => Promise<T>): Promise<T> {
    return this.conn.guard(work);
  }

  private async jobRow(db: Queryable, id: string, lock = false): Promise<CronJob | null> {
    const { rows } = await db.query<JobRow>(`SELECT job FROM cron_jobs WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [
      toPgText(id),
    ]);
    return rows[0] ? jobOf(rows[0]) : null;
  }

  private async saveJob(db: Queryable, job: CronJob, now: number): Promise<void> {
    await db.query(
      `INSERT INTO cron_jobs (id, name, enabled, state, next_run_at, created_at, updated_at, job)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, enabled = excluded.enabled, state = excluded.state,
         next_run_at = excluded.next_run_at, updated_at = excluded.updated_at, job = excluded.job`,
      [
        job.id,
        toPgText(job.name),
        job.enabled ? 1 : 0,
        job.state,
        job.nextRunAt,
        job.createdAt,
        now,
        toPgText(JSON.stringify(job)),
      ],
    );
  }

  createJob(input: NewCronJob, now = Date.now()): Promise<CronJob> {
    return this.guard(async () => {
      const job = withDefaults(input, now);
      if (!/^[0-9a-f]{12}$/.test(job.id)) throw new CronStoreError(`job id "${job.id}" is not 12 hex characters`);
      const { rows } = await this.conn.pool.query(
        `INSERT INTO cron_jobs (id, name, enabled, state, next_run_at, created_at, updated_at, job)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          job.id,
          toPgText(job.name),
          job.enabled ? 1 : 0,
          job.state,
          job.nextRunAt,
          job.createdAt,
          now,
          toPgText(JSON.stringify(job)),
        ],
      );
      if (rows.length === 0) throw new CronStoreError(`a job with id ${job.id} already exists`);
      return job;
    });
  }

  getJob(id: string): Promise<CronJob | null> {
    return this.guard(() => this.jobRow(this.conn.pool, id));
  }

  listJobs(options: { all?: boolean } = {}): Promise<CronJob[]> {
    return this.guard(async () => {
      const rows = await this.conn.query<JobRow>(
        options.all
          ? `SELECT job FROM cron_jobs ORDER BY created_at, id COLLATE "C"`
          : `SELECT job FROM cron_jobs WHERE state != 'completed' ORDER BY created_at, id COLLATE "C"`,
      );
      return rows.map(jobOf);
    });
  }

  updateJob(id: string, patch: CronJobPatch, now = Date.now()): Promise<CronJob> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        const current = await this.jobRow(db, id, true);
        if (!current) throw new CronStoreError(`no job with id ${id}`);
        const job: CronJob = { ...current, ...patch, id: current.id, createdAt: current.createdAt };
        await this.saveJob(db, job, now);
        return job;
      }),
    );
  }

  deleteJob(id: string): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.conn.pool.query("DELETE FROM cron_jobs WHERE id = $1", [toPgText(id)]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  dueJobs(now: number): Promise<CronJob[]> {
    return this.guard(async () => {
      const rows = await this.conn.query<JobRow>(
        `SELECT job FROM cron_jobs WHERE enabled = 1 AND state = 'scheduled'
         AND next_run_at IS NOT NULL AND next_run_at <= $1 ORDER BY next_run_at, id COLLATE "C"`,
        [now],
      );
      return rows.map(jobOf);
    });
  }

  /**
   * Inside a transaction: locks the job, and when its next run still says `scheduledFor` (or this
   * is a manual run) writes the run record and moves the next run on. null when the fire is not
   * this caller's: the job moved on, or (a due time scheduled again) that time already has a record.
   */
  private async fire(
    db: Queryable,
    jobId: string,
    scheduledFor: number | null,
    nextRunAt: number | null,
    status: CronRunStatus,
    reason: string | null,
    now: number,
  ): Promise<{ job: CronJob; run: CronRun | null } | null> {
    const job = await this.jobRow(db, jobId, true);
    if (!job) throw new CronStoreError(`no job with id ${jobId}`);
    // A fire the schedule named (not `hermes cron run`) is claimed once: the next run must still be it.
    if (scheduledFor !== null && job.nextRunAt !== scheduledFor) return null;
    const advanced: CronJob = { ...job, nextRunAt: scheduledFor === null ? job.nextRunAt : nextRunAt, lastRunAt: now };
    const finishedAt = status === "running" ? null : now;
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO cron_runs (job_id, scheduled_for, started_at, finished_at, status, reason)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (job_id, scheduled_for) WHERE scheduled_for IS NOT NULL DO NOTHING RETURNING id`,
      [toPgText(jobId), scheduledFor, now, finishedAt, status, toPgText(reason)],
    );
    const run: CronRun | null = rows[0]
      ? {
          id: rows[0].id,
          jobId,
          scheduledFor,
          startedAt: now,
          finishedAt,
          status,
          reason,
          outputPath: null,
          deliveries: [],
        }
      : null;
    return { job: advanced, run };
  }

  claimFire(
    jobId: string,
    scheduledFor: number | null,
    nextRunAt: number | null,
    now = Date.now(),
  ): Promise<CronRun | null> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        const fired = await this.fire(db, jobId, scheduledFor, nextRunAt, "running", null, now);
        if (!fired) return null;
        // Moved on even when the due time already had its record, so it is not due for ever.
        await this.saveJob(db, fired.job, now);
        return fired.run;
      }),
    );
  }

  recordSkip(
    jobId: string,
    scheduledFor: number | null,
    reason: string,
    nextRunAt: number | null,
    now = Date.now(),
  ): Promise<CronRun | null> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        const fired = await this.fire(db, jobId, scheduledFor, nextRunAt, "skipped", reason, now);
        if (!fired) return null;
        await this.saveJob(db, fired.run ? { ...fired.job, lastStatus: "skipped", lastError: reason } : fired.job, now);
        return fired.run;
      }),
    );
  }

  finishRun(runId: number, result: CronRunResult, now = Date.now()): Promise<CronRun> {
    return this.guard(() =>
      this.conn.transaction(async (db) => {
        const { rows } = await db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE id = $1 FOR UPDATE`, [
          runId,
        ]);
        const row = rows[0];
        if (!row) throw new CronStoreError(`no run ${runId}`);
        if (row.status !== "running") throw new CronStoreError(`run ${runId} already ended (${row.status})`);
        const deliveries = result.deliveries ?? [];
        const updated = await db.query<RunRow>(
          `UPDATE cron_runs SET finished_at = $1, status = $2, reason = $3, output_path = $4, deliveries = $5
           WHERE id = $6 RETURNING ${RUN_COLUMNS}`,
          [
            now,
            result.status,
            toPgText(result.reason ?? null),
            toPgText(result.outputPath ?? null),
            toPgText(JSON.stringify(deliveries)),
            runId,
          ],
        );
        const job = await this.jobRow(db, row.job_id, true);
        if (job) {
          const failedDelivery = deliveries.find((d) => d.state === "failed");
          const completed = job.repeat.completed + 1;
          // Done when the repeat count is reached, or a scheduled fire left no next one (a one-shot job).
          const done =
            (job.repeat.times !== null && completed >= job.repeat.times) ||
            (row.scheduled_for !== null && job.nextRunAt === null);
          await this.saveJob(
            db,
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
        return runOf(updated.rows[0]!);
      }),
    );
  }

  getRun(runId: number): Promise<CronRun | null> {
    return this.guard(async () => {
      const rows = await this.conn.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE id = $1`, [runId]);
      return rows[0] ? runOf(rows[0]) : null;
    });
  }

  runs(jobId: string, limit = 50): Promise<CronRun[]> {
    return this.guard(async () =>
      (
        await this.conn.query<RunRow>(
          `SELECT ${RUN_COLUMNS} FROM cron_runs WHERE job_id = $1 ORDER BY id DESC LIMIT $2`,
          // SQLite reads a negative limit as none.
          [toPgText(jobId), limit < 0 ? null : limit],
        )
      ).map((row) => runOf(row)),
    );
  }

  unfinishedRuns(): Promise<CronRun[]> {
    return this.guard(async () =>
      (await this.conn.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM cron_runs WHERE status = 'running' ORDER BY id`)).map(
        runOf,
      ),
    );
  }

  acquireLease(name: string, holder: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    // One statement: a concurrent taker waits on the row and then sees the lease as it left it.
    return this.guard(async () => {
      const rows = await this.conn.query(
        `INSERT INTO cron_leases (name, holder, expires_at) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE cron_leases.holder = excluded.holder OR cron_leases.expires_at <= $4
         RETURNING name`,
        [toPgText(name), toPgText(holder), now + ttlMs, now],
      );
      return rows.length > 0;
    });
  }

  releaseLease(name: string, holder: string): Promise<void> {
    return this.guard(async () => {
      await this.conn.query("DELETE FROM cron_leases WHERE name = $1 AND holder = $2", [
        toPgText(name),
        toPgText(holder),
      ]);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.conn.close();
  }
}
