/**
 * What one command of a session leaves for the next (`terminal.persistent_shell`, on by
 * default): the directory it ended in after a `cd`, and the variables it exported or unset
 * (`export X=1`, `source venv/bin/activate`). Each command still runs in a fresh bash, so a
 * timeout or a kill never leaves a half-dead shell behind: a few lines after the command write
 * where it ended and its exported variables to a private file, and the session's next command
 * starts from there. A command that ends the shell itself (`exit`, `exec`), times out or is
 * interrupted leaves the state as it was.
 *
 * Not carried over: functions, aliases and unexported variables; the variables the agent
 * withholds from commands (its own keys) and those the terminal always sets.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FORCED_COMMAND_VARIABLES, isWithheldFromCommands } from "./process-group.js";

export interface SessionShellState {
  /** Where the last command ended, when that is not the session's working directory. */
  cwd: string | undefined;
  /** Variables set (a string) or unset (null) by the session's commands, over the base environment. */
  env: Map<string, string | null>;
}

/** Sessions remembered at once; the least recently used is forgotten first. */
const MAX_SESSIONS = 512;
const sessions = new Map<string, SessionShellState>();

/** Variables that describe the shell itself rather than what the command set up. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_", "BASH_ENV"]);

/**
 * Runs the command (`$2`) in this shell, then writes `$PWD`, a NUL and each exported variable
 * as NAME=value and a NUL to `$1`, with bash built-ins only (called as such, so a function the
 * command defined cannot stand in for them), and exits with the command's status.
 */
const WRAPPER = `__hermes_state=$1; __hermes_cmd=$2; set --
eval "$__hermes_cmd"
__hermes_status=$?
set +eu; IFS=$' \\t\\n'
{ builtin printf '%s\\0' "$PWD"; for __hermes_name in $(builtin compgen -e); do builtin printf '%s=%s\\0' "$__hermes_name" "\${!__hermes_name}"; done; } > "$__hermes_state" 2>/dev/null
exit $__hermes_status`;

let stateDir: string | undefined;

/** The state of `sessionId`'s shell, created empty on first use. */
export function shellStateFor(sessionId: string): SessionShellState {
  let state = sessions.get(sessionId);
  if (state) {
    sessions.delete(sessionId);
  } else {
    state = { cwd: undefined, env: new Map() };
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  }
  sessions.set(sessionId, state);
  return state;
}

/** `base` with the session's variables applied. */
export function withSessionEnv(base: NodeJS.ProcessEnv, state: SessionShellState): NodeJS.ProcessEnv {
  if (state.env.size === 0) return base;
  const env = { ...base };
  for (const [name, value] of state.env) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface WrappedCommand {
  /** What to run: `bash -c <args...>`. */
  args: string[];
  /** Where the wrapper writes the state; read it with `recordShellState`. */
  stateFile: string;
}

/** The bash arguments that run `command` and save what it leaves behind. */
export function wrapForState(command: string): WrappedCommand {
  if (stateDir === undefined) {
    const dir = mkdtempSync(join(tmpdir(), "hermes-shell-"));
    stateDir = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  const stateFile = join(stateDir, `${process.pid}-${Math.random().toString(36).slice(2)}.state`);
  return { args: [WRAPPER, "bash", stateFile, command], stateFile };
}

/**
 * Reads what the wrapped command left (nothing when it did not get to write it) into the
 * session's state. `ran` is the environment the command started with, `sessionCwd` the
 * session's working directory; with `keepCwd` false (a one-off `workdir`) the directory is not
 * taken over. Returns whether anything was read.
 */
export function recordShellState(
  state: SessionShellState,
  stateFile: string,
  ran: NodeJS.ProcessEnv,
  sessionCwd: string,
  keepCwd: boolean,
): boolean {
  let text: string;
  try {
    text = readFileSync(stateFile, "utf8");
  } catch {
    return false;
  } finally {
    rmSync(stateFile, { force: true });
  }
  const fields = text.split("\0");
  const cwd = fields[0];
  if (!cwd || fields.length < 2) return false;
  if (keepCwd) state.cwd = cwd === sessionCwd ? undefined : cwd;
  const after = new Map<string, string>();
  for (const entry of fields.slice(1)) {
    const eq = entry.indexOf("=");
    if (eq > 0) after.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  const carried = (name: string) =>
    !SHELL_OWN.has(name) && !FORCED_COMMAND_VARIABLES.has(name) && !isWithheldFromCommands(name);
  for (const [name, value] of after) {
    if (carried(name) && ran[name] !== value) state.env.set(name, value);
  }
  for (const name of Object.keys(ran)) {
    if (carried(name) && !after.has(name)) state.env.set(name, null);
  }
  return true;
}

/** Removes what a command that was stopped may have begun to write: it never reached a state to keep. */
export function discardShellState(stateFile: string): void {
  rmSync(stateFile, { force: true });
}

/** Forgets every session's state (tests, and a runtime that reconfigures the terminal). */
export function resetShellStates(): void {
  sessions.clear();
}
