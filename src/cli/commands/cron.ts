/**
 * `hermes cron list|create|runs|run|tick|pause|resume|remove|status`: scheduled jobs from the
 * terminal. Jobs fire inside `hermes gateway run` (every 60 s) or from `hermes cron tick` under a
 * system timer; either way one process fires each job (a lease in state.db), and every fire
 * leaves a run record (`hermes cron runs <id>`).
 */
import type { Command } from "commander";
import type { CronJob, CronStore } from "../../state/cron-store.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function withCron<T>(body: (cron: CronStore, home: string) => Promise<T>): Promise<T> {
  const { hermesHome } = await import("../../state/paths.js");
  const { openCronStore } = await import("../../state/cron-store.js");
  const { storeLocation } = await import("../../state/store-target.js");
  const home = hermesHome();
  const cron = await openCronStore(await storeLocation(home));
  try {
    return await body(cron, home);
  } finally {
    cron.close();
  }
}

const when = (ms: number | null) => (ms === null ? "-" : new Date(ms).toISOString().replace("T", " ").slice(0, 16));

function describe(job: CronJob): string {
  const state =
    job.state === "scheduled"
      ? `next ${when(job.nextRunAt)}`
      : `${job.state}${job.pausedReason ? ` (${job.pausedReason})` : ""}`;
  const last = job.lastStatus ? `; last ${job.lastStatus}${job.lastError ? `: ${job.lastError}` : ""}` : "";
  return `${job.id}  ${job.name}  [${job.scheduleDisplay}]  → ${job.deliver}  ${state}${last}`;
}

async function findJob(cron: CronStore, id: string): Promise<CronJob> {
  const job = await cron.getJob(id);
  if (!job) throw new UsageError(`no cron job ${id} (hermes cron list --all shows them)`);
  return job;
}

/** Runs `body` with a runtime, the gateway's ledger and the cron store, as a ticker needs them. */
async function withEngine<T>(body: (deps: import("../../cron/run-job.js").CronRunDeps) => Promise<T>): Promise<T> {
  return withCron(async (cron, home) => {
    const { openRuntime } = await import("../../runtime/runtime.js");
    const { openGatewayStore } = await import("../../state/gateway-store.js");
    const runtime = await openRuntime({ home, platform: "cron", toolsets: ["hermes-cron"] });
    const gateway = await openGatewayStore(runtime.storeLocation);
    try {
      const seconds = Number(process.env.HERMES_CRON_TIMEOUT ?? 600);
      return await body({ runtime, cron, gateway, home, timeoutMs: (Number.isFinite(seconds) ? seconds : 600) * 1000 });
    } finally {
      gateway.close();
      await runtime.close();
    }
  });
}

const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);

