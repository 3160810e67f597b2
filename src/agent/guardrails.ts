/**
 * Tool-loop guardrails: notice when the model keeps repeating a failing call, keeps failing
 * with one tool, or keeps re-reading something that does not change, and nudge it (warn) or,
 * when hard stops are enabled, refuse the call (block) or end the turn (halt).
 *
 * The tracker is per turn: the loop calls `resetForTurn()` when a new user turn starts.
 */
import { classifyToolFailure } from "./tool-failure.js";

export { classifyToolFailure, type ToolFailure } from "./tool-failure.js";

export type GuardrailAction = "allow" | "warn" | "block" | "halt";

export type GuardrailCode =
  | "allow"
  | "repeated_exact_failure_warning"
  | "repeated_exact_failure_block"
  | "same_tool_failure_warning"
  | "same_tool_failure_halt"
  | "idempotent_no_progress_warning"
  | "idempotent_no_progress_block";

export interface GuardrailDecision {
  action: GuardrailAction;
  code: GuardrailCode;
  /** Guidance for the model: appended to the tool result (warn) or used as the result (block/halt). */
  message: string;
  /** How many times the triggering pattern has been seen so far. */
  count: number;
}

export interface GuardrailThresholds {
  exactFailure: number;
  sameToolFailure: number;
  idempotentNoProgress: number;
}

export interface ToolGuardrailsConfig {
  warningsEnabled: boolean;
  hardStopEnabled: boolean;
  warnAfter: GuardrailThresholds;
  hardStopAfter: GuardrailThresholds;
}

export interface ToolGuardrailsConfigInput {
  warningsEnabled?: boolean;
  hardStopEnabled?: boolean;
  warnAfter?: Partial<GuardrailThresholds>;
  hardStopAfter?: Partial<GuardrailThresholds>;
}

export const DEFAULT_GUARDRAILS_CONFIG: Readonly<ToolGuardrailsConfig> = Object.freeze({
  warningsEnabled: true,
  hardStopEnabled: false,
  warnAfter: Object.freeze({ exactFailure: 2, sameToolFailure: 3, idempotentNoProgress: 2 }),
  hardStopAfter: Object.freeze({ exactFailure: 5, sameToolFailure: 8, idempotentNoProgress: 5 }),
});

/**
 * Read-only tools whose repeated identical answers mean the model is not making progress.
 * Mutating tools (write_file, patch, terminal, ...) and unknown tools are never tracked:
 * repeating them can legitimately change the world.
 */
export const IDEMPOTENT_TOOLS: ReadonlySet<string> = new Set([
  "read_file",
  "search_files",
  "web_search",
  "web_extract",
  "session_search",
  "skills_list",
  "skill_view",
  "browser_snapshot",
  "browser_console",
  "browser_get_images",
  "vision_analyze",
  "process_list",
  "mcp_filesystem_read_file",
  "mcp_filesystem_read_text_file",
  "mcp_filesystem_read_multiple_files",
  "mcp_filesystem_list_directory",
  "mcp_filesystem_list_directory_with_sizes",
  "mcp_filesystem_directory_tree",
  "mcp_filesystem_get_file_info",
  "mcp_filesystem_search_files",
]);

/** Compact JSON with object keys sorted at every depth; non-ASCII characters stay as they are. */
export function canonicalToolArgs(args: unknown): string {
  return JSON.stringify(sortKeysDeep(args)) ?? "null";
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeysDeep(item)));
  if (value !== null && typeof value === "object") {
    const source = value as Record<string, unknown>;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(source).sort()) {
      if (source[key] !== undefined) sorted[key] = sortKeysDeep(source[key]);
    }
    return sorted;
  }
  return value;
}

const ALLOW: GuardrailDecision = Object.freeze({ action: "allow", code: "allow", message: "", count: 0 });

function allow(count = 0): GuardrailDecision {
  return count === 0 ? ALLOW : { ...ALLOW, count };
}

export function allowsExecution(decision: GuardrailDecision): boolean {
  return decision.action === "allow" || decision.action === "warn";
}

export function endsTurn(decision: GuardrailDecision): boolean {
  return decision.action === "halt";
}

