/**
 * `execute_code`: run a short Python or JavaScript program that calls a whitelisted set of
 * tools through a generated client, so a chain of tool calls costs one model turn and only the
 * program's printed output enters the context.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, sep } from "node:path";
import { findExecutable } from "../../util/executable.js";
import { nodeCrypto } from "../../util/node-crypto.js";
import { z } from "../../util/schema/index.js";
import { ApprovalPolicy } from "../approval/policy.js";
import { nodeClient, pythonClient, type ToolSignature, toolSignature } from "../code-clients.js";
import { startToolRpcServer, type ToolDispatcher } from "../code-rpc.js";
import { cleanTerminalOutput, HeadTailBuffer } from "../output-capture.js";
import { exitCodeOf, spawnGroup, superviseChild } from "../process-group.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { scriptDanger } from "./script-danger.js";

export const SANDBOX_ALLOWED_TOOLS: readonly string[] = [
  "web_search",
  "web_extract",
  "read_file",
  "write_file",
  "search_files",
  "patch",
  "terminal",
];
/** Terminal arguments a script may not use: it must not leave processes behind. */
export const TERMINAL_BLOCKED_PARAMS: readonly string[] = ["background", "notify_on_complete", "pty", "watch_patterns"];
export const DEFAULT_CODE_TIMEOUT_SECONDS = 300;
export type CodeExecutionMode = "project" | "strict";
/** Variables that point Python at the user's environment: a strict script runs without them. */
const PYTHON_ENVIRONMENT_VARIABLES = ["VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYTHONPATH", "PYTHONHOME"];
export const DEFAULT_MAX_TOOL_CALLS = 50;
export const MAX_STDOUT_CHARS = 50_000;
export const MAX_STDERR_CHARS = 10_000;

/** Variables a script inherits: the basics, never anything that looks like a secret. */
const SAFE_ENV_PREFIXES = ["PATH", "HOME", "USER", "LANG", "LC_", "TERM", "TMPDIR", "TMP", "TEMP", "SHELL", "LOGNAME"];
const SAFE_ENV_EXTRA = ["XDG_", "PYTHONPATH", "VIRTUAL_ENV", "CONDA", "NODE_PATH"];
const SECRET_MARKERS = ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"];

export interface ExecuteCodeDeps {
  /** `code_execution.timeout` in seconds. */
  timeoutSeconds?: number;
  /** `code_execution.max_tool_calls`. */
  maxToolCalls?: number;
  /** Python interpreter; default: the active virtualenv's or conda's (project mode), else "python3". */
  python?: string;
  /**
   * `code_execution.mode`: `project` runs the script in the session's working directory with the
   * active virtualenv; `strict` in its own scratch folder, without the user's Python environment.
   */
  mode?: CodeExecutionMode;
  /** Registry used when `ctx.services.registry` is absent. */
  registry?: ToolRegistry;
  /** Approval policy used when `ctx.services.approvals` is absent. */
  approvals?: ApprovalPolicy;
  killGraceMs?: number;
}

export const executeCodeParameters = z.object({
  code: z
    .string()
    .describe(
      "Python: `from hermes_tools import terminal, ...`; JavaScript (ESM, top-level await): `import { terminal } from './hermes_tools.mjs'`.",
    ),
  language: z.enum(["python", "javascript"]).optional().describe("Default python"),
});

export type ExecuteCodeArgs = z.infer<typeof executeCodeParameters>;

export interface ExecuteCodeResult {
  status: "success" | "error" | "timeout" | "interrupted";
  output: string;
  exit_code: number | null;
  error?: string;
  /** What the program wrote to stderr when it still succeeded (warnings). */
  stderr?: string;
  tool_calls_made: number;
  duration_seconds: number;
}

function describe(timeoutSeconds: number, maxCalls: number): string {
  return [
    "Run a Python or JavaScript program that calls tools, for multi-step work in one turn.",
    `It may call ${SANDBOX_ALLOWED_TOOLS.join(", ")} (results parsed from JSON; terminal in the foreground).`,
    `Returns JSON with what it printed (up to ${MAX_STDOUT_CHARS} characters) and its status;`,
    `limits ${timeoutSeconds}s and ${maxCalls} tool calls.`,
  ].join(" ");
}

