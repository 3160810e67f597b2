/**
 * `permissions.allow` / `permissions.deny` patterns: `tool` matches every call of a tool,
 * `tool(glob)` matches a file tool's paths or a terminal command. `*` in the tool name matches
 * any characters (`mcp__github__*`).
 */
import { homedir } from "node:os";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";
import { normalizeCommand, parseCommandLine } from "../../util/shell-words.js";
import { analyzeCommand } from "../approval/command-analysis.js";
import { realLocation, resolveToolPath } from "../builtin/file-paths.js";
import { classifyToolCall } from "./classify.js";
import { parseShellStrict, redirectWritesFile, type ShellPart } from "./shell-parse.js";

export interface PermissionRule {
  /** The pattern as written (trimmed). */
  readonly source: string;
  /** The tool name part, possibly with `*`. */
  readonly tool: string;
  /** The glob between the parentheses, if any. */
  readonly specifier?: string;
  readonly toolPattern: RegExp;
}

export interface ToolCallInfo {
  name: string;
  args: Record<string, unknown>;
  /** The directory relative paths and commands are resolved against (the project root). */
  cwd: string;
}

/** Tools whose calls carry a path or a command for a `tool(glob)` pattern to match. */
const FILE_TOOLS = ["read_file", "write_file", "patch", "search_files"];
const COMMAND_TOOLS = ["terminal"];
/** Built-in tools with nothing to match, so `tool(...)` on them is a mistake worth reporting. */
const PLAIN_TOOLS = new Set([
  "process",
  "execute_code",
  "skill_manage",
  "skills_list",
  "skill_view",
  "memory",
  "todo",
  "clarify",
  "web_search",
  "web_extract",
  "session_search",
  "delegate_task",
  "cronjob",
  "vision_analyze",
]);

const TOOL_NAME = /^[A-Za-z0-9_.:/*-]+$/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function toolNamePattern(name: string): RegExp {
  return new RegExp(`^${name.split("*").map(escapeRegExp).join(".*")}$`);
}

/** Parses one pattern; a string is the problem with it. */
export function parsePermissionRule(pattern: string): PermissionRule | string {
  const source = pattern.trim();
  if (source === "") return 'an empty pattern; write a tool name such as "read_file" or "terminal(npm test*)"';
  let depth = 0;
  for (const c of source) {
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) break;
  }
  const open = source.indexOf("(");
  if (depth !== 0 || (open >= 0 && !source.endsWith(")")) || (open < 0 && source.includes(")"))) {
    return `"${source}": unbalanced parentheses; write tool(glob), e.g. "write_file(src/**)" (use ? for a lone parenthesis)`;
  }
  // A ")" that closes the first "(" before the end means text after the pattern: `a(b)c(d)`.
  if (open >= 0) {
    let level = 0;
    for (let k = open; k < source.length; k++) {
      if (source[k] === "(") level++;
      else if (source[k] === ")" && --level === 0 && k !== source.length - 1) {
        return `"${source}": text after the closing parenthesis; write one tool(glob) per entry`;
      }
    }
  }
  const tool = (open < 0 ? source : source.slice(0, open)).trim();
  if (tool === "") return `"${source}": the tool name is empty; write e.g. "write_file(src/**)"`;
  if (!TOOL_NAME.test(tool)) {
    return `"${source}": "${tool}" is not a tool name (letters, digits, _ - . : / and * only)`;
  }
  const toolPattern = toolNamePattern(tool);
  if (open < 0) return { source, tool, toolPattern };
  const specifier = source.slice(open + 1, -1).trim();
  if (specifier === "") return `"${source}": nothing between the parentheses; write "${tool}" to match every call`;
  if (!tool.includes("*") && !FILE_TOOLS.includes(tool) && !COMMAND_TOOLS.includes(tool)) {
    const what = PLAIN_TOOLS.has(tool)
      ? `${tool} calls have no path or command to match`
      : `${tool} is not a file tool`;
    return `"${source}": ${what}, so the pattern would never match; only ${[...FILE_TOOLS, ...COMMAND_TOOLS].join(", ")} take (glob); write "${tool}" to match every call`;
  }
  return { source, tool, specifier, toolPattern };
}