export class ToolGuardrails {
  readonly config: ToolGuardrailsConfig;
  /** Consecutive identical failures per (tool, canonical args). */
  private readonly exactFailures = new Map<string, number>();
  /** Consecutive failures per tool name, whatever the arguments. */
  private readonly toolFailures = new Map<string, number>();
  /** Last result and how many times in a row it came back, per idempotent (tool, args). */
  private readonly repeatedResults = new Map<string, { result: string; count: number }>();

  constructor(config?: ToolGuardrailsConfigInput | null) {
    this.config = resolveGuardrailsConfig(config);
  }

  beforeCall(toolName: string, args: unknown): GuardrailDecision {
    if (!this.config.hardStopEnabled) return ALLOW;
    const key = signature(toolName, args);
    const limits = this.config.hardStopAfter;

    const exact = this.exactFailures.get(key) ?? 0;
    if (exact >= limits.exactFailure) {
      return {
        action: "block",
        code: "repeated_exact_failure_block",
        message: exactFailureBlockMessage(toolName, exact),
        count: exact,
      };
    }
    // A same-tool halt is reported once, by afterCall; a new call with other arguments may still run.
    const repeated = this.repeatedResults.get(key)?.count ?? 0;
    if (IDEMPOTENT_TOOLS.has(toolName) && repeated >= limits.idempotentNoProgress) {
      return {
        action: "block",
        code: "idempotent_no_progress_block",
        message: noProgressBlockMessage(toolName, repeated),
        count: repeated,
      };
    }
    return ALLOW;
  }

  afterCall(toolName: string, args: unknown, result: string, options: { failed?: boolean } = {}): GuardrailDecision {
    const failed = options.failed ?? classifyToolFailure(toolName, result).failed;
    const key = signature(toolName, args);
    return failed ? this.recordFailure(toolName, key) : this.recordSuccess(toolName, key, result);
  }

  /** Forget everything seen so far; called when a new user turn begins. */
  resetForTurn(): void {
    this.exactFailures.clear();
    this.toolFailures.clear();
    this.repeatedResults.clear();
  }

  private recordFailure(toolName: string, key: string): GuardrailDecision {
    const exact = (this.exactFailures.get(key) ?? 0) + 1;
    const sameTool = (this.toolFailures.get(toolName) ?? 0) + 1;
    this.exactFailures.set(key, exact);
    this.toolFailures.set(toolName, sameTool);
    this.repeatedResults.delete(key);

    const { warningsEnabled, hardStopEnabled, warnAfter, hardStopAfter } = this.config;
    if (hardStopEnabled && sameTool >= hardStopAfter.sameToolFailure) {
      return {
        action: "halt",
        code: "same_tool_failure_halt",
        message: sameToolHaltMessage(toolName, sameTool),
        count: sameTool,
      };
    }
    if (warningsEnabled && exact >= warnAfter.exactFailure) {
      return {
        action: "warn",
        code: "repeated_exact_failure_warning",
        message: exactFailureWarning(toolName, exact),
        count: exact,
      };
    }
    if (warningsEnabled && sameTool >= warnAfter.sameToolFailure) {
      return {
        action: "warn",
        code: "same_tool_failure_warning",
        message: sameToolWarning(toolName, sameTool),
        count: sameTool,
      };
    }
    return allow(exact);
  }

  private recordSuccess(toolName: string, key: string, result: string): GuardrailDecision {
    this.exactFailures.delete(key);
    this.toolFailures.delete(toolName);
    if (!IDEMPOTENT_TOOLS.has(toolName)) return ALLOW;

    const previous = this.repeatedResults.get(key);
    const comparable = comparableResult(result);
    const count = previous && previous.result === comparable ? previous.count + 1 : 1;
    this.repeatedResults.set(key, { result: comparable, count });
    if (this.config.warningsEnabled && count >= this.config.warnAfter.idempotentNoProgress) {
      return {
        action: "warn",
        code: "idempotent_no_progress_warning",
        message: noProgressWarning(toolName, count),
        count,
      };
    }
    return allow(count);
  }
}