export function registerExecuteCodeTools(registry: ToolRegistry, deps: ExecuteCodeDeps = {}): void {
  const resolved = { ...deps, registry: deps.registry ?? registry };
  registry.register({
    name: "execute_code",
    toolset: "code_execution",
    description: describe(
      deps.timeoutSeconds ?? DEFAULT_CODE_TIMEOUT_SECONDS,
      deps.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
    ),
    parameters: executeCodeParameters,
    emoji: "🐍",
    maxResultChars: 100_000,
    handler: async (args, ctx) => JSON.stringify(await executeCode(args, ctx, resolved)),
  });
}

/** Tools the script may call: the whitelist, narrowed to what this session has enabled. */
function allowedTools(registry: ToolRegistry, ctx: ToolContext): string[] {
  const present = SANDBOX_ALLOWED_TOOLS.filter((name) => registry.has(name));
  const enabled = ctx.services?.enabledTools;
  if (!Array.isArray(enabled)) return present;
  const narrowed = present.filter((name) => enabled.includes(name));
  return narrowed.length > 0 ? narrowed : present;
}

function signatures(registry: ToolRegistry, names: string[]): ToolSignature[] {
  return registry.definitions(names).map((d) => {
    const hidden = d.function.name === "terminal" ? TERMINAL_BLOCKED_PARAMS : [];
    return toolSignature(d.function.name, d.function.description, d.function.parameters, hidden);
  });
}

function scriptEnv(url: string, token: string, strict: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const upper = name.toUpperCase();
    const safe = [...SAFE_ENV_PREFIXES, ...SAFE_ENV_EXTRA].some((p) => upper.startsWith(p));
    if (safe && !SECRET_MARKERS.some((m) => upper.includes(m))) env[name] = value;
  }
  if (strict) withoutPythonEnvironment(env);
  return {
    ...env,
    HERMES_RPC_URL: url,
    HERMES_RPC_TOKEN: token,
    PYTHONUNBUFFERED: "1",
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONIOENCODING: "utf-8",
  };
}