/**
 * Reads a `permissions.allow` or `permissions.deny` list. Never throws: every entry that is not
 * a usable pattern is left out and described in `problems`.
 */
export function parsePermissionRules(list: unknown): { rules: PermissionRule[]; problems: string[] } {
  const rules: PermissionRule[] = [];
  const problems: string[] = [];
  if (list === undefined || list === null) return { rules, problems };
  if (!Array.isArray(list)) {
    problems.push(`expected a list of patterns such as ["read_file", "terminal(npm test*)"], got ${describe(list)}`);
    return { rules, problems };
  }
  list.forEach((entry, index) => {
    if (typeof entry !== "string") {
      problems.push(`entry ${index + 1} is ${describe(entry)}, not a pattern; write e.g. "write_file(src/**)"`);
      return;
    }
    const parsed = parsePermissionRule(entry);
    if (typeof parsed === "string") problems.push(parsed);
    else rules.push(parsed);
  });
  return { rules, problems };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `${typeof value} ${JSON.stringify(value)}`;
}

// ---------------------------------------------------------------------------------------------
// Globs.

/** A command glob: `*` matches anything (spaces too), `?` one character; the whole text must match. */
function commandGlob(glob: string, flags = ""): RegExp {
  let out = "";
  for (const c of glob.replace(/\s+/g, " ")) {
    if (c === "*") out += "[\\s\\S]*";
    else if (c === "?") out += "[\\s\\S]";
    else out += escapeRegExp(c);
  }
  return new RegExp(`^${out}$`, flags);
}

/** A path glob: `**` crosses directories, `*` and `?` stay inside one path segment. */
function pathGlob(glob: string, flags = ""): RegExp {
  let out = "";
  let i = 0;
  while (i < glob.length) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slashAfter = glob[i + 2] === "/";
      out += slashAfter ? "(?:.*/)?" : ".*";
      i += slashAfter ? 3 : 2;
      continue;
    }
    if (c === "*") out += "[^/]*";
    else if (c === "?") out += "[^/]";
    else out += escapeRegExp(c);
    i++;
  }
  return new RegExp(`^${out}$`, flags);
}

