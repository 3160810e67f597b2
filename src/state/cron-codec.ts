/**
 * Rows of the cron tables as both stores read them (sqlite-cron-store.ts, postgres/cron-store.ts)
 * and the defaults a new job gets. `text` decodes a stored text column (PostgreSQL escapes what
 * its text type cannot hold); the embedded store passes it through.
 */
import { randomBytes } from "node:crypto";
import type { CronDeliveryResult, CronJob, CronRun, CronRunStatus, NewCronJob } from "./cron-store.js";

export interface JobRow {
  job: string;
}

export interface RunRow {
  id: number;
  job_id: string;
  scheduled_for: number | null;
  started_at: number;
  finished_at: number | null;
  status: string;
  reason: string | null;
  output_path: string | null;
  deliveries: string;
}

export const RUN_COLUMNS =
  "id, job_id, scheduled_for, started_at, finished_at, status, reason, output_path, deliveries";

type TextDecoder = <T extends string | null>(value: T) => T;
const asStored: TextDecoder = (value) => value;

export function parseJob(row: JobRow, text: TextDecoder = asStored): CronJob {
  return JSON.parse(text(row.job)) as CronJob;
}

export function toRun(row: RunRow, text: TextDecoder = asStored): CronRun {
  return {
    id: row.id,
    jobId: text(row.job_id),
    scheduledFor: row.scheduled_for,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    status: row.status as CronRunStatus,
    reason: text(row.reason),
    outputPath: text(row.output_path),
    deliveries: JSON.parse(text(row.deliveries)) as CronDeliveryResult[],
  };
}

export function newJobId(): string {
  return randomBytes(6).toString("hex");
}

export function withDefaults(input: NewCronJob, now: number): CronJob {
  return {
    id: input.id ?? newJobId(),
    name: input.name,
    prompt: input.prompt,
    skills: input.skills ?? [],
    model: input.model ?? null,
    provider: input.provider ?? null,
    baseUrl: input.baseUrl ?? null,
    script: input.script ?? null,
    noAgent: input.noAgent ?? false,
    contextFrom: input.contextFrom ?? [],
    schedule: input.schedule,
    scheduleDisplay: input.scheduleDisplay,
    repeat: input.repeat ?? { times: null, completed: 0 },
    enabled: input.enabled ?? true,
    state: input.state ?? "scheduled",
    pausedAt: input.pausedAt ?? null,
    pausedReason: input.pausedReason ?? null,
    createdAt: now,
    nextRunAt: input.nextRunAt ?? null,
    lastRunAt: input.lastRunAt ?? null,
    lastStatus: input.lastStatus ?? null,
    lastError: input.lastError ?? null,
    lastDeliveryError: input.lastDeliveryError ?? null,
    deliver: input.deliver ?? "local",
    failureDeliver: input.failureDeliver ?? null,
    origin: input.origin ?? null,
    enabledToolsets: input.enabledToolsets ?? null,
    workdir: input.workdir ?? null,
  };
}
