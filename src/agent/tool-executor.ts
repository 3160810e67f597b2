/**
 * Running a turn's tool calls. One call runs inline; several run concurrently (at most
 * `maxConcurrency`) when every call is parallel-safe and no two path-scoped calls touch the
 * same path (or one inside the other); otherwise they run one after another. Results always
 * come back in call order.
 */

import { isAbsolute, relative, resolve } from "node:path";
import { capResult, DEFAULT_MAX_RESULT_CHARS, type ToolContext } from "../tools/registry.js";
import { redactObject, redactSecrets } from "../util/redact.js";
import { fenceUntrusted } from "../util/untrusted.js";
import { interruptedToolResult } from "./interruption.js";

/**
 * Secrets masked in the text the model reads. A JSON result is redacted value by value before
 * it is encoded again, so rules anchored to a line (`KEY: value`) see real lines, not `\n`.
 */
function redactResult(result: string): string {
  const start = result.trimStart()[0];
  if (start === "{" || start === "[") {
    try {
      return JSON.stringify(redactObject(JSON.parse(result)));
    } catch {
      // Not JSON after all: redacted as text.
    }
  }
  return redactSecrets(result);
}

import type { PermissionGate } from "../tools/permissions/gate.js";
import { log } from "../util/log.js";
import { monotonicMs } from "../util/monotonic.js";
import { type AgentEmitter, previewArgs } from "./events.js";
import { classifyToolFailure, type ToolGuardrails } from "./guardrails.js";
import type { HookRunner } from "./hooks.js";
import type { PreparedCall } from "./tool-validation.js";

/** Tools that need the user and so force a sequential batch. */
const INTERACTIVE_TOOLS = new Set(["clarify"]);

export interface ToolRunOutcome {
  results: string[];
  /** A guardrail asked to stop the turn. */
  halted: boolean;
}

export interface ToolRunOptions {
  ctx: ToolContext;
  emitter: AgentEmitter;
  guardrails?: ToolGuardrails;
  hooks?: HookRunner;
  /** The session's permission mode and the user's allow/deny rules. */
  permissions?: PermissionGate;
  /** Every call that the permissions do not refuse counts as approved ahead (`AgentOptions.autoApprove`). */
  autoApprove?: boolean;
  /** Called before a call that is allowed to run: the place to checkpoint what it changes. */
  beforeRun?: (call: { name: string; args: Record<string, unknown>; cwd: string }) => Promise<void>;
  maxConcurrency?: number;
  redact?: boolean;
}

export function pathsOverlap(a: string, b: string): boolean {
  const inside = (parent: string, child: string) => {
    const rel = relative(parent, child);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  };
  return inside(a, b) || inside(b, a);
}

function callPaths(prepared: PreparedCall, cwd: string): string[] {
  const names = prepared.spec?.pathArgs ?? [];
  return names
    .map((name) => prepared.args?.[name])
    .filter((value): value is string => typeof value === "string" && value.length > 0)
    .map((value) => resolve(cwd, value.replace(/^~(?=$|\/)/, process.env.HOME ?? "~")));
}

export function canRunConcurrently(batch: PreparedCall[], cwd: string): boolean {
  if (batch.length < 2) return false;
  const runnable = batch.filter((p) => !p.rejection);
  if (runnable.some((p) => !p.spec?.parallelSafe || INTERACTIVE_TOOLS.has(p.spec.name))) return false;
  const seen: string[] = [];
  for (const prepared of runnable) {
    for (const path of callPaths(prepared, cwd)) {
      if (seen.some((other) => pathsOverlap(other, path))) return false;
      seen.push(path);
    }
  }
  return true;
}

/**
 * `pre_tool_call` hooks: a block becomes the result the model reads; rewritten arguments are
 * checked against the tool's schema like the model's own.
 */
async function argsAfterHooks(
  prepared: PreparedCall,
  hooks: HookRunner,
  ctx: ToolContext,
): Promise<{ args: Record<string, unknown> } | { refusal: string }> {
  const { call, spec } = prepared;
  const args = prepared.args!;
  const verdict = await hooks.beforeTool({
    sessionId: ctx.sessionId ?? "",
    toolName: call.function.name,
    args,
    callId: call.id,
  });
  if ("block" in verdict) return { refusal: `Blocked by a hook (${verdict.owner}): ${verdict.block}` };
  if (verdict.args === args) return { args };
  const checked = spec!.parameters.safeParse(verdict.args);
  if (!checked.success) {
    return {
      refusal: `Error: a pre_tool_call hook rewrote the arguments of ${call.function.name} into an invalid shape.`,
    };
  }
  return { args: checked.data as Record<string, unknown> };
}

