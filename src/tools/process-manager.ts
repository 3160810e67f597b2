/**
 * Background processes started by `terminal(background=true)`: each keeps a capped rolling
 * output buffer, can be polled, read, waited on, written to and killed, and may announce its
 * exit through a callback. Every process still running is killed when the manager is disposed
 * or the Node process exits, except one started with `keepAlive`: its output goes to a file
 * (pipes would break when we exit) and it is left running.
 */

import type { ChildProcess } from "node:child_process";
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { nodeCrypto } from "../util/node-crypto.js";
import { cleanTerminalOutput, RingBuffer } from "./output-capture.js";
import {
  type ChildExit,
  commandEnv,
  exitCodeOf,
  signalGroup,
  spawnShell,
  terminateGroup,
  waitForChild,
} from "./process-group.js";

export const DEFAULT_PROCESS_BUFFER_CHARS = 200_000;
export const DEFAULT_MAX_PROCESSES = 64;
const DEFAULT_LOG_LINES = 200;
const NOTIFY_TAIL_CHARS = 2000;
const WAIT_TAIL_CHARS = 10_000;

export type ProcessStatus = "running" | "exited" | "killed";

export interface StartProcessOptions {
  command: string;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Owner of the process; other sessions cannot see or touch it. */
  sessionId?: string;
  taskId?: string;
  /** Called once with a short report when the process exits. Must not throw (errors are swallowed). */
  onComplete?: (text: string) => void;
  /** Leave it running when the manager is disposed or Node exits; its output goes to a file. */
  keepAlive?: boolean;
}

export interface ProcessInfo {
  session_id: string;
  command: string;
  pid: number | null;
  cwd: string;
  status: ProcessStatus;
  exit_code: number | null;
  started_at: string;
  uptime_seconds: number;
  output_chars: number;
  /** Where the output of a keep-alive process goes. */
  output_file?: string;
}

interface ManagedProcess {
  id: string;
  command: string;
  cwd: string;
  child: ChildProcess;
  output: RingBuffer;
  startedAt: number;
  endedAt?: number;
  exit?: ChildExit;
  killed: boolean;
  pollCursor: number;
  owner?: string;
  done: Promise<void>;
  /** Keep-alive processes write to a file, read into `output` as it grows. */
  outputFile?: { path: string; read: number; decoder: StringDecoder };
}

export class ProcessNotFoundError extends Error {}

export interface ProcessManagerOptions {
  bufferChars?: number;
  maxProcesses?: number;
  killGraceMs?: number;
  /** Where keep-alive processes write their output; default `<tmp>/hermes-processes`. */
  keepAliveDir?: string;
}

export class ProcessManager {
  private readonly processes = new Map<string, ManagedProcess>();
  private readonly bufferChars: number;
  private readonly maxProcesses: number;
  private killGraceMs: number;
  private readonly keepAliveDir: string;

  constructor(options: ProcessManagerOptions = {}) {
    this.bufferChars = options.bufferChars ?? DEFAULT_PROCESS_BUFFER_CHARS;
    this.maxProcesses = options.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.keepAliveDir = options.keepAliveDir ?? join(tmpdir(), "hermes-processes");
  }