/** A JSON result in canonical form (key order and spacing do not matter); any other text as it is. */
function comparableResult(result: unknown): string {
  if (typeof result !== "string") return canonicalToolArgs(result);
  const trimmed = result.trim();
  if (trimmed === "" || !/^[[{"\d-]|^(?:true|false|null)$/.test(trimmed)) return result;
  try {
    return `json:${canonicalToolArgs(JSON.parse(trimmed))}`;
  } catch {
    return result;
  }
}

function signature(toolName: string, args: unknown): string {
  return `${toolName}\u0000${canonicalToolArgs(args)}`;
}

function exactFailureWarning(tool: string, count: number): string {
  return (
    `[Loop guard] ${tool} has now failed ${count} times with exactly these arguments. ` +
    "Repeating the same call will not change the outcome: read the error, change the arguments " +
    "or the approach, or check your assumptions with another tool first."
  );
}

function exactFailureBlockMessage(tool: string, count: number): string {
  return (
    `[Loop guard] This ${tool} call was not run: it already failed ${count} times with identical ` +
    "arguments in this turn. Change the arguments, use another tool to find out why it fails, " +
    "or explain the problem to the user."
  );
}

function sameToolWarning(tool: string, count: number): string {
  return (
    `[Loop guard] ${tool} has failed ${count} times in a row this turn, each time with different ` +
    "arguments. Pause and diagnose before retrying: look closely at the error output, verify paths " +
    "and prerequisites, or reach the goal with a different tool. Do not switch to text-only replies " +
    "or give up on the task; keep using tools, just more deliberately."
  );
}

function sameToolHaltMessage(tool: string, count: number): string {
  return (
    `[Loop guard] Stopping this turn: ${tool} failed ${count} times in a row. ` +
    "Tell the user what was attempted, what failed, and what you would need to continue."
  );
}

function noProgressWarning(tool: string, count: number): string {
  return (
    `[Loop guard] ${tool} returned the same result ${count} times in a row for the same arguments. ` +
    "Calling it again will not reveal anything new; act on what you already have or look elsewhere."
  );
}

function noProgressBlockMessage(tool: string, count: number): string {
  return (
    `[Loop guard] This ${tool} call was not run: the same arguments already returned an identical ` +
    `result ${count} times this turn. Use the result you have, or query something different.`
  );
}

function resolveGuardrailsConfig(input: ToolGuardrailsConfigInput | null | undefined): ToolGuardrailsConfig {
  const base = DEFAULT_GUARDRAILS_CONFIG;
  return {
    warningsEnabled: input?.warningsEnabled ?? base.warningsEnabled,
    hardStopEnabled: input?.hardStopEnabled ?? base.hardStopEnabled,
    warnAfter: mergeThresholds(base.warnAfter, input?.warnAfter),
    hardStopAfter: mergeThresholds(base.hardStopAfter, input?.hardStopAfter),
  };
}

function mergeThresholds(base: GuardrailThresholds, input: Partial<GuardrailThresholds> | undefined) {
  const pick = (value: number | undefined, fallback: number) =>
    typeof value === "number" && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;
  return {
    exactFailure: pick(input?.exactFailure, base.exactFailure),
    sameToolFailure: pick(input?.sameToolFailure, base.sameToolFailure),
    idempotentNoProgress: pick(input?.idempotentNoProgress, base.idempotentNoProgress),
  };
}

/**
 * Maps the `tool_loop_guardrails` section of config.yaml (snake_case) to the constructor's
 * camelCase config. Missing or malformed values fall back to the defaults.
 */
export function guardrailsConfigFromYaml(section: unknown): ToolGuardrailsConfig {
  const record = asRecord(section);
  const thresholds = (value: unknown): Partial<GuardrailThresholds> => {
    const t = asRecord(value);
    return {
      exactFailure: asNumber(t.exact_failure),
      sameToolFailure: asNumber(t.same_tool_failure),
      idempotentNoProgress: asNumber(t.idempotent_no_progress),
    };
  };
  return resolveGuardrailsConfig({
    warningsEnabled: asBoolean(record.warnings_enabled),
    hardStopEnabled: asBoolean(record.hard_stop_enabled),
    warnAfter: thresholds(record.warn_after),
    hardStopAfter: thresholds(record.hard_stop_after),
  });
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asBoolean(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

function asNumber(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
