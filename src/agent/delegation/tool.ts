/**
 * The `delegate_task` tool: hands one goal, or a batch of goals, to subagents that run with a
 * fresh history, a restricted tool list and the parent's shared iteration budget, and returns
 * their summaries in task order as one JSON result.
 */

import type { ToolContext, ToolRegistry } from "../../tools/registry.js";
import { z } from "../../util/schema/index.js";
import type { IterationBudget } from "../budget.js";
import { type AgentOptions, resolveToolNames } from "../options.js";
import type { BackgroundDelegations } from "./background.js";
import { dispatchInBackground } from "./background-dispatch.js";
import { type ChildEnvironment, type ChildReport, type DelegateTask, runChild } from "./run-child.js";
import { childOptionsFrom, type DelegationSettings, normalizeDelegationSettings } from "./settings.js";

export interface DelegationDeps {
  /** Options of a new subagent, derived from the parent's; `overrides` win (see `childOptionsFrom`). */
  childOptions: (overrides: Partial<AgentOptions>) => AgentOptions;
  /** The parent's iteration budget; every subagent draws from it too. */
  budget: IterationBudget;
  /** Depth of the agent that owns this tool: 0 for the top-level agent. */
  depth?: number;
  /** The `delegation` config section. */
  config?: Partial<DelegationSettings>;
  /** Tool names the parent may call; children get a subset. Default: every tool in the registry. */
  parentToolNames?: () => readonly string[] | Promise<readonly string[]>;
  /** How long to wait for interrupted subagents to stop before reporting them anyway (default 2000 ms). */
  interruptGraceMs?: number;
  /** The process's background subagents; without it `background: true` is refused. */
  background?: BackgroundDelegations;
}

export interface DelegateResult {
  results: ChildReport[];
}

const DEFAULT_INTERRUPT_GRACE_MS = 2000;

const toolsets = z.array(z.string()).optional();
const role = z.enum(["leaf", "orchestrator"]).optional();
const context = z.string().optional();

export const delegateTaskParameters = z.object({
  goal: z.string().optional().describe("The task, stated so it can be done without this conversation"),
  context: context.describe("All it needs: paths, constraints, findings; it sees nothing of this chat"),
  toolsets: toolsets.describe("e.g. ['terminal', 'file']; default: your tools minus those subagents never get"),
  tasks: z
    .array(
      z
        .object({ goal: z.string(), context, toolsets, role })
        .describe("Fields as the top-level ones, for one subagent"),
    )
    .optional()
    .describe("Several independent tasks run in parallel, instead of goal"),
  role: role.describe("leaf (default) works alone; orchestrator may delegate again where depth allows"),
  max_iterations: z.number().int().min(1).optional().describe("Lower each subagent's iteration cap"),
  background: z.boolean().optional().describe("Don't wait: summaries arrive later as new messages"),
});

export type DelegateTaskArgs = z.infer<typeof delegateTaskParameters>;

function describe(settings: DelegationSettings, depth: number): string {
  const nested =
    depth + 1 < settings.max_spawn_depth && settings.orchestrator_enabled
      ? ` One started with role 'orchestrator' may delegate again, down to depth ${settings.max_spawn_depth}.`
      : "";
  const limits = nested ? "cannot" : "cannot delegate,";
  return [
    "Hand self-contained work to subagents with fresh conversations and their own tools.",
    `Returns each subagent's summary, in task order; only summaries enter your context. Up to ${settings.max_concurrent_children} run at once.${nested}`,
    `Subagents ${limits} ask the user, use memory, send messages or run code, and their dangerous commands are refused. Do quick steps yourself.`,
  ].join(" ");
}