/** The job fields `create` takes beyond the schedule and prompt: its model, skills, directory, inputs. */
async function jobExtras(opts: Record<string, string | boolean | undefined>) {
  const extra: {
    model?: string;
    provider?: string;
    baseUrl?: string;
    skills?: string[];
    workdir?: string;
    contextFrom?: string[];
  } = {};
  if (typeof opts.model === "string") {
    const { parseModelArgument } = await import("../slash/control-commands.js");
    const { model, provider } = parseModelArgument(opts.model);
    extra.model = model;
    if (provider) extra.provider = provider;
    else if (typeof opts.baseUrl === "string") extra.provider = "custom";
  }
  if (typeof opts.baseUrl === "string") {
    if (!extra.model) throw new UsageError("--base-url goes with --model");
    extra.baseUrl = opts.baseUrl;
  }
  if (typeof opts.skills === "string") extra.skills = list(opts.skills);
  if (typeof opts.workdir === "string") {
    const { isAbsolute, resolve } = await import("node:path");
    const { statSync } = await import("node:fs");
    const dir = isAbsolute(opts.workdir) ? opts.workdir : resolve(opts.workdir);
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--workdir ${dir} is not a directory`);
    extra.workdir = dir;
  }
  if (typeof opts.contextFrom === "string") extra.contextFrom = list(opts.contextFrom);
  return extra;
}

export function registerCronCommands(program: Command, io: CommandIo = processIo): void {
  const cron = program.command("cron").description("scheduled jobs that run the agent and deliver to chats");
  cron
    .command("list")
    .description("jobs, their next fire and last outcome")
    .option("--all", "include completed jobs")
    .action(async (opts: { all?: boolean }) => {
      await withCron(async (store) => {
        const jobs = await store.listJobs({ all: opts.all === true });
        if (jobs.length === 0) io.out("No cron jobs. Create one: hermes cron create 'every 1h' 'summarise my inbox'");
        for (const job of jobs) io.out(describe(job));
      });
    });
  cron
    .command("create <schedule> <prompt>")
    .description("a job: schedule is 30m (once), 'every 2h', a cron expression or an ISO time")
    .option("--name <name>", "a name (default: the start of the prompt)")
    .option("--deliver <targets>", "local, origin, all, a platform, or platform:chat[:thread]; comma list", "local")
    .option("--failure-deliver <targets>", "where errors and skips go (default: origin)")
    .option("--script <file>", "a script under $HERMES_HOME/scripts/ whose output feeds the prompt")
    .option("--no-agent", "deliver the script's output as it is, without the agent")
    .option("--repeat <n>", "fire at most this many times")
    .option("--toolsets <names>", "comma-separated toolsets (default hermes-cron)")
    .option("--model <model>", "run on this model instead of the default (provider/model also names the provider)")
    .option("--base-url <url>", "the endpoint for --model (a custom or self-hosted server)")
    .option("--skills <names>", "comma-separated skills whose instructions go before the prompt")
    .option("--workdir <dir>", "a project directory: commands run there and its AGENTS.md is read")
    .option("--context-from <ids>", "comma-separated jobs (or self) whose latest output goes before the prompt")
    .action(async (schedule: string, prompt: string, opts: Record<string, string | boolean | undefined>) => {
      const { parseSchedule, ScheduleError } = await import("../../cron/schedule.js");
      const { nextRunAfter } = await import("../../cron/timing.js");
      let parsed: ReturnType<typeof parseSchedule>;
      try {
        parsed = parseSchedule(schedule);
      } catch (error) {
        if (error instanceof ScheduleError) throw new UsageError(error.message);
        throw error;
      }
      const repeat = opts.repeat === undefined ? null : Number(opts.repeat);
      if (repeat !== null && !(Number.isInteger(repeat) && repeat > 0))
        throw new UsageError("--repeat must be a whole number above 0");
      if (opts.agent === false && !opts.script)
        throw new UsageError("--no-agent needs --script: there is nothing else to deliver");
      const extra = await jobExtras(opts);
      await withCron(async (store) => {
        for (const other of extra.contextFrom ?? []) {
          if (other !== "self" && !(await store.getJob(other)))
            throw new UsageError(`--context-from: no job ${other} (hermes cron list shows the ids)`);
        }
        const now = Date.now();
        const job = await store.createJob({
          name: (opts.name as string | undefined) ?? prompt.slice(0, 40),
          prompt,
          schedule: parsed,
          scheduleDisplay: schedule,
          nextRunAt: nextRunAfter({ schedule: parsed }, now),
          deliver: opts.deliver as string,
          failureDeliver: (opts.failureDeliver as string | undefined) ?? null,
          script: (opts.script as string | undefined) ?? null,
          noAgent: opts.agent === false,
          repeat: { times: repeat, completed: 0 },
          enabledToolsets: typeof opts.toolsets === "string" ? list(opts.toolsets) : null,
          ...extra,
        });
        io.out(`Created ${describe(job)}`);
      });
    });
  cron
    .command("edit <id>")
    .description("change a job's schedule, prompt, name or delivery")
    .option("--schedule <schedule>", "a new schedule (the next fire is computed from now)")
    .option("--prompt <prompt>", "a new prompt")
    .option("--name <name>", "a new name")
    .option("--deliver <targets>", "new delivery targets")
    .option("--failure-deliver <targets>", "where errors and skips go")
    .action(async (id: string, opts: Record<string, string | undefined>) => {
      const patch: Record<string, unknown> = {};
      if (opts.schedule) {
        const { parseSchedule, ScheduleError } = await import("../../cron/schedule.js");
        const { nextRunAfter } = await import("../../cron/timing.js");
        try {
          const schedule = parseSchedule(opts.schedule);
          Object.assign(patch, {
            schedule,
            scheduleDisplay: opts.schedule,
            nextRunAt: nextRunAfter({ schedule }, Date.now()),
          });
        } catch (error) {
          if (error instanceof ScheduleError) throw new UsageError(error.message);
          throw error;
        }
      }
      if (opts.prompt !== undefined) patch.prompt = opts.prompt;
      if (opts.name !== undefined) patch.name = opts.name;
      if (opts.deliver !== undefined) patch.deliver = opts.deliver;
      if (opts.failureDeliver !== undefined) patch.failureDeliver = opts.failureDeliver;
      if (Object.keys(patch).length === 0)
        throw new UsageError("nothing to change: give --schedule, --prompt, --name or --deliver");
      await withCron(async (store) => {
        await findJob(store, id);
        io.out(describe(await store.updateJob(id, patch)));
      });
    });
  cron
    .command("runs <id>")
    .description("the record of a job's fires, newest first")
    .option("-n, --limit <n>", "how many", "20")
    .action(async (id: string, opts: { limit: string }) => {
      await withCron(async (store) => {
        await findJob(store, id);
        for (const run of await store.runs(id, Number(opts.limit) || 20)) {
          const sent = run.deliveries.map((d) => `${d.target}:${d.state}${d.error ? ` (${d.error})` : ""}`).join(", ");
          io.out(
            `#${run.id}  ${when(run.startedAt)}  ${run.status}${run.reason ? `: ${run.reason}` : ""}${sent ? `  → ${sent}` : ""}`,
          );
        }
      });
    });
  for (const [name, state, summary] of [
    ["pause", "paused", "stop a job firing until resumed"],
    ["resume", "scheduled", "let a paused or blocked job fire again"],
  ] as const) {
    cron
      .command(`${name} <id>`)
      .description(summary)
      .action(async (id: string) => {
        await withCron(async (store) => {
          const job = await findJob(store, id);
          const { nextRunAfterNow, nextRunAfter } = await import("../../cron/timing.js");
          const now = Date.now();
          const patch =
            state === "paused"
              ? { state, pausedAt: now, pausedReason: "paused with hermes cron pause" }
              : {
                  state,
                  pausedAt: null,
                  pausedReason: null,
                  nextRunAt:
                    job.nextRunAt && job.nextRunAt > now
                      ? job.nextRunAt
                      : job.nextRunAt
                        ? nextRunAfterNow(job, job.nextRunAt, now)
                        : nextRunAfter(job, now),
                };
          io.out(describe(await store.updateJob(id, patch)));
        });
      });
  }
  cron
    .command("remove <id>")
    .description("delete a job (its outputs stay on disk)")
    .action(async (id: string) => {
      await withCron(async (store) => {
        if (!(await store.deleteJob(id))) throw new UsageError(`no cron job ${id}`);
        io.out(`Removed ${id}.`);
      });
    });
  cron
    .command("status")
    .description("whether a gateway fires jobs, what is next, and deliveries still waiting")
    .action(async () => {
      await withCron(async (store, home) => {
        const { storeLocation } = await import("../../state/store-target.js");
        const { runningGateway } = await import("../gateway-service.js");
        const { openGatewayStore } = await import("../../state/gateway-store.js");
        const gateway = runningGateway(home);
        io.out(
          gateway
            ? `A gateway (pid ${gateway.pid}) fires jobs every 60 s and sends their deliveries.`
            : "No gateway is running: jobs fire only on hermes cron tick, and deliveries wait in the ledger until a gateway starts.",
        );
        const jobs = await store.listJobs();
        const next = jobs
          .filter((j) => j.state === "scheduled" && j.nextRunAt !== null)
          .sort((a, b) => (a.nextRunAt ?? 0) - (b.nextRunAt ?? 0))[0];
        const blocked = jobs.filter((j) => j.state === "blocked");
        io.out(`${jobs.length} job(s); next fire: ${next ? `${next.name} at ${when(next.nextRunAt)}` : "none"}`);
        for (const job of blocked) io.out(`blocked: ${job.id} ${job.name}: ${job.pausedReason ?? ""}`);
        const ledger = await openGatewayStore(await storeLocation(home));
        try {
          const waiting = (await ledger.dueDeliveries(Number.MAX_SAFE_INTEGER, 1000)).filter((d) =>
            d.sessionKey?.startsWith("cron:"),
          );
          io.out(`${waiting.length} cron deliver${waiting.length === 1 ? "y" : "ies"} waiting in the ledger`);
        } finally {
          ledger.close();
        }
      });
    });
  cron
    .command("tick")
    .description("fire what is due, once (for a system timer when no gateway runs)")
    .action(async () => {
      await withEngine(async (deps) => {
        const { CronTicker } = await import("../../cron/ticker.js");
        const ticker = new CronTicker(deps);
        await ticker.closeInterrupted();
        const report = await ticker.tick();
        await ticker.stop();
        if (!report.leader) io.out("Another process is the ticker right now (a running gateway); nothing fired here.");
        else io.out(`Fired ${report.fired.length}, skipped ${report.skipped.length}.`);
      });
    });
  cron
    .command("run <id>")
    .description("run a job now, through the same path as the ticker, and record the run")
    .action(async (id: string) => {
      await withEngine(async (deps) => {
        const job = await findJob(deps.cron, id);
        const { executeRun } = await import("../../cron/run-job.js");
        const run = await deps.cron.claimFire(id, null, null);
        if (!run) throw new UsageError(`could not start ${id}`);
        const ended = await executeRun(deps, job, run);
        io.out(
          `#${ended.id} ${ended.status}${ended.reason ? `: ${ended.reason}` : ""}${ended.outputPath ? `\noutput: ${ended.outputPath}` : ""}`,
        );
        if (ended.deliveries.some((d) => d.state === "queued")) {
          io.out(
            "Deliveries are queued in the gateway's ledger; a running gateway sends them (hermes gateway status).",
          );
        }
        if (ended.status === "error" || ended.status === "timed_out") process.exitCode = 1;
      });
    });
}