export async function executeCode(
  args: ExecuteCodeArgs,
  ctx: ToolContext,
  deps: ExecuteCodeDeps = {},
): Promise<ExecuteCodeResult> {
  const started = Date.now();
  const registry = (ctx.services?.registry as ToolRegistry | undefined) ?? deps.registry;
  const result = (status: ExecuteCodeResult["status"], fields: Partial<ExecuteCodeResult>): ExecuteCodeResult => ({
    status,
    output: "",
    exit_code: null,
    tool_calls_made: 0,
    duration_seconds: Math.round((Date.now() - started) / 100) / 10,
    ...fields,
  });
  if (!registry) return result("error", { error: "execute_code is not wired to a tool registry" });
  if (!args.code.trim()) return result("error", { error: "code is empty" });
  if (ctx.signal.aborted) return result("interrupted", { error: "the turn was interrupted" });
  const danger = scriptDanger(args.code);
  if (danger) {
    const policy = (ctx.services?.approvals as ApprovalPolicy | undefined) ?? deps.approvals ?? new ApprovalPolicy();
    const verdict = await policy.checkAction(`execute_code script (${args.code.length} characters)`, danger, ctx);
    if (!verdict.allowed) {
      return result("error", {
        error: `${verdict.message} Do the risky part with the terminal tool (checked command by command), or without running programs or deleting files in the script.`,
      });
    }
  }

  const language = args.language ?? "python";
  const tools = allowedTools(registry, ctx);
  const token = nodeCrypto().randomBytes(24).toString("hex");
  // Tool calls still running when the program ends (killed, timed out) are cancelled with it.
  const runEnded = new AbortController();
  const rpc = await startToolRpcServer({
    registry,
    ctx: { ...ctx, signal: AbortSignal.any([ctx.signal, runEnded.signal]) },
    allowedTools: new Set(tools),
    maxToolCalls: deps.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS,
    token,
    strippedArgs: { terminal: TERMINAL_BLOCKED_PARAMS },
    dispatch: ctx.services?.dispatchTool as ToolDispatcher | undefined,
  });
  const dir = mkdtempSync(join(tmpdir(), "hermes-code-"));
  try {
    const strict = deps.mode === "strict";
    const env = scriptEnv(rpc.url, token, strict);
    const launch = prepareLaunch(dir, language, args.code, signatures(registry, tools), { ...deps, env });
    const run = await runScript(launch.file, launch.argv, { cwd: strict ? dir : ctx.cwd, ctx }, env, deps);
    const fields = { output: run.stdout, exit_code: run.exitCode, tool_calls_made: rpc.callsMade() };
    if (run.startError)
      return result("error", { ...fields, error: `could not start ${launch.file}: ${run.startError}` });
    if (run.stopReason === "timeout") {
      const limit = deps.timeoutSeconds ?? DEFAULT_CODE_TIMEOUT_SECONDS;
      return result("timeout", { ...fields, error: `the program was killed after ${limit}s` });
    }
    if (run.stopReason === "interrupted")
      return result("interrupted", { ...fields, error: "the turn was interrupted" });
    if (run.exitCode !== 0) return result("error", { ...fields, error: run.stderr || `exit code ${run.exitCode}` });
    return result("success", run.stderr ? { ...fields, stderr: run.stderr } : fields);
  } finally {
    runEnded.abort();
    await rpc.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Drops the virtualenv or conda environment: its variables, and its folders from PATH. */
function withoutPythonEnvironment(env: NodeJS.ProcessEnv): void {
  const roots = [env.VIRTUAL_ENV, env.CONDA_PREFIX].filter((root): root is string => Boolean(root));
  for (const name of PYTHON_ENVIRONMENT_VARIABLES) delete env[name];
  if (env.PATH && roots.length > 0) {
    env.PATH = env.PATH.split(delimiter)
      .filter((entry) => !roots.some((root) => entry === root || entry.startsWith(`${root}${sep}`)))
      .join(delimiter);
  }
}

/** The interpreter of the project's active environment (virtualenv first, then conda), else python3. */
function projectPython(env: NodeJS.ProcessEnv): string {
  for (const root of [env.VIRTUAL_ENV, env.CONDA_PREFIX]) {
    if (!root) continue;
    const python = findExecutable(join(root, process.platform === "win32" ? "Scripts" : "bin", "python"));
    if (python) return python;
  }
  return "python3";
}

function prepareLaunch(
  dir: string,
  language: "python" | "javascript",
  code: string,
  sigs: ToolSignature[],
  deps: ExecuteCodeDeps & { env: NodeJS.ProcessEnv },
): { file: string; argv: string[] } {
  if (language === "python") {
    writeFileSync(join(dir, "hermes_tools.py"), pythonClient(sigs));
    writeFileSync(join(dir, "script.py"), code);
    const python = deps.python ?? (deps.mode === "strict" ? "python3" : projectPython(deps.env));
    return { file: python, argv: [join(dir, "script.py")] };
  }
  writeFileSync(join(dir, "hermes_tools.mjs"), nodeClient(sigs));
  writeFileSync(join(dir, "script.mjs"), code);
  return { file: process.execPath, argv: [join(dir, "script.mjs")] };
}

interface ScriptRun {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  stopReason?: "timeout" | "interrupted";
  startError?: string;
}

async function runScript(
  file: string,
  args: string[],
  where: { cwd: string; ctx: ToolContext },
  env: NodeJS.ProcessEnv,
  deps: ExecuteCodeDeps,
): Promise<ScriptRun> {
  const { ctx } = where;
  const stdout = new HeadTailBuffer(Math.floor(MAX_STDOUT_CHARS * 0.4), Math.floor(MAX_STDOUT_CHARS * 0.6));
  const stderr = new HeadTailBuffer(Math.floor(MAX_STDERR_CHARS * 0.3), Math.floor(MAX_STDERR_CHARS * 0.7));
  // The script calls tools over loopback, so it keeps the network even in a sandbox without one.
  const child = spawnGroup(file, args, { cwd: where.cwd, env, stdin: "ignore", network: true });
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => stdout.append(chunk));
  child.stderr?.on("data", (chunk: string) => stderr.append(chunk));
  try {
    const exit = await superviseChild(child, {
      timeoutMs: (deps.timeoutSeconds ?? DEFAULT_CODE_TIMEOUT_SECONDS) * 1000,
      signal: ctx.signal,
      graceMs: deps.killGraceMs,
    });
    return {
      stdout: cleanTerminalOutput(stdout.text()),
      stderr: cleanTerminalOutput(stderr.text()).trim(),
      exitCode: exitCodeOf(exit),
      stopReason: exit.stopReason,
    };
  } catch (err) {
    return { stdout: "", stderr: "", exitCode: null, startError: (err as Error).message };
  }
}