async function resultAfterHooks(
  hooks: HookRunner,
  facts: { sessionId: string; toolName: string; args: Record<string, unknown>; callId: string },
  result: string,
  outcome: { durationMs: number; failed: boolean },
  maxChars: number,
): Promise<string> {
  const transformed = hooks.has("transform_tool_result")
    ? capResult(await hooks.transformResult({ ...facts, result }), maxChars)
    : result;
  await hooks.notify("post_tool_call", { ...facts, result: transformed, ...outcome });
  return transformed;
}

async function runOne(prepared: PreparedCall, options: ToolRunOptions): Promise<{ result: string; halt: boolean }> {
  const { call, spec } = prepared;
  let { args } = prepared;
  const { emitter, guardrails, ctx } = options;
  const name = call.function.name;
  if (prepared.rejection || !spec || !args) {
    return { result: prepared.rejection ?? `Error: ${name} could not run.`, halt: false };
  }
  const decision = guardrails?.beforeCall(name, args);
  if (decision && (decision.action === "block" || decision.action === "halt")) {
    return { result: decision.message, halt: decision.action === "halt" };
  }
  const hooks = options.hooks;
  if (hooks?.has("pre_tool_call")) {
    const hooked = await argsAfterHooks(prepared, hooks, ctx);
    if ("refusal" in hooked) return { result: hooked.refusal, halt: false };
    args = hooked.args;
  }
  // Checked after the hooks, so rewritten arguments are what the rules judge.
  const permission = options.permissions?.decide({ name, args, cwd: ctx.cwd });
  if (permission?.action === "deny") return { result: permission.reason, halt: false };
  if (permission?.action === "plan") return { result: permission.message, halt: false };
  // Progress displays, logs and event streams see the arguments with secrets masked.
  const shownArgs = redactObject(args);
  emitter.emit({ type: "tool_start", callId: call.id, name, args: shownArgs, preview: previewArgs(shownArgs) });
  const started = monotonicMs();
  let result: string;
  try {
    if (ctx.signal.aborted) throw new Error("interrupted before it started");
    await options.beforeRun?.({ name, args, cwd: ctx.cwd });
    const callCtx: ToolContext = {
      ...ctx,
      ...(permission?.action === "allow" || options.autoApprove ? { preapproved: true } : {}),
      progress: (text) => emitter.emit({ type: "tool_progress", callId: call.id, name, text }),
    };
    result = await spec.handler(args, callCtx);
    if (typeof result !== "string") result = JSON.stringify(result);
  } catch (error) {
    if (ctx.signal.aborted) result = interruptedToolResult(ctx.signal);
    else result = `Error: ${name} failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (options.redact !== false) result = redactResult(result);
  result = capResult(result, spec.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  const failure = classifyToolFailure(name, result);
  if (hooks) {
    const facts = { sessionId: ctx.sessionId ?? "", toolName: name, args, callId: call.id };
    const outcome = { durationMs: Math.round(monotonicMs() - started), failed: failure.failed };
    result = await resultAfterHooks(hooks, facts, result, outcome, spec.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  }
  if (spec.untrustedOutput) result = fenceUntrusted(name, result);
  let halt = false;
  if (guardrails) {
    const after = guardrails.afterCall(name, args, result, { failed: failure.failed });
    if (after.action !== "allow") result = `${result}\n\n[${after.message}]`;
    halt = after.action === "halt";
  }
  const durationMs = Math.round(monotonicMs() - started);
  log(failure.failed ? "warn" : "info", "tool", failure.failed ? "failed" : "done", {
    name,
    ms: durationMs,
    session: ctx.sessionId,
    preview: result.slice(0, 160),
  });
  emitter.emit({ type: "tool_end", callId: call.id, name, result, durationMs, failed: failure.failed });
  return { result, halt };
}

export async function runToolCalls(batch: PreparedCall[], options: ToolRunOptions): Promise<ToolRunOutcome> {
  const outcomes: Array<{ result: string; halt: boolean }> = new Array(batch.length);
  if (canRunConcurrently(batch, options.ctx.cwd)) {
    const limit = Math.max(1, options.maxConcurrency ?? 8);
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const index = next++;
        outcomes[index] = await runOne(batch[index]!, options);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, batch.length) }, worker));
  } else {
    for (let i = 0; i < batch.length; i++) {
      if (options.ctx.signal.aborted) {
        outcomes[i] = { result: "[not run: the user interrupted the turn]", halt: false };
        continue;
      }
      outcomes[i] = await runOne(batch[i]!, options);
    }
  }
  return { results: outcomes.map((o) => o.result), halted: outcomes.some((o) => o.halt) };
}
