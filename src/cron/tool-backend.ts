/**
 * The scheduler behind the agent's `cronjob` tool: schedules parsed and checked here, jobs kept
 * in the CronStore. A job made from a chat remembers the chat, and delivers there by default.
 */
import type { CronJob, CronStore } from "../state/cron-store.js";
import type { CronToolBackend, CronToolJobSpec, CronToolOrigin } from "../tools/builtin/cronjob.js";
import { parseSchedule } from "./schedule.js";
import { nextRunAfter, nextRunAfterNow } from "./timing.js";

function view(job: CronJob) {
  return {
    id: job.id,
    name: job.name,
    schedule: job.scheduleDisplay,
    deliver: job.deliver,
    state: job.state,
    next_run: job.nextRunAt === null ? null : new Date(job.nextRunAt).toISOString(),
    last_status: job.lastStatus,
    ...(job.lastError ? { last_error: job.lastError } : {}),
  };
}

/** Whether `job` belongs to the chat `scope` (no scope: every job, as in the terminal). */
function inScope(job: CronJob, scope: CronToolOrigin | null | undefined): boolean {
  if (!scope) return true;
  return job.origin?.platform === scope.platform && job.origin.chatId === scope.chatId;
}

export function cronToolBackend(store: CronStore, now: () => number = Date.now): CronToolBackend {
  const find = async (id: string, scope?: CronToolOrigin | null) => {
    const job = await store.getJob(id);
    // Another chat's job is reported exactly like a missing one.
    if (!job || !inScope(job, scope)) throw new Error(`no job ${id}; list shows the ids`);
    return job;
  };
  const schedulePatch = (text: string) => {
    const schedule = parseSchedule(text);
    return { schedule, scheduleDisplay: text, nextRunAt: nextRunAfter({ schedule }, now()) };
  };
  return {
    async create(spec, origin: CronToolOrigin | null) {
      const job = await store.createJob({
        name: spec.name ?? spec.prompt.slice(0, 40),
        prompt: spec.prompt,
        ...schedulePatch(spec.schedule),
        deliver: spec.deliver ?? (origin ? "origin" : "local"),
        origin: origin ? { ...origin } : null,
        repeat: { times: spec.repeat ?? null, completed: 0 },
      });
      return view(job);
    },
    async list(scope) {
      return (await store.listJobs()).filter((job) => inScope(job, scope)).map(view);
    },
    async update(id, spec: CronToolJobSpec, scope) {
      await find(id, scope);
      const patch = {
        ...(spec.schedule ? schedulePatch(spec.schedule) : {}),
        ...(spec.prompt !== undefined ? { prompt: spec.prompt } : {}),
        ...(spec.name !== undefined ? { name: spec.name } : {}),
        ...(spec.deliver !== undefined ? { deliver: spec.deliver } : {}),
      };
      return view(await store.updateJob(id, patch));
    },
    async pause(id, scope) {
      await find(id, scope);
      return view(await store.updateJob(id, { state: "paused", pausedAt: now(), pausedReason: "paused by the agent" }));
    },
    async resume(id, scope) {
      const job = await find(id, scope);
      const at = now();
      const next =
        job.nextRunAt !== null && job.nextRunAt > at
          ? job.nextRunAt
          : job.nextRunAt !== null
            ? nextRunAfterNow(job, job.nextRunAt, at)
            : nextRunAfter(job, at);
      return view(
        await store.updateJob(id, { state: "scheduled", pausedAt: null, pausedReason: null, nextRunAt: next }),
      );
    },
    async remove(id, scope) {
      await find(id, scope);
      return store.deleteJob(id);
    },
    async runSoon(id, scope) {
      await find(id, scope);
      return view(await store.updateJob(id, { state: "scheduled", nextRunAt: now() }));
    },
  };
}
