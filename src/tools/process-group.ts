/**
 * Shell children in their own process group, so a timeout or an interrupt can stop the whole
 * tree (`npm test` and every worker it forked), not just the shell that started it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { sandboxed } from "./sandbox.js";

export interface ShellOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** "pipe" keeps stdin open for writing; "ignore" gives the command an immediate EOF. */
  stdin?: "pipe" | "ignore";
  /** Keep the host network inside the sandbox even when the sandbox cuts it. */
  network?: boolean;
  /** Send stdout and stderr to this file descriptor instead of pipes. */
  outputFd?: number;
  /** The command may outlive this process (it is not tied to it, inside the sandbox either). */
  outliveParent?: boolean;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

let withheld = new Set<string>();

/**
 * Variables commands run for the model never see: the agent's own provider keys, which a
 * command (or a prompt-injected script) could otherwise print or send away. The runtime sets
 * them from the provider catalog, less `terminal.env_passthrough`.
 */
export function withholdFromCommands(names: Iterable<string>): void {
  withheld = new Set(names);
}

export function isWithheldFromCommands(name: string): boolean {
  return withheld.has(name);
}

/** Set for every command: no pager or password prompt may wait for a key nobody will press. */
const FORCED = { PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };
export const FORCED_COMMAND_VARIABLES: ReadonlySet<string> = new Set(Object.keys(FORCED));

/** Environment for commands run on the model's behalf: no agent keys, no pagers that would wait for a key. */
export function commandEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!withheld.has(name)) env[name] = value;
  return { ...env, ...FORCED };
}

export function spawnShell(command: string, options: ShellOptions): ChildProcess {
  return spawnGroup("bash", ["-c", command], options);
}

/** Start `file args` as the leader of a new process group, inside the sandbox when one is active. */
export function spawnGroup(file: string, args: string[], options: ShellOptions): ChildProcess {
  const confined = sandboxed(file, args, options.cwd, {
    ...(options.network ? { network: true } : {}),
    ...(options.outliveParent ? { outliveParent: true } : {}),
  });
  const output = options.outputFd ?? "pipe";
  return spawn(confined.file, confined.args, {
    cwd: options.cwd,
    env: options.env ?? commandEnv(),
    detached: true,
    stdio: [options.stdin ?? "ignore", output, output],
  });
}

/** Send a signal to the whole group led by `pid`; a group that is already gone is fine. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already empty.
  }
}

/**
 * Resolve once the child has exited and its output pipes are drained. A grandchild that
 * inherited the pipes (a server started with `&`) could hold them open forever, so after the
 * exit we wait at most `drainMs` for the pipes before closing them ourselves.
 */
export function waitForChild(child: ChildProcess, drainMs = 1000): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    let exit: ChildExit | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (drainTimer) clearTimeout(drainTimer);
      resolve(exit ?? { code: child.exitCode, signal: child.signalCode });
    };
    child.once("error", (err) => {
      if (drainTimer) clearTimeout(drainTimer);
      reject(err);
    });
    child.once("close", (code, signal) => {
      exit ??= { code, signal };
      finish();
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, drainMs);
      drainTimer.unref();
    });
  });
}

/**
 * Stop the group: SIGTERM, then SIGKILL for whatever is still there after `graceMs`.
 * Resolves when the leader has exited.
 */
export async function terminateGroup(child: ChildProcess, exited: Promise<unknown>, graceMs = 2000): Promise<void> {
  signalGroup(child.pid, "SIGTERM");
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, graceMs);
  });
  await Promise.race([exited.catch(() => undefined), graceOver]);
  if (timer) clearTimeout(timer);
  // Children that ignored SIGTERM (or outlived the shell) are swept here.
  signalGroup(child.pid, "SIGKILL");
  await exited.catch(() => undefined);
}

/** Exit status as a shell would report it: 128 + signal number for a killed process. */
export function exitCodeOf(exit: ChildExit): number {
  if (exit.code !== null) return exit.code;
  const signals: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return 128 + (exit.signal ? (signals[exit.signal] ?? 0) : 0);
}

export interface SupervisedExit extends ChildExit {
  /** Set when we stopped the child rather than it finishing on its own. */
  stopReason?: "timeout" | "interrupted";
}

/**
 * Wait for a child started with `spawnGroup`, killing its whole group when `timeoutMs` passes
 * or `signal` aborts. Rejects only when the child could not be started.
 */
export async function superviseChild(
  child: ChildProcess,
  options: { timeoutMs: number; signal: AbortSignal; graceMs?: number },
): Promise<SupervisedExit> {
  const exited = waitForChild(child);
  let stopReason: SupervisedExit["stopReason"];
  let stopping: Promise<void> | undefined;
  const stop = (reason: "timeout" | "interrupted") => {
    if (stopping) return;
    stopReason = reason;
    stopping = terminateGroup(child, exited, options.graceMs);
  };
  const timer = setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("interrupted");
  options.signal.addEventListener("abort", onAbort, { once: true });
  if (options.signal.aborted) stop("interrupted");
  try {
    const exit = await exited;
    await stopping;
    return { ...exit, stopReason };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}
