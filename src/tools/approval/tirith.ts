/**
 * The optional tirith scanner (https://github.com/sheeki03/tirith) before shell commands:
 * `security.tirith_enabled`, `tirith_path`, `tirith_timeout`, `tirith_fail_open`.
 *
 * tirith's contract, as its `check` subcommand defines it:
 * - `tirith check --json --non-interactive --shell posix -- "<command>"`: one argument after `--`
 *   is analysed verbatim (several would be re-quoted and joined). `--json` is the hidden alias
 *   of `--format json`, kept so older releases understand it too.
 * - exit codes: 0 allow, 1 block, 2 warn, 3 warning that must be acknowledged (`strict_warn`),
 *   4 block deferred for review (`--defer` / `TIRITH_DEFER=1`). Errors exit 1 or 2 as well
 *   (an unknown shell prints `{"error": "..."}` and exits 2), so an exit code alone is not a
 *   verdict: the JSON must carry an `action` too.
 * - stdout, one line: `{"schema_version":3,"action":"allow"|"warn"|"block"|"warn_ack",
 *   "findings":[{"rule_id","severity","title","description","evidence":[...],"remediation"}],
 *   "tier_reached","bypass_requested","bypass_honored","interactive_detected",
 *   "policy_path_used","timings_ms",...}`; human messages go to stderr.
 * - bypass: `TIRITH=0` in tirith's environment, or a `TIRITH=0 ` prefix in the command text,
 *   skips the analysis where tirith's policy allows it (`allow_bypass_env`, and
 *   `allow_bypass_env_noninteractive`, off by default, under `--non-interactive`). Other
 *   variables change its behaviour: `TIRITH_INTERACTIVE`, `TIRITH_DEFER`, `TIRITH_POLICY_ROOT`,
 *   `TIRITH_OFFLINE`, `TIRITH_SERVER_URL`, ... So tirith gets a small fixed environment (below)
 *   with no `TIRITH*` variable, and a verdict that says a bypass was honoured counts as a flag.
 *
 * What a verdict does (docs/security.md): allow leaves the command to our own rules; warn and
 * block make it need a yes like a dangerous command; a failure (timeout, crash, unreadable
 * answer, a `tirith_path` that is not there) is a notice and our own rules with
 * `tirith_fail_open: true`, and a yes needed with `false`. A missing `tirith` at the default
 * path is skipped without a word: most installs do not have it.
 */

import { spawn } from "node:child_process";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { findExecutable } from "../../util/executable.js";
import { isDirectory } from "../../util/fs-kind.js";
import { redactSecrets } from "../../util/redact.js";
import type { ApprovalTarget, CommandScanner } from "./policy.js";
import { cleanText, describeVerdict, readVerdict, type TirithVerdict, verdictKey } from "./tirith-verdict.js";

export const DEFAULT_TIRITH_PATH = "tirith";

/** The variables tirith may see: where things are and the locale, nothing that steers a scan. */
const PASSED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "XDG_CONFIG_HOME",
  "XDG_STATE_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_RUNTIME_DIR",
  "SYSTEMROOT",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
];
const MAX_OUTPUT_CHARS = 1024 * 1024;

