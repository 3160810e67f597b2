/**
 * Scheduled jobs and the record of every fire. Job fields follow the original's jobs.json so a
 * migration can carry them over. A fire is claimed atomically (the job's next run moves on in the
 * same transaction that writes its run record), so two tickers never fire a job twice; a lease
 * lets one ticker per deployment do the work. Nothing outside src/state issues SQL.
 */

import { isPostgresUrl } from "./postgres/url.js";

export type CronJobState = "scheduled" | "paused" | "completed" | "blocked";

export interface CronRepeat {
  /** How many fires in all (null: forever). */
  times: number | null;
  completed: number;
}

export interface CronJob {
  /** 12 hex characters. */
  id: string;
  name: string;
  prompt: string;
  skills: string[];
  /** The model, provider and base URL in use when the job was created (null: the defaults at fire time). */
  model: string | null;
  provider: string | null;
  baseUrl: string | null;
  /** A script under $HERMES_HOME/scripts/ whose output feeds the prompt (or is the message, with noAgent). */
  script: string | null;
  noAgent: boolean;
  /** Other jobs whose latest output is given to this one as context. */
  contextFrom: string[];
  /** The schedule as parsed: once at a time, every N minutes, or a cron expression. */
  schedule: CronSchedule;
  /** The schedule as the user wrote it. */
  scheduleDisplay: string;
  repeat: CronRepeat;
  enabled: boolean;
  state: CronJobState;
  pausedAt: number | null;
  pausedReason: string | null;
  createdAt: number;
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastStatus: CronRunStatus | null;
  lastError: string | null;
  lastDeliveryError: string | null;
  /** Where output goes: `local`, `origin`, `all`, a platform, `platform:chat[:thread]`, or a comma list. */
  deliver: string;
  /** Where errors and skips go (null: the origin). */
  failureDeliver: string | null;
  /** The chat a job was created from (platform, chat, thread, user), when it was. */
  origin: CronOrigin | null;
  enabledToolsets: string[] | null;
  workdir: string | null;
}

export type CronSchedule =
  | { kind: "once"; runAt: string }
  | { kind: "interval"; minutes: number }
  | { kind: "cron"; expr: string; tz?: string };

export interface CronOrigin {
  platform: string;
  chatId: string;
  threadId?: string | null;
  userId?: string | null;
  /** The gateway session of the chat the job was made in (`cron.mirror_delivery` writes there). */
  sessionKey?: string | null;
}

export type NewCronJob = Pick<CronJob, "name" | "prompt" | "schedule" | "scheduleDisplay"> &
  Partial<Omit<CronJob, "id" | "createdAt" | "name" | "prompt" | "schedule" | "scheduleDisplay">> & { id?: string };

export type CronJobPatch = Partial<Omit<CronJob, "id" | "createdAt">>;

export type CronRunStatus = "running" | "ok" | "error" | "skipped" | "silent" | "timed_out";

export interface CronDeliveryResult {
  target: string;
  /** queued: recorded in the gateway's ledger; sent: accepted by the platform; local: written only. */
  state: "queued" | "sent" | "local" | "failed";
  error?: string;
}

export interface CronRun {
  id: number;
  jobId: string;
  /** The time the schedule said the fire was due (null for `hermes cron run`). */
  scheduledFor: number | null;
  startedAt: number;
  finishedAt: number | null;
  status: CronRunStatus;
  /** Why it was skipped or failed. */
  reason: string | null;
  outputPath: string | null;
  deliveries: CronDeliveryResult[];
}

export interface CronRunResult {
  status: Exclude<CronRunStatus, "running">;
  reason?: string | null;
  outputPath?: string | null;
  deliveries?: CronDeliveryResult[];
}

export interface CronStore {
  createJob(job: NewCronJob, now?: number): Promise<CronJob>;
  getJob(id: string): Promise<CronJob | null>;
  /** Jobs by creation time; completed ones only with `all`. */
  listJobs(options?: { all?: boolean }): Promise<CronJob[]>;
  updateJob(id: string, patch: CronJobPatch, now?: number): Promise<CronJob>;
  deleteJob(id: string): Promise<boolean>;
  /** Enabled, scheduled jobs whose next run is at or before `now`, soonest first. */
  dueJobs(now: number): Promise<CronJob[]>;
  /**
   * Claims the fire of `jobId` due at `scheduledFor`: only if its next run still says so, it
   * moves to `nextRunAt` (null: no more runs) and a running record is written, in one
   * transaction. null when another ticker claimed it first.
   */
  claimFire(
    jobId: string,
    scheduledFor: number | null,
    nextRunAt: number | null,
    now?: number,
  ): Promise<CronRun | null>;
  /** A fire that did not run (missed beyond the grace, blocked): recorded, and the next run moves on. */
  recordSkip(
    jobId: string,
    scheduledFor: number | null,
    reason: string,
    nextRunAt: number | null,
    now?: number,
  ): Promise<CronRun | null>;
  /** Ends a run and copies its outcome onto the job (last status, error, delivery error, repeat count). */
  finishRun(runId: number, result: CronRunResult, now?: number): Promise<CronRun>;
  getRun(runId: number): Promise<CronRun | null>;
  /** A job's runs, newest first. */
  runs(jobId: string, limit?: number): Promise<CronRun[]>;
  /** Runs still marked running: after a crash, what must be closed as interrupted. */
  unfinishedRuns(): Promise<CronRun[]>;
  /** Takes or renews the named lease for `holder` until now + ttlMs; false while another holds it. */
  acquireLease(name: string, holder: string, ttlMs: number, now?: number): Promise<boolean>;
  releaseLease(name: string, holder: string): Promise<void>;
  close(): void;
}

export class CronStoreError extends Error {
  override name = "CronStoreError";
}

/** The cron store at `path`: the embedded one in a state.db file, or PostgreSQL for a `postgres://` URL. */
export async function openCronStore(path: string): Promise<CronStore> {
  if (isPostgresUrl(path)) {
    const { PgCronStore } = await import("./postgres/cron-store.js");
    return PgCronStore.open(path);
  }
  const { SqliteCronStore } = await import("./sqlite-cron-store.js");
  return SqliteCronStore.open(path);
}
