/**
 * The user's shell set-up for the commands the agent runs. Tools such as nvm, pyenv, asdf or a
 * ~/.local/bin line add to PATH (and define functions and aliases) in the user's login files,
 * which bash never reads for `bash -c`, and which a service (the gateway under systemd, cron)
 * never ran at all. So, once per process, before the first command, one bash sources those
 * files (`terminal.shell_init_files`, or ~/.profile, ~/.bash_profile and ~/.bashrc while
 * `terminal.auto_source_bashrc` is on) and reports what it ends with: its exported variables
 * become the commands' environment (still without the agent's own keys), and its functions and
 * aliases go to a file each command's bash reads first (BASH_ENV).
 *
 * That bash runs like any command, inside the sandbox when one is active. A file that fails,
 * hangs or exits leaves the commands with the plain environment, and a warning in the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { isDirectory, isFile } from "../util/fs-kind.js";
import { log } from "../util/log.js";
import { commandEnv, signalGroup, spawnGroup, waitForChild } from "./process-group.js";

export interface ShellInitSettings {
  /** `terminal.shell_init_files`: sourced in this order; `~` and `$VAR` are expanded, missing files skipped. */
  files: readonly string[];
  /** `terminal.auto_source_bashrc`: with no files named, source the usual bash start-up files. */
  autoSourceBashrc: boolean;
}

/** What bash would read for a login shell, and ~/.bashrc, which a login shell skips. */
const AUTO_FILES = ["~/.profile", "~/.bash_profile", "~/.bashrc"];
/** A start-up file slower than this (a network call in ~/.bashrc) is given up on. */
const CAPTURE_TIMEOUT_MS = 10_000;
/** Variables that describe the capturing shell itself, not the user's set-up. */
const SHELL_OWN = new Set(["PWD", "OLDPWD", "SHLVL", "_", "BASH_ENV"]);

/**
 * Sources the files (quietly, with no input), then prints its functions and aliases, a NUL, and
 * each exported variable as NAME=value followed by a NUL. Only bash built-ins, so it works the
 * same wherever bash does.
 */
const CAPTURE_SCRIPT = `for __hermes_file in "$@"; do . "$__hermes_file"; done </dev/null >/dev/null 2>&1
unset __hermes_file; set +eu; IFS=$' \t\n'
declare -f; alias -p
printf '\\0'
for __hermes_name in $(compgen -e); do printf '%s=%s\\0' "$__hermes_name" "\${!__hermes_name}"; done`;

export interface ShellSnapshot {
  /** Exported variables after the files ran. */
  env: NodeJS.ProcessEnv;
  /** Functions and aliases, for BASH_ENV; undefined when the files defined none. */
  definitionsFile: string | undefined;
}

let settings: ShellInitSettings = { files: [], autoSourceBashrc: false };
let snapshot: Promise<ShellSnapshot | undefined> | undefined;
let snapshotDir: string | undefined;

/** Set by the runtime from config.yaml; until then (and in tests) commands get the plain environment. */
export function configureShellInit(next: ShellInitSettings): void {
  settings = { files: [...next.files], autoSourceBashrc: next.autoSourceBashrc };
  snapshot = undefined;
}

/** `~`, `~/x`, `$VAR` and `${VAR}` as a shell would expand them in a path (unset variables are empty). */
export function expandPath(raw: string, env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const tilde = raw === "~" ? home : raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
  return tilde.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, braced?: string, bare?: string) => env[braced ?? bare ?? ""] ?? "");
}

/** The start-up files to source, in order: the named ones, or the usual ones, that exist. */
export function shellInitFiles(
  current: ShellInitSettings = settings,
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
): string[] {
  const named = current.files.filter((file) => file.trim() !== "");
  const candidates = named.length > 0 ? named : current.autoSourceBashrc ? AUTO_FILES : [];
  return candidates.map((file) => expandPath(file.trim(), env, home)).filter(isFile);
}

/** The environment for a command the model runs: the user's shell set-up, without the agent's keys. */
export async function shellCommandEnv(): Promise<NodeJS.ProcessEnv> {
  snapshot ??= captureShellInit(shellInitFiles());
  const captured = await snapshot;
  if (!captured) return commandEnv();
  const env = commandEnv(captured.env);
  if (captured.definitionsFile) env.BASH_ENV = captured.definitionsFile;
  return env;
}

/** Runs the files in one bash and reads back what they set; undefined when there is nothing to read. */
export async function captureShellInit(
  files: readonly string[],
  timeoutMs = CAPTURE_TIMEOUT_MS,
): Promise<ShellSnapshot | undefined> {
  if (files.length === 0) return undefined;
  const home = homedir();
  const child = spawnGroup("bash", ["-c", CAPTURE_SCRIPT, "hermes-shell-init", ...files], {
    cwd: isDirectory(home) ? home : process.cwd(),
    env: commandEnv(),
  });
  const chunks: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => chunks.push(chunk));
  child.stderr?.resume();
  const timer = setTimeout(() => signalGroup(child.pid, "SIGKILL"), timeoutMs);
  let exit: Awaited<ReturnType<typeof waitForChild>>;
  try {
    exit = await waitForChild(child);
  } catch (error) {
    log("warn", "terminal", "could not run the shell start-up files", { error: (error as Error).message });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
  const parsed = parseCapture(Buffer.concat(chunks).toString("utf8"));
  if (exit.code !== 0 || !parsed) {
    const why = exit.signal === "SIGKILL" ? `still running after ${timeoutMs / 1000} s` : `exit ${exit.code}`;
    log("warn", "terminal", "the shell start-up files did not finish; commands get the plain environment", {
      files: files.join(" "),
      reason: why,
    });
    return undefined;
  }
  return { env: parsed.env, definitionsFile: writeDefinitions(parsed.definitions) };
}

/** Splits the capture into definitions and variables; undefined when the script did not get that far. */
export function parseCapture(output: string): { definitions: string; env: NodeJS.ProcessEnv } | undefined {
  const split = output.indexOf("\0");
  if (split < 0) return undefined;
  const env: NodeJS.ProcessEnv = {};
  for (const entry of output.slice(split + 1).split("\0")) {
    const eq = entry.indexOf("=");
    if (eq <= 0) continue;
    const name = entry.slice(0, eq);
    if (!SHELL_OWN.has(name)) env[name] = entry.slice(eq + 1);
  }
  return { definitions: output.slice(0, split).trim(), env };
}

/**
 * The file BASH_ENV names: aliases need `expand_aliases` outside an interactive shell, and
 * BASH_ENV is unset again so that scripts the command runs start as they would for the user.
 */
function writeDefinitions(definitions: string): string | undefined {
  if (!definitions) return undefined;
  try {
    snapshotDir ??= createSnapshotDir();
    const file = join(snapshotDir, "shell-init.bash");
    writeFileSync(file, `shopt -s expand_aliases\n${definitions}\nunset BASH_ENV\n`, { mode: 0o600 });
    return file;
  } catch (error) {
    log("warn", "terminal", "could not keep the shell functions and aliases", { error: (error as Error).message });
    return undefined;
  }
}

function createSnapshotDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-shell-"));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
