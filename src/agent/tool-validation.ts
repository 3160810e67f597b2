/**
 * Checking the model's tool calls before anything runs: misspelled names repaired by fuzzy
 * match, broken JSON arguments repaired, arguments validated against the tool's schema,
 * duplicate calls and extra delegations answered without running. Every problem becomes a
 * tool result the model can act on.
 */
import type { ToolCall } from "../llm/types.js";
import type { ToolRegistry, ToolSpec } from "../tools/registry.js";
import { editDistance } from "../util/edit-distance.js";
import { repairToolArguments } from "../util/json-repair.js";
import { canonicalToolArgs } from "./guardrails.js";

export interface PreparedCall {
  call: ToolCall;
  spec?: ToolSpec;
  args?: Record<string, unknown>;
  /** Set when the call must not run: this text is its result. */
  rejection?: string;
}

function normalizedName(name: string): string {
  return name
    .trim()
    .replace(/^(functions|tools?)[.:]/i, "")
    .replace(/[\s-]+/g, "_")
    .toLowerCase();
}

/** The enabled tool a misspelled name most likely meant, or undefined when nothing is close. */
export function repairToolName(name: string, available: string[]): string | undefined {
  if (available.includes(name)) return name;
  const wanted = normalizedName(name);
  const exact = available.find((candidate) => normalizedName(candidate) === wanted);
  if (exact) return exact;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of available) {
    const distance = editDistance(wanted, normalizedName(candidate));
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(best.name.length / 5))) return best.name;
  return undefined;
}

function closeMatches(name: string, available: string[], count = 3): string[] {
  const wanted = normalizedName(name);
  return [...available]
    .sort((a, b) => editDistance(wanted, normalizedName(a)) - editDistance(wanted, normalizedName(b)))
    .slice(0, count);
}

function describeIssues(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join(".") : "(arguments)"}: ${issue.message}`)
    .join("; ");
}

export function prepareToolCalls(calls: ToolCall[], registry: ToolRegistry, enabled: string[]): PreparedCall[] {
  const seen = new Map<string, string>();
  let delegations = 0;
  return calls.map((call): PreparedCall => {
    const name = repairToolName(call.function.name, enabled);
    if (!name) {
      const suggestions = closeMatches(call.function.name, enabled);
      return {
        call,
        rejection: `Error: there is no tool named "${call.function.name}". Closest available tools: ${suggestions.join(", ") || "(none)"}. Call one of those instead.`,
      };
    }
    if (name !== call.function.name) call.function.name = name;
    const spec = registry.get(name);
    if (!spec) return { call, rejection: `Error: the tool "${name}" is not available right now.` };

    const repaired = repairToolArguments(call.function.arguments, name);
    const raw = JSON.parse(repaired) as Record<string, unknown>;
    if (repaired !== call.function.arguments && call.function.arguments.trim() !== "") {
      call.function.arguments = repaired;
    }
    const parsed = spec.parameters.safeParse(raw);
    if (!parsed.success) {
      return {
        call,
        spec,
        rejection: `Error: invalid arguments for ${name}: ${describeIssues(parsed.error)}. Fix the arguments and call the tool again.`,
      };
    }
    const args = parsed.data as Record<string, unknown>;
    const key = `${name}:${canonicalToolArgs(args)}`;
    const firstId = seen.get(key);
    if (firstId) {
      return { call, spec, rejection: `Skipped: identical to call ${firstId} in this turn; see its result.` };
    }
    seen.set(key, call.id);
    if (name === "delegate_task" && ++delegations > 1) {
      return {
        call,
        spec,
        rejection:
          "Error: only one delegate_task call is allowed per turn. Put several goals in one call's batch instead.",
      };
    }
    return { call, spec, args };
  });
}
