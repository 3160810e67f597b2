/** Running one subagent to the end and turning its run into a report for the parent. */
import type { ApprovalAnswer, ToolContext, ToolRegistry } from "../../tools/registry.js";
import { Agent, type RunResult } from "../agent.js";
import type { IterationBudget } from "../budget.js";
import type { AgentOptions } from "../options.js";
import { ChildBudget } from "./child-budget.js";
import { childRegistry, childToolNames } from "./child-tools.js";
import { buildSubagentPrompt } from "./prompt.js";
import type { DelegationSettings } from "./settings.js";

export type DelegateRole = "leaf" | "orchestrator";

export interface DelegateTask {
  goal: string;
  context?: string;
  toolsets?: string[];
  role?: DelegateRole;
  /** Lower cap than `delegation.max_iterations` for this task. */
  maxIterations?: number;
}

export type ChildStatus = "completed" | "failed" | "interrupted";

export interface ChildReport {
  goal: string;
  status: ChildStatus;
  summary: string;
  apiCalls: number;
  toolCalls: number;
  error?: string;
}

export interface ChildEnvironment {
  /** The registry the parent's delegate_task lives in; children's tools are drawn from it. */
  registry: ToolRegistry;
  parentTools: readonly string[];
  childOptions: (overrides: Partial<AgentOptions>) => AgentOptions;
  budget: IterationBudget;
  settings: DelegationSettings;
  /** Depth of the delegating agent (0 for the top-level agent). */
  depth: number;
  ctx: ToolContext;
  interruptGraceMs: number;
  /** Gives an orchestrator child its own delegate_task, one level deeper. */
  enableDelegation: (registry: ToolRegistry, childDepth: number, childTools: readonly string[]) => void;
}

const denyAll = async (): Promise<ApprovalAnswer> => "deny";
const ABANDONED = Symbol("abandoned");

/**
 * Parent state a child must never inherit: its session, listeners, user prompts, toolset
 * choices and prompt additions (the child has its own system prompt).
 */
const PARENT_ONLY_OPTIONS = [
  "sessionId",
  "learning",
  "sessionStore",
  "onEvent",
  "clarify",
  "enabledToolsets",
  "disabledToolsets",
  "ephemeralSystemPrompt",
  "skillsIndex",
] as const;

function withoutParentState(options: AgentOptions): AgentOptions {
  const copy: Record<string, unknown> = { ...options };
  for (const key of PARENT_ONLY_OPTIONS) delete copy[key];
  // A guardrails instance keeps per-run state, so concurrent children each get a fresh one.
  copy.guardrails = options.guardrails === false ? false : undefined;
  return copy as unknown as AgentOptions;
}

function report(
  task: DelegateTask,
  status: ChildStatus,
  summary: string,
  extra: Partial<ChildReport> = {},
): ChildReport {
  return { goal: task.goal, status, summary, apiCalls: 0, toolCalls: 0, ...extra };
}

function reportFromRun(task: DelegateTask, result: RunResult): ChildReport {
  const counts = { apiCalls: result.apiCalls, toolCalls: result.toolCalls };
  const summary = result.finalResponse.trim();
  if (result.interrupted) {
    return report(task, "interrupted", summary || "The subagent was interrupted before it finished.", counts);
  }
  if (result.completed) return report(task, "completed", summary || "(the subagent gave no summary)", counts);
  const error = result.error ?? "the subagent used its whole iteration budget before finishing";
  return report(task, "failed", summary, { ...counts, error });
}

/** Resolves `ABANDONED` once the signal has been aborted for `graceMs`; `cancel` clears the timer. */
function abandonAfterAbort(signal: AbortSignal, graceMs: number) {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const promise = new Promise<typeof ABANDONED>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(ABANDONED), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const cancel = () => {
    if (timer) clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  };
  return { promise, cancel };
}

function buildChild(task: DelegateTask, env: ChildEnvironment): Agent {
  const childDepth = env.depth + 1;
  const names = childToolNames(env.parentTools, env.registry, task.toolsets);
  const registry = childRegistry(env.registry, names);
  const tools = [...names];
  const orchestrates = task.role === "orchestrator" && childDepth < env.settings.max_spawn_depth;
  if (orchestrates) {
    env.enableDelegation(registry, childDepth, names);
    tools.push("delegate_task");
  }
  const maxIterations = Math.min(env.settings.max_iterations, task.maxIterations ?? Number.POSITIVE_INFINITY);
  const systemPrompt = buildSubagentPrompt({
    goal: task.goal,
    ...(task.context ? { context: task.context } : {}),
    cwd: env.ctx.cwd,
    ...(orchestrates ? { orchestrator: { depth: childDepth, maxSpawnDepth: env.settings.max_spawn_depth } } : {}),
  });
  const overrides: Partial<AgentOptions> = {
    registry,
    tools,
    systemPrompt,
    maxIterations,
    iterationBudget: new ChildBudget(maxIterations, env.budget),
    interactive: false,
    requestApproval: denyAll,
    // Children neither read nor write the user's persistent memory.
    memory: false,
    cwd: env.ctx.cwd,
    quiet: true,
    // A child serves the same surface as the agent that delegated to it.
    ...(env.ctx.platform ? { platform: env.ctx.platform } : {}),
  };
  return new Agent({ ...withoutParentState(env.childOptions(overrides)), ...overrides });
}

/** Runs one subagent. Never throws: every failure becomes a report. */
export async function runChild(task: DelegateTask, env: ChildEnvironment): Promise<ChildReport> {
  const result = await runChildOnce(task, env);
  await env.childOptions({}).hooks?.notify("subagent_stop", {
    parentSessionId: env.ctx.sessionId ?? "",
    goal: task.goal,
    result: result.summary,
    status: result.status,
  });
  return result;
}

async function runChildOnce(task: DelegateTask, env: ChildEnvironment): Promise<ChildReport> {
  const { signal } = env.ctx;
  if (signal.aborted) return report(task, "interrupted", "Not started: the delegating agent was interrupted.");
  let child: Agent;
  try {
    child = buildChild(task, env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return report(task, "failed", "", { error: `could not start the subagent: ${message}` });
  }
  const stop = () => child.interrupt("the delegating agent was interrupted");
  // The child only gets an abortable turn once its run has started; any event it emits means
  // that turn exists, so an interrupt that came too early is repeated then.
  const unsubscribe = child.on(() => {
    if (signal.aborted) stop();
  });
  signal.addEventListener("abort", stop, { once: true });
  const abandon = abandonAfterAbort(signal, env.interruptGraceMs);
  try {
    const run = child.runConversation(task.goal, env.ctx.taskId ? { taskId: env.ctx.taskId } : {});
    run.catch(() => {});
    const outcome = await Promise.race([run, abandon.promise]);
    if (outcome === ABANDONED) {
      return report(
        task,
        "interrupted",
        "The subagent did not stop in time after the interrupt; its work was abandoned.",
      );
    }
    return reportFromRun(task, outcome);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return report(task, "failed", "", { error: message });
  } finally {
    abandon.cancel();
    unsubscribe();
    signal.removeEventListener("abort", stop);
  }
}
