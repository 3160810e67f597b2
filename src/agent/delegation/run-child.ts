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
  "prefillMessages",
  "personality",
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

/** A summary longer than `maxChars` (`delegation.max_summary_chars`) keeps its start and says how much went. */
export function capSummary(summary: string, maxChars: number): string {
  if (summary.length <= maxChars) return summary;
  const cut = summary.length - maxChars;
  return `${summary.slice(0, maxChars)}\n[… ${cut} more characters of the subagent's summary were cut (delegation.max_summary_chars)]`;
}

function reportFromRun(task: DelegateTask, result: RunResult, maxSummaryChars: number): ChildReport {
  const counts = { apiCalls: result.apiCalls, toolCalls: result.toolCalls };
  const summary = capSummary(result.finalResponse.trim(), maxSummaryChars);
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
  const inherited = childToolNames(env.parentTools, env.registry, task.toolsets);
  const names = env.settings.inherit_mcp_toolsets
    ? inherited
    : inherited.filter((name) => !env.registry.get(name)?.toolset.startsWith("mcp-"));
  const registry = childRegistry(env.registry, names);
  const tools = [...names];
  const orchestrates =
    task.role === "orchestrator" && env.settings.orchestrator_enabled && childDepth < env.settings.max_spawn_depth;
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
    ...(env.settings.subagent_auto_approve ? { autoApprove: true } : {}),
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
  const limitSeconds = env.settings.child_timeout_seconds;
  const timedOut = new AbortController();
  const timer = limitSeconds > 0 ? setTimeout(() => timedOut.abort(), limitSeconds * 1000) : undefined;
  const stopSignal = limitSeconds > 0 ? AbortSignal.any([signal, timedOut.signal]) : signal;
  const stop = () =>
    child.interrupt(
      timedOut.signal.aborted
        ? `the subagent ran past delegation.child_timeout_seconds (${limitSeconds} s)`
        : "the delegating agent was interrupted",
    );
  // The child only gets an abortable turn once its run has started; any event it emits means
  // that turn exists, so an interrupt that came too early is repeated then.
  const unsubscribe = child.on(() => {
    if (stopSignal.aborted) stop();
  });
  stopSignal.addEventListener("abort", stop, { once: true });
  const abandon = abandonAfterAbort(stopSignal, env.interruptGraceMs);
  const timeoutError = `stopped after ${limitSeconds} s (delegation.child_timeout_seconds)`;
  try {
    const run = child.runConversation(task.goal, env.ctx.taskId ? { taskId: env.ctx.taskId } : {});
    run.catch(() => {});
    const outcome = await Promise.race([run, abandon.promise]);
    if (outcome === ABANDONED) {
      if (timedOut.signal.aborted && !signal.aborted) {
        return report(task, "failed", "The subagent did not stop in time; its work was abandoned.", {
          error: timeoutError,
        });
      }
      return report(
        task,
        "interrupted",
        "The subagent did not stop in time after the interrupt; its work was abandoned.",
      );
    }
    const result = reportFromRun(task, outcome, env.settings.max_summary_chars);
    if (timedOut.signal.aborted && !signal.aborted && result.status === "interrupted") {
      return { ...result, status: "failed", error: timeoutError };
    }
    return result;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return report(task, "failed", "", { error: message });
  } finally {
    if (timer) clearTimeout(timer);
    abandon.cancel();
    unsubscribe();
    stopSignal.removeEventListener("abort", stop);
  }
}
