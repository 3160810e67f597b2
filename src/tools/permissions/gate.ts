/**
 * The permission decision for one tool call, from the session's mode and the user's
 * `permissions.allow` / `permissions.deny` rules. "default" hands the call to the approval
 * policy unchanged; hardline blocks are checked by the caller before any allow is honoured.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { realLocation, resolveToolPath } from "../builtin/file-paths.js";
import { classifyToolCall } from "./classify.js";
import { findAllowRule, findDenyRule, type PermissionRule, parsePermissionRules, type ToolCallInfo } from "./rules.js";

export type PermissionMode = "plan" | "ask" | "auto-edit" | "yolo";

/** The order Shift+Tab cycles through. */
export const PERMISSION_MODE_CYCLE: readonly PermissionMode[] = ["plan", "ask", "auto-edit", "yolo"];

export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODE_CYCLE as readonly string[]).includes(value);
}

/** The mode after `mode`: plan → ask → auto-edit → yolo → plan. */
export function nextMode(mode: PermissionMode): PermissionMode {
  const at = PERMISSION_MODE_CYCLE.indexOf(mode);
  return PERMISSION_MODE_CYCLE[(at + 1) % PERMISSION_MODE_CYCLE.length] ?? "ask";
}

export type PermissionDecision =
  | { action: "deny"; reason: string; rule?: string }
  | { action: "plan"; message: string }
  | { action: "allow"; via: "rule" | "mode" }
  | { action: "default" };

export interface PermissionGateOptions {
  mode: PermissionMode;
  /** `permissions.allow` patterns (or already parsed rules). */
  allow?: unknown;
  /** `permissions.deny` patterns (or already parsed rules). */
  deny?: unknown;
  /** Edits inside this directory are what auto-edit allows. */
  projectRoot: string;
}

/** One short paragraph for the system prompt (or a user message) while plan mode is on. */
export function planModeNote(): string {
  return (
    "Plan mode is on: this session is read-only. Investigate with read-only tools (read_file, " +
    "search_files, read-only terminal commands such as ls, cat, grep or git log) and do not try to " +
    "edit files or run commands that change anything; such calls are refused without running. " +
    "Finish by presenting a concrete plan: the files to change, what to change in each, and how to " +
    "check the result. The user switches to build mode with /build or Shift+Tab when they want it carried out."
  );
}

function planRefusal(tool: string): string {
  return (
    `Plan mode is on (read-only), so this ${tool} call was not run. Keep investigating with ` +
    "read-only tools (read_file, search_files, read-only terminal commands), then finish by " +
    "presenting your plan. The user switches to build mode with /build or Shift+Tab to let " +
    "edits and commands run."
  );
}

function isRuleList(value: unknown): value is PermissionRule[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((v) => typeof v === "object" && v !== null && (v as PermissionRule).toolPattern instanceof RegExp)
  );
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** A path under a `.git` directory: writing there (config, hooks) can make git run code. */
function inGitDir(path: string, root: string): boolean {
  return relative(root, path).split(/[\\/]/).includes(".git");
}

export class PermissionGate {
  private currentMode: PermissionMode;
  private readonly allowRules: PermissionRule[];
  private readonly denyRules: PermissionRule[];
  private readonly root: string;
  /** Patterns that were left out, each prefixed with the list it came from. */
  readonly problems: string[];

  constructor(options: PermissionGateOptions) {
    if (!isPermissionMode(options.mode)) throw new RangeError(`unknown permission mode: ${String(options.mode)}`);
    this.currentMode = options.mode;
    this.root = resolve(options.projectRoot);
    this.problems = [];
    this.allowRules = this.rulesFrom("permissions.allow", options.allow);
    this.denyRules = this.rulesFrom("permissions.deny", options.deny);
  }

  private rulesFrom(key: string, list: unknown): PermissionRule[] {
    if (isRuleList(list)) return [...list];
    const { rules, problems } = parsePermissionRules(list);
    for (const problem of problems) this.problems.push(`${key}: ${problem}`);
    return rules;
  }

  get mode(): PermissionMode {
    return this.currentMode;
  }

  set mode(mode: PermissionMode) {
    if (!isPermissionMode(mode)) throw new RangeError(`unknown permission mode: ${String(mode)}`);
    this.currentMode = mode;
  }

  decide(call: ToolCallInfo): PermissionDecision {
    const denied = findDenyRule(this.denyRules, call);
    if (denied) {
      return {
        action: "deny",
        reason: `Blocked by the permissions.deny rule "${denied.source}"; the call was not run. Do not retry it in another form; ask the user if it is needed.`,
        rule: denied.source,
      };
    }
    const { effect, paths } = classifyToolCall(call.name, call.args);
    if (this.currentMode === "plan" && (effect === "edit" || effect === "execute")) {
      return { action: "plan", message: planRefusal(call.name) };
    }
    if (findAllowRule(this.allowRules, call)) return { action: "allow", via: "rule" };
    if (this.currentMode === "auto-edit" && effect === "edit") {
      // An edit with no known path (skill_manage, a patch without file headers) is not provably
      // inside the project, so it goes to the approval policy.
      if (paths.length > 0 && paths.every((path) => this.editableInProject(path, call.cwd))) {
        return { action: "allow", via: "mode" };
      }
      return { action: "default" };
    }
    if (this.currentMode === "yolo") return { action: "allow", via: "mode" };
    return { action: "default" };
  }

  /** Inside the project both as written (after `..`) and after following symlinks. */
  private editableInProject(path: string, cwd: string): boolean {
    const lexical = resolveToolPath(path, resolve(cwd));
    const real = realLocation(lexical);
    const realRoot = realLocation(this.root);
    return (
      isInside(lexical, this.root) &&
      isInside(real, realRoot) &&
      !inGitDir(lexical, this.root) &&
      !inGitDir(real, realRoot)
    );
  }
}