  start(options: StartProcessOptions): ProcessInfo {
    this.pruneFinished();
    const running = [...this.processes.values()].filter((p) => !p.exit).length;
    if (running >= this.maxProcesses) {
      throw new Error(`too many background processes (${running}); kill some with process(action="kill") first`);
    }
    watchForExit(this);
    const id = `proc_${nodeCrypto().randomBytes(6).toString("hex")}`;
    const outputFile = options.keepAlive ? join(this.keepAliveDir, `${id}.log`) : undefined;
    let outputFd: number | undefined;
    if (outputFile) {
      mkdirSync(this.keepAliveDir, { recursive: true, mode: 0o700 });
      outputFd = openSync(outputFile, "a", 0o600);
    }
    let child: ChildProcess;
    try {
      child = spawnShell(options.command, {
        cwd: options.cwd,
        env: options.env ?? commandEnv(),
        stdin: "pipe",
        ...(outputFd === undefined ? {} : { outputFd, outliveParent: true }),
      });
    } finally {
      if (outputFd !== undefined) closeSync(outputFd);
    }
    if (outputFile) {
      // Nothing of ours may keep Node running for it, or hold it when we exit.
      child.unref();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    }
    const record: ManagedProcess = {
      id,
      command: options.command,
      cwd: options.cwd,
      child,
      output: new RingBuffer(this.bufferChars),
      startedAt: Date.now(),
      killed: false,
      pollCursor: 0,
      owner: options.sessionId ?? options.taskId,
      done: Promise.resolve(),
      ...(outputFile ? { outputFile: { path: outputFile, read: 0, decoder: new StringDecoder("utf8") } } : {}),
    };
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => record.output.append(chunk));
    child.stderr?.on("data", (chunk: string) => record.output.append(chunk));
    // Writing to a process that already exited must not crash the agent.
    child.stdin?.on("error", () => {});
    record.done = waitForChild(child).then(
      (exit) => this.finish(record, exit, options.onComplete),
      (err: Error) => {
        record.output.append(`\n[failed to start: ${err.message}]\n`);
        this.finish(record, { code: 127, signal: null }, options.onComplete);
      },
    );
    this.processes.set(record.id, record);
    return this.info(record);
  }

  /** Processes visible to `owner` (all of them when no owner is given). */
  list(owner?: string): ProcessInfo[] {
    return [...this.processes.values()].filter((p) => this.visible(p, owner)).map((p) => this.info(p));
  }

  /** Status plus the output produced since the previous poll. */
  poll(id: string, owner?: string): ProcessInfo & { new_output: string } {
    const record = this.find(id, owner);
    const newOutput = record.output.since(record.pollCursor);
    record.pollCursor = record.output.end;
    return { ...this.info(record), new_output: cleanTerminalOutput(newOutput) };
  }

  /**
   * Output lines with pagination. Without an offset the last `limit` lines are returned;
   * `offset` counts lines from the start of the output still held in the buffer.
   */
  log(
    id: string,
    options: { offset?: number; limit?: number } = {},
    owner?: string,
  ): ProcessInfo & { output: string; total_lines: number; offset: number; lines_returned: number } {
    const record = this.find(id, owner);
    const text = cleanTerminalOutput(record.output.text());
    const lines = text.length === 0 ? [] : text.replace(/\n$/, "").split("\n");
    const limit = Math.max(1, options.limit ?? DEFAULT_LOG_LINES);
    const offset = options.offset === undefined ? Math.max(0, lines.length - limit) : Math.max(0, options.offset);
    const slice = lines.slice(offset, offset + limit);
    const dropped = record.output.droppedChars;
    const prefix = dropped > 0 && offset === 0 ? `[${dropped} earlier characters no longer held]\n` : "";
    return {
      ...this.info(record),
      output: prefix + slice.join("\n"),
      total_lines: lines.length,
      offset,
      lines_returned: slice.length,
    };
  }

  /** Block until the process exits or `timeoutMs` passes (or `signal` aborts). */
  async wait(
    id: string,
    timeoutMs: number,
    signal?: AbortSignal,
    owner?: string,
  ): Promise<ProcessInfo & { timed_out: boolean; output: string }> {
    const record = this.find(id, owner);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      onAbort = () => resolve();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    await Promise.race([record.done, stop]);
    if (timer) clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    const tail = cleanTerminalOutput(record.output.text()).slice(-WAIT_TAIL_CHARS);
    return { ...this.info(record), timed_out: !record.exit, output: tail };
  }

  /** How long the processes it stops from now on get after SIGTERM before SIGKILL (`terminal.daemon_term_grace_seconds`). */
  setKillGrace(ms: number): void {
    this.killGraceMs = ms;
  }

  get killGrace(): number {
    return this.killGraceMs;
  }

  async kill(id: string, owner?: string): Promise<ProcessInfo> {
    const record = this.find(id, owner);
    if (!record.exit) {
      record.killed = true;
      await terminateGroup(record.child, record.done, this.killGraceMs);
    }
    return this.info(record);
  }

  /** Send text to the process's stdin. */
  write(id: string, data: string, owner?: string): ProcessInfo {
    const record = this.find(id, owner);
    const stdin = record.child.stdin;
    if (record.exit || !stdin || stdin.destroyed || stdin.writableEnded) {
      throw new Error(`process ${id} is not accepting input (it has exited or its stdin is closed)`);
    }
    stdin.write(data);
    return this.info(record);
  }

  /** Close stdin (EOF) so programs reading until end of input can finish. */
  closeStdin(id: string, owner?: string): ProcessInfo {
    const record = this.find(id, owner);
    record.child.stdin?.end();
    return this.info(record);
  }

  /** Kill every running process but the keep-alive ones, and forget all records. */
  async dispose(): Promise<void> {
    const running = [...this.processes.values()].filter((p) => !p.exit && !p.outputFile);
    for (const record of running) record.killed = true;
    await Promise.all(running.map((p) => terminateGroup(p.child, p.done, this.killGraceMs)));
    this.processes.clear();
    liveManagers.delete(this);
  }

  /** Synchronous last resort when Node exits: SIGKILL every group still running. */
  killAllNow(): void {
    for (const record of this.processes.values()) {
      if (!record.exit && !record.outputFile) signalGroup(record.child.pid, "SIGKILL");
    }
  }

  private finish(record: ManagedProcess, exit: ChildExit, onComplete?: (text: string) => void): void {
    this.catchUp(record);
    record.exit = exit;
    record.endedAt = Date.now();
    if (!onComplete) return;
    try {
      onComplete(this.completionReport(record));
    } catch {
      // A failing notifier must not take the process manager down with it.
    }
  }

  private completionReport(record: ManagedProcess): string {
    const info = this.info(record);
    const how = record.killed ? "was killed" : `exited with code ${info.exit_code}`;
    const tail = cleanTerminalOutput(record.output.text()).slice(-NOTIFY_TAIL_CHARS).trimEnd();
    return [
      `[Background process ${record.id} ${how} after ${info.uptime_seconds}s]`,
      `Command: ${record.command}`,
      tail ? `Last output:\n${tail}` : "No output.",
    ].join("\n");
  }

  private find(id: string, owner?: string): ManagedProcess {
    const record = this.processes.get(id);
    if (!record || !this.visible(record, owner)) throw new ProcessNotFoundError(`no background process "${id}"`);
    this.catchUp(record);
    return record;
  }

  /** Bring a keep-alive process's output file into its buffer (at most what the buffer holds). */
  private catchUp(record: ManagedProcess): void {
    const file = record.outputFile;
    if (!file) return;
    let fd: number;
    try {
      fd = openSync(file.path, "r");
    } catch {
      return;
    }
    try {
      const size = fstatSync(fd).size;
      // Bytes the buffer would drop anyway are skipped (4 bytes per character at most).
      const skipTo = size - this.bufferChars * 4;
      if (file.read < skipTo) file.read = skipTo;
      while (file.read < size) {
        const chunk = Buffer.alloc(Math.min(size - file.read, 1 << 20));
        const n = readSync(fd, chunk, 0, chunk.length, file.read);
        if (n <= 0) break;
        file.read += n;
        record.output.append(file.decoder.write(chunk.subarray(0, n)));
      }
    } finally {
      closeSync(fd);
    }
  }

  private visible(record: ManagedProcess, owner?: string): boolean {
    return owner === undefined || record.owner === undefined || record.owner === owner;
  }

  private info(record: ManagedProcess): ProcessInfo {
    const end = record.endedAt ?? Date.now();
    let status: ProcessStatus = "running";
    if (record.exit) status = record.killed ? "killed" : "exited";
    return {
      session_id: record.id,
      command: record.command,
      pid: record.child.pid ?? null,
      cwd: record.cwd,
      status,
      exit_code: record.exit ? exitCodeOf(record.exit) : null,
      started_at: new Date(record.startedAt).toISOString(),
      uptime_seconds: Math.round((end - record.startedAt) / 100) / 10,
      output_chars: record.output.end,
      ...(record.outputFile ? { output_file: record.outputFile.path } : {}),
    };
  }

  /** Keep at most `maxProcesses` records by dropping the oldest finished ones. */
  private pruneFinished(): void {
    const finished = [...this.processes.values()].filter((p) => p.exit).sort((a, b) => a.startedAt - b.startedAt);
    let excess = this.processes.size - this.maxProcesses + 1;
    for (const record of finished) {
      if (excess <= 0) break;
      this.processes.delete(record.id);
      excess--;
    }
  }
}

const liveManagers = new Set<ProcessManager>();
let exitHookInstalled = false;

/** One `exit` listener for all managers, so none of their processes outlives Node. */
function watchForExit(manager: ProcessManager): void {
  liveManagers.add(manager);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const live of liveManagers) live.killAllNow();
  });
}

let shared: ProcessManager | undefined;

/** The process-wide manager the terminal and process tools use unless given their own. */
export function defaultProcessManager(): ProcessManager {
  shared ??= new ProcessManager();
  return shared;
}
