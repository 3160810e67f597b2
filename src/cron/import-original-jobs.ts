/**
 * The original Python Hermes kept its scheduled jobs in `$HERMES_HOME/cron/jobs.json`
 * (`{"jobs": [...]}`, times as ISO strings). This copies them into the cron store under their own
 * ids, so `hermes cron` and the ticker take them over; outputs already sit where ours go
 * (`cron/output/<id>/`), so `context_from` keeps working. The file is never changed, and jobs
 * already in the store are left as they are.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CronJobState, CronOrigin, CronSchedule, CronStore, NewCronJob } from "../state/cron-store.js";
import { nextRunAfter } from "./timing.js";

export interface JobsImportReport {
  path: string;
  inFile: number;
  added: string[];
  alreadyHere: string[];
  /** Entries that could not be read, with why. */
  refused: string[];
}

type Raw = Record<string, unknown>;

const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value : null);
const list = (value: unknown): string[] =>
  Array.isArray(value)
    ? value.filter((item): item is string => typeof item === "string" && item.trim() !== "")
    : typeof value === "string" && value.trim()
      ? value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean)
      : [];

/** An ISO time (naive ones are local time, as the original wrote them) or epoch seconds, as epoch ms. */
function time(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return Math.round(value < 1e11 ? value * 1000 : value);
  if (typeof value !== "string" || !value.trim()) return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

function schedule(raw: unknown): CronSchedule {
  if (!raw || typeof raw !== "object") throw new Error("it has no schedule");
  const s = raw as Raw;
  if (s.kind === "interval" && typeof s.minutes === "number" && s.minutes > 0) {
    return { kind: "interval", minutes: s.minutes };
  }
  if (s.kind === "cron" && text(s.expr)) {
    return text(s.tz)
      ? { kind: "cron", expr: s.expr as string, tz: s.tz as string }
      : { kind: "cron", expr: s.expr as string };
  }
  const runAt = text(s.run_at);
  if (s.kind === "once" && runAt && !Number.isNaN(Date.parse(runAt))) {
    return { kind: "once", runAt: new Date(Date.parse(runAt)).toISOString() };
  }
  throw new Error(`its schedule ${JSON.stringify(raw)} is not one this version runs`);
}

function origin(raw: unknown): CronOrigin | null {
  if (!raw || typeof raw !== "object") return null;
  const o = raw as Raw;
  const platform = text(o.platform);
  const chatId = o.chat_id === undefined || o.chat_id === null ? null : String(o.chat_id);
  if (!platform || !chatId) return null;
  return {
    platform,
    chatId,
    threadId: o.thread_id === undefined || o.thread_id === null ? null : String(o.thread_id),
    userId: o.user_id === undefined || o.user_id === null ? null : String(o.user_id),
  };
}

function state(raw: Raw, nextRunAt: number | null): CronJobState {
  if (raw.state === "completed") return "completed";
  if (raw.state === "paused" || raw.enabled === false) return "paused";
  return nextRunAt === null ? "completed" : "scheduled";
}

/** One entry of jobs.json as a job for our store; throws with why when it cannot be read. */
export function jobFromOriginal(raw: Raw, now = Date.now()): NewCronJob & { id: string } {
  const id = text(raw.id);
  if (!id || !/^[0-9a-f]{12}$/.test(id)) throw new Error("its id is not 12 hex characters");
  const prompt = typeof raw.prompt === "string" ? raw.prompt : "";
  const parsed = schedule(raw.schedule);
  // A job the original had not scheduled yet gets its next time from now.
  const nextRunAt = time(raw.next_run_at) ?? nextRunAfter({ schedule: parsed }, now);
  const repeat = (raw.repeat ?? {}) as Raw;
  const jobState = state(raw, nextRunAt);
  const deliver = Array.isArray(raw.deliver) ? list(raw.deliver).join(",") : (text(raw.deliver) ?? "local");
  return {
    id,
    name: text(raw.name) ?? prompt.slice(0, 50),
    prompt,
    skills: [...list(raw.skills), ...list(raw.skill)],
    model: text(raw.model),
    provider: text(raw.provider),
    baseUrl: text(raw.base_url),
    script: text(raw.script),
    noAgent: raw.no_agent === true,
    contextFrom: list(raw.context_from),
    schedule: parsed,
    scheduleDisplay: text(raw.schedule_display) ?? text((raw.schedule as Raw).display) ?? parsed.kind,
    repeat: {
      times: typeof repeat.times === "number" ? repeat.times : null,
      completed: typeof repeat.completed === "number" ? repeat.completed : 0,
    },
    enabled: jobState === "scheduled",
    state: jobState,
    pausedAt: time(raw.paused_at),
    pausedReason: text(raw.paused_reason),
    nextRunAt: jobState === "completed" ? null : nextRunAt,
    lastRunAt: time(raw.last_run_at),
    lastError: text(raw.last_error),
    lastDeliveryError: text(raw.last_delivery_error),
    deliver,
    failureDeliver: text(raw.failure_deliver),
    origin: origin(raw.origin),
    enabledToolsets: Array.isArray(raw.enabled_toolsets) ? list(raw.enabled_toolsets) : null,
    workdir: text(raw.workdir),
  };
}

export async function importOriginalJobs(home: string, store: CronStore): Promise<JobsImportReport> {
  const path = join(home, "cron", "jobs.json");
  const report: JobsImportReport = { path, inFile: 0, added: [], alreadyHere: [], refused: [] };
  if (!existsSync(path)) return report;
  let entries: unknown;
  try {
    entries = (JSON.parse(readFileSync(path, "utf8")) as { jobs?: unknown }).jobs;
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${(error as Error).message}); nothing was imported from it`);
  }
  if (!Array.isArray(entries)) throw new Error(`${path} has no "jobs" list; nothing was imported from it`);
  report.inFile = entries.length;
  for (const [index, entry] of entries.entries()) {
    const raw = (entry ?? {}) as Raw;
    let job: NewCronJob & { id: string };
    try {
      job = jobFromOriginal(raw);
    } catch (error) {
      report.refused.push(`job ${text(raw.id) ?? `#${index + 1}`}: ${(error as Error).message}`);
      continue;
    }
    if (await store.getJob(job.id)) {
      report.alreadyHere.push(job.id);
      continue;
    }
    await store.createJob(job, time(raw.created_at) ?? Date.now());
    report.added.push(job.id);
  }
  return report;
}