function slashes(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** The path as a rule sees it: relative to `base` when inside it, else absolute. */
function ruleText(path: string, base: string): { text: string; inside: boolean } {
  if (!isInside(path, base)) return { text: slashes(path), inside: false };
  return { text: slashes(relative(base, path)) || ".", inside: true };
}

/**
 * Whether a path glob matches `path`. Absolute globs (`/`, `~/`) and globs that climb out of
 * `base` (`../`) match the absolute path; other globs match only paths inside `base`, by their
 * relative form, so `src/**` never matches `../src/x`.
 */
function pathMatches(glob: string, path: string, base: string, flags: string): boolean {
  let pattern = glob.trim();
  if (pattern === "~" || pattern.startsWith("~/")) pattern = homedir() + pattern.slice(1);
  const absolute = isAbsolute(pattern) || pattern === ".." || pattern.startsWith("../");
  if (absolute) {
    return pathGlob(slashes(resolve(base, pattern)), flags).test(slashes(path));
  }
  const { text, inside } = ruleText(path, base);
  if (!inside) return false;
  return pathGlob(posix.normalize(slashes(pattern)), flags).test(text);
}

// ---------------------------------------------------------------------------------------------
// Matching.

type Purpose = "allow" | "deny";

/**
 * Whether one path is matched. An allow needs both the path as written and where its symlinks
 * lead to match (a link inside `src/` to `/etc` is not `src/**`); a deny needs either.
 */
function pathUnitMatches(glob: string, path: string, cwd: string, purpose: Purpose): boolean {
  const base = resolve(cwd);
  const lexical = resolveToolPath(path, base);
  const real = realLocation(lexical);
  const realBase = realLocation(base);
  // A deny also holds for other spellings of the name on case-insensitive file systems.
  const flags = purpose === "deny" ? "i" : "";
  const asWritten = pathMatches(glob, lexical, base, flags);
  const followed = pathMatches(glob, real, realBase, flags);
  return purpose === "allow" ? asWritten && followed : asWritten || followed;
}

/** Whether one simple command of a terminal call is allowed by a command glob. */
function partMatches(glob: string, part: ShellPart): boolean {
  // A redirection into a file is a write the glob's author did not necessarily mean to allow:
  // `terminal(npm test*)` does not cover `npm test > ~/.bashrc` unless the glob names a `>`.
  if (!glob.includes(">") && part.redirects.some(redirectWritesFile)) return false;
  return commandGlob(glob).test(part.text);
}

/** Every text a deny glob is tried on: the whole command and each command inside it. */
function denyCandidates(command: string): string[] {
  const out = new Set<string>([command.replace(/\s+/g, " ").trim()]);
  const strict = parseShellStrict(command);
  if (strict) for (const part of strict.parts) out.add(part.text);
  // The forgiving readers also see into $(...), bash -c '...', sudo and similar wrappers.
  const normalized = normalizeCommand(command);
  for (const simple of parseCommandLine(normalized)) {
    out.add(simple.words.map((w) => w.raw).join(" "));
    out.add(simple.words.map((w) => w.value).join(" "));
  }
  for (const inv of analyzeCommand(command).invocations) {
    out.add([inv.program.value, ...inv.args.map((w) => w.value)].join(" "));
  }
  out.delete("");
  return [...out];
}

/**
 * Whether `rule` matches `call`. For an allow, every path of the call and every simple command
 * of a terminal command must match (a command the strict reader cannot parse never does); for
 * a deny, one path or one command inside the command line is enough.
 */
export function matchRule(rule: PermissionRule, call: ToolCallInfo, purpose: Purpose = "allow"): boolean {
  if (!rule.toolPattern.test(call.name)) return false;
  if (rule.specifier === undefined) return true;
  const units = callUnits(call, purpose);
  if (units.length === 0) return false;
  const test = (unit: Unit) => unitMatches(rule.specifier!, unit, call.cwd, purpose);
  return purpose === "allow" ? units.every(test) : units.some(test);
}

type Unit = { kind: "path"; path: string } | { kind: "part"; part: ShellPart } | { kind: "text"; text: string };

/** What a glob is matched against: the paths, or the simple commands, of a call. */
function callUnits(call: ToolCallInfo, purpose: Purpose): Unit[] {
  const classified = classifyToolCall(call.name, call.args);
  if (classified.command !== undefined) {
    if (purpose === "deny") return denyCandidates(classified.command).map((text) => ({ kind: "text", text }));
    const parsed = parseShellStrict(classified.command);
    return parsed ? parsed.parts.map((part) => ({ kind: "part", part })) : [];
  }
  return classified.paths.map((path) => ({ kind: "path", path }));
}

function unitMatches(glob: string, unit: Unit, cwd: string, purpose: Purpose): boolean {
  if (unit.kind === "path") return pathUnitMatches(glob, unit.path, cwd, purpose);
  if (unit.kind === "part") return partMatches(glob, unit.part);
  // Deny globs ignore case: `RM -rf` runs rm where program names are case-insensitive.
  return commandGlob(glob, "i").test(unit.text);
}

/** The first deny rule that matches the call, if any. */
export function findDenyRule(rules: readonly PermissionRule[], call: ToolCallInfo): PermissionRule | null {
  return rules.find((rule) => matchRule(rule, call, "deny")) ?? null;
}

/**
 * An allow rule covering the call, if the rules together cover it: a bare `tool` rule covers
 * every call; otherwise each path and each simple command needs some rule that matches it
 * (`terminal(npm test*)` and `terminal(npm run lint)` together allow `npm test && npm run lint`).
 */
export function findAllowRule(rules: readonly PermissionRule[], call: ToolCallInfo): PermissionRule | null {
  const named = rules.filter((rule) => rule.toolPattern.test(call.name));
  const bare = named.find((rule) => rule.specifier === undefined);
  if (bare) return bare;
  if (named.length === 0) return null;
  const units = callUnits(call, "allow");
  if (units.length === 0) return null;
  let first: PermissionRule | null = null;
  for (const unit of units) {
    const rule = named.find((r) => unitMatches(r.specifier!, unit, call.cwd, "allow"));
    if (!rule) return null;
    first ??= rule;
  }
  return first;
}
