/**
 * The scheduler behind the agent's `cronjob` tool: schedules parsed and checked here, jobs kept
 * in the CronStore. A job made from a chat remembers the chat, and delivers there by default.
 */

import type { CronJob, CronStore } from "../state/cron-store.js";
import { hermesHome } from "../state/paths.js";
import type { CronToolBackend, CronToolJobSpec, CronToolOrigin } from "../tools/builtin/cronjob.js";
import { CRON_FIELD_NAMES, type CronJobFieldsInput, cronJobFields } from "./job-fields.js";
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
    repeat: job.repeat.times === null ? "forever" : `${job.repeat.completed}/${job.repeat.times}`,
    last_status: job.lastStatus,
    ...(job.lastError ? { last_error: job.lastError } : {}),
    ...(job.skills.length ? { skills: job.skills } : {}),
    ...(job.script ? { script: job.script } : {}),
    ...(job.noAgent ? { no_agent: true } : {}),
    ...(job.contextFrom.length ? { context_from: job.contextFrom } : {}),
    ...(job.enabledToolsets ? { enabled_toolsets: job.enabledToolsets } : {}),
    ...(job.workdir ? { workdir: job.workdir } : {}),
    ...(job.model ? { model: job.model } : {}),
    ...(job.provider ? { provider: job.provider } : {}),
    ...(job.baseUrl ? { base_url: job.baseUrl } : {}),
  };
}

export interface CronToolBackendOptions {
  now?: () => number;
  /** Where scripts and skills are found (default: the current Hermes home). */
  home?: string;
  /** Hosts config.yaml already sends a key to; a job's base URL may name them (see job-fields.ts). */
  configuredHosts?: ReadonlySet<string>;
  /** `skills.external_dirs`, resolved. */
  externalDirs?: readonly string[];
}

function fieldsInput(spec: CronToolJobSpec): CronJobFieldsInput {
  const input: Record<string, unknown> = {};
  for (const name of CRON_FIELD_NAMES) if (spec[name] !== undefined) input[name] = spec[name];
  return input as CronJobFieldsInput;
}

/** Whether `job` belongs to the chat `scope` (no scope: every job, as in the terminal). */
function inScope(job: CronJob, scope: CronToolOrigin | null | undefined): boolean {
  if (!scope) return true;
  return job.origin?.platform === scope.platform && job.origin.chatId === scope.chatId;
}

export function cronToolBackend(store: CronStore, options: CronToolBackendOptions = {}): CronToolBackend {
  const now = options.now ?? Date.now;
  const home = options.home ?? hermesHome();
  const configuredHosts = options.configuredHosts ?? new Set<string>();
  const fields = (spec: CronToolJobSpec, current: CronJob | null, scope: CronToolOrigin | null | undefined) =>
    cronJobFields(fieldsInput(spec), current, {
      home,
      configuredHosts,
      ...(options.externalDirs ? { externalDirs: options.externalDirs } : {}),
      canSee: async (id) => {
        const job = await store.getJob(id);
        return job !== null && inScope(job, scope);
      },
    });
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
      const extra = await fields(spec, null, origin);
      const job = await store.createJob({
        ...extra,
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
      const current = await find(id, scope);
      const patch = {
        ...(await fields(spec, current, scope)),
        ...(spec.schedule ? schedulePatch(spec.schedule) : {}),
        ...(spec.prompt !== undefined ? { prompt: spec.prompt } : {}),
        ...(spec.name !== undefined ? { name: spec.name } : {}),
        ...(spec.deliver !== undefined ? { deliver: spec.deliver } : {}),
        ...(spec.repeat !== undefined ? { repeat: { ...current.repeat, times: spec.repeat } } : {}),
      };
      if (Object.keys(patch).length === 0) throw new Error("update needs at least one field to change");
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
