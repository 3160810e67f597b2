/**
 * The OS sandbox for code the model runs (terminal, background processes, execute_code): on
 * Linux, bubblewrap mounts the whole filesystem read-only, then makes the working directory,
 * the temp directory and the user's extra roots writable, hides the agent's own secrets and the
 * user's key directories, and can cut the network. Text rules in the approval policy stay as a
 * second line; this one does not depend on understanding the command.
 */
import { statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HERMES_UNREADABLE, HOME_SECRET_DIRS } from "./builtin/file-paths.js";
import { type HostFilterProxy, RELAY_PORT, RELAY_SOURCE, startHostFilterProxy } from "./sandbox-proxy.js";

export type SandboxMode = "off" | "workspace-write" | "read-only";

export interface SandboxPolicy {
  mode: Exclude<SandboxMode, "off">;
  /** The bwrap binary. */
  bwrap: string;
  /** Writable besides the working directory (workspace-write) and the temp directory. */
  writableRoots: string[];
  /** false: no network at all inside the sandbox. */
  network: boolean;
  /** With `network: false`, still reach these hosts through a filtering proxy (sandbox-proxy.ts). */
  allowedHosts?: string[];
  /** Files shown as empty inside the sandbox (the agent's credentials and settings). */
  hiddenFiles: string[];
  /** Directories shown as empty inside the sandbox (the user's keys). */
  hiddenDirs: string[];
}

/** Files of HERMES_HOME no sandboxed command sees: what no tool may read, and the settings. */
const HERMES_HIDDEN_FILES = [...HERMES_UNREADABLE, "config.yaml"];

let active: SandboxPolicy | undefined;
let proxy: HostFilterProxy | undefined;

/** Apply (or, with undefined, lift) the sandbox for every command started from now on. */
export function configureSandbox(policy: SandboxPolicy | undefined): void {
  proxy?.close();
  proxy = undefined;
  active = policy;
  if (policy?.allowedHosts && !policy.network) proxy = startHostFilterProxy(policy.allowedHosts);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Everything the sandbox hides, for a HERMES_HOME and the user's home directory. */
export function secretsToHide(hermesHome: string, home = homedir()): Pick<SandboxPolicy, "hiddenFiles" | "hiddenDirs"> {
  return {
    hiddenFiles: HERMES_HIDDEN_FILES.map((name) => join(hermesHome, name)),
    hiddenDirs: HOME_SECRET_DIRS.map((name) => join(home, name)),
  };
}

/** The bwrap arguments that confine a command started in `cwd`. */
export interface ConfineOptions {
  /** Keep the host network even when the policy cuts it. */
  network?: boolean;
  /** Leave out --die-with-parent: the command may outlive the agent (keep_alive). */
  outliveParent?: boolean;
}

export function bubblewrapArgs(policy: SandboxPolicy, cwd: string, options: ConfineOptions = {}): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (!options.outliveParent) args.push("--die-with-parent");
  const writable = [tmpdir(), ...policy.writableRoots];
  if (policy.mode === "workspace-write") writable.unshift(cwd);
  for (const root of writable) {
    const path = resolve(root);
    if (isDirectory(path)) args.push("--bind", path, path);
  }
  // Hidden after the binds, so a secret inside a writable root is hidden too.
  for (const dir of policy.hiddenDirs) if (isDirectory(dir)) args.push("--tmpfs", dir);
  for (const file of policy.hiddenFiles) if (isFile(file)) args.push("--ro-bind", "/dev/null", file);
  if (!(options.network ?? policy.network)) args.push("--unshare-net");
  args.push("--chdir", cwd, "--");
  return args;
}

/**
 * `file args` as the sandbox would run it: unchanged when no sandbox is active. `network:
 * true` keeps the host network even when the policy cuts it (execute_code talks to its tool
 * server over loopback).
 */
export function sandboxed(
  file: string,
  args: string[],
  cwd: string,
  options: ConfineOptions = {},
): { file: string; args: string[] } {
  if (!active) return { file, args };
  const confinement = bubblewrapArgs(active, cwd, options);
  if (proxy && !options.network) {
    const relay = [process.execPath, "-e", RELAY_SOURCE, proxy.socketPath, String(RELAY_PORT), file, ...args];
    return { file: active.bwrap, args: [...confinement, ...relay] };
  }
  return { file: active.bwrap, args: [...confinement, file, ...args] };
}