function tasksFrom(args: DelegateTaskArgs): DelegateTask[] | string {
  const limit = args.max_iterations !== undefined ? { maxIterations: args.max_iterations } : {};
  const list =
    args.tasks && args.tasks.length > 0
      ? args.tasks.map((task) => ({ ...task, role: task.role ?? args.role }))
      : args.goal !== undefined
        ? [{ goal: args.goal, context: args.context, toolsets: args.toolsets, role: args.role }]
        : [];
  if (list.length === 0) return "give a goal, or a non-empty tasks list";
  const tasks: DelegateTask[] = [];
  for (const [i, task] of list.entries()) {
    const goal = task.goal.trim();
    if (!goal) return `task ${i + 1} has an empty goal`;
    tasks.push({
      goal,
      ...(task.context?.trim() ? { context: task.context } : {}),
      ...(task.toolsets ? { toolsets: task.toolsets } : {}),
      ...(task.role ? { role: task.role } : {}),
      ...limit,
    });
  }
  return tasks;
}

function preview(goal: string, max = 60): string {
  const flat = goal.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Runs `count` jobs with at most `limit` at once; results keep job order. */
async function runLimited<T>(count: number, limit: number, job: (index: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await job(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return results;
}

async function delegate(
  registry: ToolRegistry,
  deps: DelegationDeps,
  settings: DelegationSettings,
  args: DelegateTaskArgs,
  ctx: ToolContext,
): Promise<string> {
  const depth = deps.depth ?? 0;
  if (depth >= settings.max_spawn_depth) {
    return JSON.stringify({ error: `delegation depth limit reached (max_spawn_depth ${settings.max_spawn_depth})` });
  }
  const tasks = tasksFrom(args);
  if (typeof tasks === "string") return JSON.stringify({ error: tasks });
  const parentTools = deps.parentToolNames ? await deps.parentToolNames() : registry.names();
  const env: ChildEnvironment = {
    registry,
    parentTools,
    childOptions: deps.childOptions,
    // The parent's budget for this run (each run starts a fresh one), else the one given at registration.
    budget: (ctx.services?.iterationBudget as IterationBudget | undefined) ?? deps.budget,
    settings,
    depth,
    ctx,
    interruptGraceMs: deps.interruptGraceMs ?? DEFAULT_INTERRUPT_GRACE_MS,
    enableDelegation: (childRegistry, childDepth, childTools) =>
      registerDelegateTool(childRegistry, { ...deps, depth: childDepth, parentToolNames: () => childTools }),
  };
  if (args.background) return dispatchInBackground(tasks, env, deps.background);
  const total = tasks.length;
  const results = await runLimited(total, settings.max_concurrent_children, async (index) => {
    const task = tasks[index]!;
    const label = `subagent ${index + 1}/${total}`;
    if (!ctx.signal.aborted) ctx.progress?.(`${label} started: ${preview(task.goal)}`);
    const result = await runChild(task, env);
    ctx.progress?.(
      `${label} ${result.status} (${result.apiCalls} calls, ${result.toolCalls} tools): ${preview(task.goal)}`,
    );
    return result;
  });
  return JSON.stringify({ results } satisfies DelegateResult);
}

/** Registers `delegate_task` (toolset `delegation`) in `registry`, bound to `deps`. */
export function registerDelegateTool(registry: ToolRegistry, deps: DelegationDeps): void {
  const settings = normalizeDelegationSettings(deps.config);
  registry.register({
    name: "delegate_task",
    toolset: "delegation",
    description: describe(settings, deps.depth ?? 0),
    parameters: delegateTaskParameters,
    emoji: "🔀",
    handler: (args, ctx) => delegate(registry, deps, settings, args, ctx),
  });
}

/**
 * Delegation deps for a top-level agent built from `parent`: children start from the parent's
 * options and may use only the parent's enabled tools. Inside an Agent run the tool draws on
 * that run's budget (handed to tools as `ctx.services.iterationBudget`); `budget` is the fallback
 * when the tool is called outside a run.
 */
export function delegationDepsFrom(
  parent: AgentOptions,
  budget: IterationBudget,
  config: Partial<DelegationSettings> = {},
): DelegationDeps {
  return {
    childOptions: childOptionsFrom(parent, config),
    budget,
    depth: 0,
    config,
    parentToolNames: () => resolveToolNames(parent),
  };
}
