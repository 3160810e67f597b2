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

export function cronToolBackend(store: CronStore, now: () => number = Date.now): CronToolBackend {
  const find = async (id: string) => {
    const job = await store.getJob(id);
    if (!job) throw new Error(`no job ${id}; list shows the ids`);
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
    async list() {
      return (await store.listJobs()).map(view);
    },
    async update(id, spec: CronToolJobSpec) {
      await find(id);
      const patch = {
        ...(spec.schedule ? schedulePatch(spec.schedule) : {}),
        ...(spec.prompt !== undefined ? { prompt: spec.prompt } : {}),
        ...(spec.name !== undefined ? { name: spec.name } : {}),
        ...(spec.deliver !== undefined ? { deliver: spec.deliver } : {}),
      };
      return view(await store.updateJob(id, patch));
    },
    async pause(id) {
      await find(id);
      return view(await store.updateJob(id, { state: "paused", pausedAt: now(), pausedReason: "paused by the agent" }));
    },
    async resume(id) {
      const job = await find(id);
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
    async remove(id) {
      await find(id);
      return store.deleteJob(id);
    },
    async runSoon(id) {
      await find(id);
      return view(await store.updateJob(id, { state: "scheduled", nextRunAt: now() }));
    },
  };
}