export interface TirithOptions {
  /** `security.tirith_path`: a name looked up on PATH, or a path (`~/` allowed). */
  path: string;
  timeoutSeconds: number;
  failOpen: boolean;
  notice: (message: string) => void;
  /** Also looked in for the default name after PATH ($HERMES_HOME/bin, where the original installs it). */
  fallbackDir?: string;
  /** Where PATH and the passed variables come from; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface TirithSecurityConfig {
  tirith_enabled: boolean;
  tirith_path: string;
  tirith_timeout: number;
  tirith_fail_open: boolean;
}

/** The scanner the `security.tirith_*` keys ask for, or undefined when it is off. */
export function tirithScannerFromConfig(
  security: TirithSecurityConfig,
  home: string,
  notice: (message: string) => void,
): CommandScanner | undefined {
  if (!security.tirith_enabled) return undefined;
  return tirithScanner({
    path: security.tirith_path,
    timeoutSeconds: security.tirith_timeout,
    failOpen: security.tirith_fail_open,
    notice,
    fallbackDir: join(home, "bin"),
  });
}

type RunOutcome = { code: number; stdout: string; stderr: string } | { error: string } | { interrupted: true };

export function tirithScanner(options: TirithOptions): CommandScanner {
  const env = options.env ?? process.env;
  // Looked up once, on the first command: an absent tirith costs one PATH walk per process.
  let binary: string | null | undefined;
  let missingReported = false;

  const failure = (reason: string, quiet = false): ApprovalTarget | null => {
    if (!options.failOpen) {
      return {
        key: "tirith:unavailable",
        description: `tirith could not check this command (${reason}) and security.tirith_fail_open is false`,
      };
    }
    if (!quiet) options.notice(`tirith could not check a command (${reason}); hermes' own rules decide alone.`);
    return null;
  };

  return async (command, ctx) => {
    if (binary === undefined) binary = locateTirith(options.path, options.fallbackDir, env) ?? null;
    if (binary === null) {
      if (options.path === DEFAULT_TIRITH_PATH) return null;
      const quiet = missingReported;
      missingReported = true;
      return failure(`security.tirith_path "${options.path}" is not an executable file`, quiet);
    }
    const cwd = isDirectory(ctx.cwd) ? ctx.cwd : undefined;
    const outcome = await runCheck(binary, command, { cwd, env, timeoutSeconds: options.timeoutSeconds }, ctx.signal);
    // An interrupted turn must not turn into "nothing found": the prompt that follows sees the abort.
    if ("interrupted" in outcome) return { key: "tirith:interrupted", description: "the turn was interrupted" };
    if ("error" in outcome) return failure(outcome.error);
    const verdict = readVerdict(outcome.code, outcome.stdout);
    if ("error" in verdict) return failure(`${verdict.error}${lastLine(outcome.stderr)}`);
    return targetFor(verdict);
  };
}

function targetFor(verdict: TirithVerdict): ApprovalTarget | null {
  if (verdict.bypassHonored) {
    return {
      key: "tirith:bypass",
      description: "the command asks tirith to skip its check (TIRITH=0) and tirith's policy let it",
    };
  }
  if (verdict.action === "allow") return null;
  return { key: verdictKey(verdict), description: describeVerdict(verdict) };
}

/** The executable `path` names, or undefined; a name without a slash is looked up on PATH. */
export function locateTirith(
  path: string,
  fallbackDir: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const expanded = path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
  if (/[/\\]/.test(expanded)) return findExecutable(resolve(expanded));
  const onPath = findExecutable(expanded, env.PATH ?? "");
  if (onPath || !fallbackDir || path !== DEFAULT_TIRITH_PATH) return onPath;
  return findExecutable(join(fallbackDir, expanded));
}

/** The environment tirith runs with: only the variables in PASSED_ENV, and no colours. */
export function tirithEnv(source: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NO_COLOR: "1" };
  for (const name of PASSED_ENV) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function runCheck(
  binary: string,
  command: string,
  options: { cwd: string | undefined; env: NodeJS.ProcessEnv; timeoutSeconds: number },
  signal: AbortSignal,
): Promise<RunOutcome> {
  if (signal.aborted) return Promise.resolve({ interrupted: true });
  return new Promise((settle) => {
    const args = ["check", "--json", "--non-interactive", "--shell", "posix", "--", command];
    const child = spawn(binary, args, {
      cwd: options.cwd,
      env: tirithEnv(options.env),
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    let stdout = "";
    let stderr = "";
    let done = false;
    const finish = (outcome: RunOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      settle(outcome);
    };
    // Settle at the deadline without waiting for the pipes: a grandchild may still hold them.
    const timer = setTimeout(
      () => finish({ error: `no answer within ${options.timeoutSeconds}s` }),
      options.timeoutSeconds * 1000,
    );
    const onAbort = () => finish({ interrupted: true });
    signal.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_OUTPUT_CHARS) finish({ error: "its output is over 1 MiB" });
    });
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    child.on("error", (error) => finish({ error: `it could not start: ${error.message}` }));
    child.on("close", (code, killedBy) => {
      if (code !== null) finish({ code, stdout, stderr });
      else finish({ error: `it was killed by ${killedBy ?? "a signal"}${lastLine(stderr)}` });
    });
  });
}

/** The end of what tirith said on stderr (a panic message, say), for a notice. */
function lastLine(stderr: string): string {
  const line = cleanText(redactSecrets(stderr.trim().split("\n").pop() ?? ""), 120);
  return line ? `: ${line}` : "";
}
