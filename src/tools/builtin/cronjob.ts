/**
 * The `cronjob` tool: the agent schedules, lists and manages jobs for the user ("every morning,
 * summarise my inbox and send it here"). The jobs themselves live behind `CronToolBackend`,
 * which the surface that runs a ticker registers with the tool; a job made from a chat records
 * that chat as its origin, so `deliver: origin` answers there.
 */
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";

/** The chat a tool call came from (the gateway passes it as `ctx.services.cronOrigin`). */
export interface CronToolOrigin {
  platform: string;
  chatId: string;
  threadId?: string | null;
  userId?: string | null;
  /** The chat's gateway session, for `cron.mirror_delivery`. */
  sessionKey?: string | null;
}

export interface CronToolJobSpec {
  schedule?: string;
  prompt?: string;
  name?: string;
  deliver?: string;
  repeat?: number;
  skills?: string[];
  script?: string;
  no_agent?: boolean;
  context_from?: string[];
  enabled_toolsets?: string[];
  workdir?: string;
  model?: string;
  provider?: string;
  base_url?: string;
}

/**
 * What the tool needs from the scheduler; every method returns a JSON-able result or throws a
 * readable error. With a `scope` (the chat a call comes from), only that chat's jobs are seen.
 */
export interface CronToolBackend {
  create(spec: CronToolJobSpec & { schedule: string; prompt: string }, origin: CronToolOrigin | null): Promise<unknown>;
  list(scope?: CronToolOrigin | null): Promise<unknown[]>;
  update(id: string, spec: CronToolJobSpec, scope?: CronToolOrigin | null): Promise<unknown>;
  pause(id: string, scope?: CronToolOrigin | null): Promise<unknown>;
  resume(id: string, scope?: CronToolOrigin | null): Promise<unknown>;
  remove(id: string, scope?: CronToolOrigin | null): Promise<unknown>;
  /** Makes the job due now; the ticker runs it at its next pass. */
  runSoon(id: string, scope?: CronToolOrigin | null): Promise<unknown>;
}

export const cronjobParameters = z.object({
  action: z
    .enum(["create", "list", "update", "pause", "resume", "remove", "run"])
    .describe("What to do; run makes the job fire at the next tick (within a minute)"),
  job_id: z.string().optional().describe("The job (12 hex characters) for update, pause, resume, remove and run"),
  schedule: z
    .string()
    .optional()
    .describe(
      "For create/update: 30m (once, from now), 'every 2h', a cron expression like '0 9 * * 1-5', or an ISO time",
    ),
  prompt: z.string().optional().describe("For create/update: what the agent should do each time, self-contained"),
  name: z.string().optional().describe("A short name"),
  deliver: z
    .string()
    .optional()
    .describe(
      "Where results go: origin (this chat, the default from a chat), local, all, a platform, or platform:chat_id",
    ),
  repeat: z.number().int().min(1).optional().describe("Fire at most this many times"),
  skills: z
    .array(z.string())
    .optional()
    .describe("Installed skills whose instructions each run follows, in order; [] clears"),
  script: z
    .string()
    .optional()
    .describe("A script file in the scripts folder of the Hermes home; its output is given to each run; '' clears"),
  no_agent: z.boolean().optional().describe("With script: deliver the script's output as it is, no model call"),
  context_from: z
    .array(z.string())
    .optional()
    .describe("Jobs (ids, or 'self') whose latest output each run gets as context; [] clears"),
  enabled_toolsets: z.array(z.string()).optional().describe("Limit runs to these toolsets; [] restores the default"),
  workdir: z
    .string()
    .optional()
    .describe("Absolute project directory: commands run there, its AGENTS.md is read; '' clears"),
  model: z.string().optional().describe("Run on this model instead of the default; '' clears"),
  provider: z.string().optional().describe("The provider for model"),
  base_url: z
    .string()
    .optional()
    .describe("The endpoint for model: the provider's own, a local server, or one config.yaml uses"),
});

export type CronjobArgs = z.infer<typeof cronjobParameters>;

function reply(value: unknown): string {
  return JSON.stringify(value);
}

export async function cronjobTool(args: CronjobArgs, ctx: Pick<ToolContext, "services">): Promise<string> {
  const backend = ctx.services?.cron as CronToolBackend | undefined;
  if (!backend)
    return reply({
      success: false,
      error: "Scheduled jobs are not available here (they run with hermes gateway run).",
    });
  const origin = (ctx.services?.cronOrigin as CronToolOrigin | undefined) ?? null;
  const needId = (): string => {
    if (!args.job_id) throw new Error(`${args.action} needs job_id (see action list)`);
    return args.job_id;
  };
  const { action: _action, job_id: _jobId, ...fields } = args;
  const spec = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as CronToolJobSpec;
  try {
    switch (args.action) {
      case "create":
        if (!args.schedule || !args.prompt) throw new Error("create needs schedule and prompt");
        return reply({
          success: true,
          job: await backend.create({ ...spec, schedule: args.schedule, prompt: args.prompt }, origin),
        });
      case "list":
        return reply({ success: true, jobs: await backend.list(origin) });
      case "update":
        return reply({ success: true, job: await backend.update(needId(), spec, origin) });
      case "pause":
        return reply({ success: true, job: await backend.pause(needId(), origin) });
      case "resume":
        return reply({ success: true, job: await backend.resume(needId(), origin) });
      case "remove":
        return reply({ success: true, removed: await backend.remove(needId(), origin) });
      case "run":
        return reply({ success: true, job: await backend.runSoon(needId(), origin) });
    }
  } catch (error) {
    return reply({ success: false, error: error instanceof Error ? error.message : String(error) });
  }
}

/** Registered by every runtime (src/runtime/cron-tool.ts); the gateway's ticker runs the jobs. */
export function registerCronjobTool(registry: ToolRegistry, backend: CronToolBackend): void {
  registry.register({
    name: "cronjob",
    toolset: "cronjob",
    description:
      "Schedule a task for later or on a repeat, and manage scheduled tasks. Each run is a fresh agent with no " +
      "memory of this chat, so the prompt must say everything needed. Results go to the chat the job was made in " +
      "(from a terminal: kept locally, `hermes cron`) unless deliver says otherwise; jobs run while the gateway " +
      "runs. Returns the job with its id and next run, or the list.",
    parameters: cronjobParameters,
    handler: (args, ctx) => cronjobTool(args, { services: { cron: backend, ...ctx.services } }),
    parallelSafe: false,
    emoji: "⏰",
  });
}
