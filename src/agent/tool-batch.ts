/**
 * One batch of tool calls from an assistant message: validated, run under the execution
 * policy, and turned into tool-result messages in call order. Notes the user sent while the
 * tools ran ride along with the last result, the only channel the model reads mid-turn.
 */
import type { Message, ToolCall } from "../llm/types.js";
import type { PermissionGate } from "../tools/permissions/gate.js";
import type { ToolContext, ToolRegistry } from "../tools/registry.js";
import type { AgentEmitter } from "./events.js";
import type { ToolGuardrails } from "./guardrails.js";
import type { HookRunner } from "./hooks.js";
import { runToolCalls, type ToolRunOptions } from "./tool-executor.js";
import { prepareToolCalls } from "./tool-validation.js";

export interface ToolBatchOptions {
  registry: ToolRegistry | undefined;
  toolNames: string[];
  ctx: ToolContext;
  emitter: AgentEmitter;
  guardrails: ToolGuardrails | undefined;
  hooks?: HookRunner | undefined;
  permissions?: PermissionGate | undefined;
  autoApprove?: boolean;
  beforeRun?: ToolRunOptions["beforeRun"];
  /** Notes from the user that arrived while the tools ran. */
  takeSteerNotes: () => string[];
}

export async function runToolBatch(
  calls: ToolCall[],
  options: ToolBatchOptions,
): Promise<{ results: Message[]; halted: boolean }> {
  const { registry } = options;
  const prepared = registry
    ? prepareToolCalls(calls, registry, options.toolNames)
    : calls.map((call) => ({ call, rejection: "Error: no tools are available in this session." }));
  const outcome = await runToolCalls(prepared, {
    ctx: options.ctx,
    emitter: options.emitter,
    ...(options.guardrails ? { guardrails: options.guardrails } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.permissions ? { permissions: options.permissions } : {}),
    ...(options.autoApprove ? { autoApprove: true } : {}),
    ...(options.beforeRun ? { beforeRun: options.beforeRun } : {}),
  });
  const steer = options.takeSteerNotes();
  const results = calls.map((call, i): Message => {
    let content = outcome.results[i] ?? "";
    if (i === calls.length - 1 && steer.length) {
      content += steer.map((note) => `\n\n[Note from the user, sent while you were working: ${note}]`).join("");
    }
    return { role: "tool", tool_call_id: call.id, name: call.function.name, content };
  });
  return { results, halted: outcome.halted };
}
