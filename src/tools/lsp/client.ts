/**
 * One language server process for one workspace root: the initialize handshake, documents kept
 * in sync with what the edit tools wrote, and the diagnostics of an edited document, pulled
 * (`textDocument/diagnostic`) when the server offers it, else waited for as
 * `textDocument/publishDiagnostics`.
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnGroup, terminateGroup, waitForChild } from "../process-group.js";
import { DiskSnapshot, FILE_DELETED, type FileEvent } from "./disk-changes.js";
import { RpcConnection, RpcError } from "./jsonrpc.js";

export interface LspDiagnostic {
  range: { start: { line: number; character: number } };
  severity?: number;
  code?: string | number;
  source?: string;
  message: string;
}

export interface LspClientOptions {
  language: string;
  /** The program (absolute) and its arguments. */
  command: string[];
  /** The workspace root the server is told about. */
  root: string;
  /** Where the process starts (the session's working directory). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  initializationOptions?: unknown;
  /** Extensions and file names whose changes on disk the server is told about. */
  watch: { extensions: ReadonlySet<string>; names: ReadonlySet<string> };
  /** How long the initialize handshake may take before the server counts as failed. */
  startTimeoutMs?: number;
}

/** The wait ran out before the server answered (it keeps working; a later edit may get its answer). */
export class DiagnosticsTimeout extends Error {}

/** The server could not start, or exited. */
export class ServerFailure extends Error {}

const STDERR_KEPT = 2048;
/** LSP's ServerCancelled: the server asks for the request again later. */
const SERVER_CANCELLED = -32802;
const RETRY_MS = 100;

interface Published {
  seq: number;
  version: number | undefined;
  diagnostics: LspDiagnostic[];
}

interface OpenDocument {
  version: number;
}

export class LspClient {
  readonly ready: Promise<void>;
  private readonly child: ChildProcess;
  private readonly rpc: RpcConnection;
  private readonly exited: Promise<unknown>;
  private readonly snapshot: DiskSnapshot;
  private failure: ServerFailure | undefined;
  private closing = false;
  private initialized = false;
  private stderr = "";
  private capabilities: Record<string, unknown> = {};
  private readonly docs = new Map<string, OpenDocument>();
  private publishSeq = 0;
  private readonly published = new Map<string, Published>();
  private readonly publishWaiters = new Set<() => void>();
  /** Told once when the process ends for any reason but `close()`. */
  onFailure: (failure: ServerFailure) => void = () => {};

  constructor(private readonly options: LspClientOptions) {
    this.snapshot = new DiskSnapshot(options.root, options.watch.extensions, options.watch.names);
    const [program, ...args] = options.command;
    this.child = spawnGroup(program as string, args, { cwd: options.cwd, env: options.env, stdin: "pipe" });
    // A language server never keeps the agent's process alive on its own (close() holds it again).
    this.hold(false);
    this.child.stderr?.on("data", (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_KEPT);
    });
    this.rpc = new RpcConnection(this.child.stdout!, this.child.stdin!);
    this.rpc.onNotification = (method, params) => this.notification(method, params);
    this.rpc.onRequest = (method, params) => this.serverRequest(method, params);
    this.rpc.onBroken = (what) => {
      this.fail(what);
      void this.kill();
    };
    this.exited = waitForChild(this.child, 200).then(
      (exit) => this.fail(`exited (${exit.signal ?? `code ${exit.code}`})`),
      (error: Error) => this.fail(`could not start: ${error.message}`),
    );
    this.ready = this.initialize(options.startTimeoutMs ?? 60_000);
    this.ready.catch(() => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get command(): string[] {
    return [...this.options.command];
  }

  get failed(): ServerFailure | undefined {
    return this.failure;
  }

  private fail(what: string): void {
    if (this.failure) return;
    const detail = telltaleLine(this.stderr);
    this.failure = new ServerFailure(`the ${this.options.language} server ${what}${detail ? `: ${detail}` : ""}`);
    this.rpc.close(this.failure);
    for (const wake of this.publishWaiters) wake();
    if (!this.closing) this.onFailure(this.failure);
  }

  private async initialize(timeoutMs: number): Promise<void> {
    const rootUri = pathToFileURL(this.options.root).href;
    const { answer } = this.rpc.request<{ capabilities?: Record<string, unknown> }>("initialize", {
      processId: process.pid,
      clientInfo: { name: "hermes-agent" },
      rootUri,
      rootPath: this.options.root,
      workspaceFolders: [{ uri: rootUri, name: this.options.root }],
      initializationOptions: this.options.initializationOptions,
      capabilities: {
        general: { positionEncodings: ["utf-16"] },
        textDocument: {
          synchronization: { didSave: true, dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true },
          diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
        },
        workspace: {
          configuration: true,
          workspaceFolders: true,
          didChangeWatchedFiles: { dynamicRegistration: false },
        },
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const tooLong = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ServerFailure("")), timeoutMs);
      timer.unref();
    });
    try {
      const result = await Promise.race([answer, tooLong]);
      this.capabilities = result?.capabilities ?? {};
      this.initialized = true;
    } catch (error) {
      if (this.failure) throw this.failure;
      const reason =
        error instanceof RpcError
          ? `refused to initialize: ${error.message}`
          : `did not initialize in ${timeoutMs / 1000}s`;
      this.fail(reason);
      void this.kill();
      throw this.failure;
    } finally {
      clearTimeout(timer);
    }
    this.rpc.notify("initialized", {});
  }

  private notification(method: string, params: unknown): void {
    if (method !== "textDocument/publishDiagnostics") return;
    const { uri, version, diagnostics } = (params ?? {}) as {
      uri?: string;
      version?: number;
      diagnostics?: LspDiagnostic[];
    };
    const path = typeof uri === "string" ? pathOfUri(uri) : undefined;
    if (!path || !Array.isArray(diagnostics)) return;
    this.published.set(path, { seq: ++this.publishSeq, version, diagnostics });
    for (const wake of this.publishWaiters) wake();
  }

  private serverRequest(method: string, params: unknown): unknown {
    if (method === "workspace/configuration") {
      const items = (params as { items?: unknown[] } | undefined)?.items;
      return Array.isArray(items) ? items.map(() => null) : [];
    }
    if (method === "workspace/workspaceFolders") {
      return [{ uri: pathToFileURL(this.options.root).href, name: this.options.root }];
    }
    return null;
  }

  /**
   * Send `text` as the document's content and return its diagnostics. Rejects with
   * DiagnosticsTimeout when `deadline` (epoch ms) passes first, ServerFailure when the server is gone.
   */
  async diagnose(path: string, text: string, languageId: string, deadline: number, signal?: AbortSignal) {
    await this.within(this.ready, deadline, signal, "is still starting");
    this.syncDisk(path);
    const uri = pathToFileURL(path).href;
    const seqBefore = this.publishSeq;
    const open = this.docs.get(path);
    const version = (open?.version ?? 0) + 1;
    this.docs.set(path, { version });
    if (open) {
      this.rpc.notify("textDocument/didChange", { textDocument: { uri, version }, contentChanges: [{ text }] });
    } else {
      this.rpc.notify("textDocument/didOpen", { textDocument: { uri, languageId, version, text } });
    }
    const save = this.saveOptions();
    if (save) this.rpc.notify("textDocument/didSave", { textDocument: { uri }, ...(save.includeText ? { text } : {}) });
    if (this.capabilities.diagnosticProvider) return this.pull(uri, deadline, signal);
    return this.waitForPublish(path, seqBefore, version, deadline, signal);
  }

  /** Tell the server what changed on disk; open documents changed behind our back revert to the disk. */
  private syncDisk(edited: string): void {
    const events = this.snapshot.changes();
    if (events.length === 0) return;
    for (const event of events) {
      if (event.path === edited || !this.docs.has(event.path)) continue;
      this.docs.delete(event.path);
      this.rpc.notify("textDocument/didClose", { textDocument: { uri: pathToFileURL(event.path).href } });
    }
    const changes = events.map((event: FileEvent) => ({ uri: pathToFileURL(event.path).href, type: event.type }));
    this.rpc.notify("workspace/didChangeWatchedFiles", { changes });
    for (const event of events) if (event.type === FILE_DELETED) this.published.delete(event.path);
  }

  private saveOptions(): { includeText: boolean } | undefined {
    const sync = this.capabilities.textDocumentSync;
    if (typeof sync !== "object" || sync === null) return undefined;
    const save = (sync as { save?: boolean | { includeText?: boolean } }).save;
    if (!save) return undefined;
    return { includeText: typeof save === "object" && save.includeText === true };
  }

  private async pull(uri: string, deadline: number, signal?: AbortSignal): Promise<LspDiagnostic[]> {
    for (;;) {
      const { id, answer } = this.rpc.request<{ kind?: string; items?: LspDiagnostic[] }>("textDocument/diagnostic", {
        textDocument: { uri },
      });
      try {
        const report = await this.within(answer, deadline, signal, "did not answer");
        return Array.isArray(report?.items) ? report.items : [];
      } catch (error) {
        if (error instanceof RpcError && error.code === SERVER_CANCELLED && Date.now() + RETRY_MS < deadline) {
          // The server is busy (a project still loading): ask again shortly.
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
          continue;
        }
        this.rpc.cancel(id);
        throw error;
      }
    }
  }

  private async waitForPublish(
    path: string,
    seqBefore: number,
    version: number,
    deadline: number,
    signal?: AbortSignal,
  ): Promise<LspDiagnostic[]> {
    const fresh = (): LspDiagnostic[] | undefined => {
      const last = this.published.get(path);
      if (!last || last.seq <= seqBefore) return undefined;
      if (last.version !== undefined && last.version < version) return undefined;
      return last.diagnostics;
    };
    let wake: () => void = () => {};
    const arrived = new Promise<LspDiagnostic[]>((resolve, reject) => {
      wake = () => {
        if (this.failure) reject(this.failure);
        const diagnostics = fresh();
        if (diagnostics) resolve(diagnostics);
      };
      this.publishWaiters.add(wake);
      wake();
    });
    try {
      return await this.within(arrived, deadline, signal, "published no diagnostics");
    } finally {
      this.publishWaiters.delete(wake);
    }
  }

  /** `work`, unless the deadline, an abort or the server's end comes first. */
  private async within<T>(work: Promise<T>, deadline: number, signal: AbortSignal | undefined, late: string) {
    if (this.failure) throw this.failure;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cutoff = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DiagnosticsTimeout(late)), Math.max(0, deadline - Date.now()));
      onAbort = () => reject(new DiagnosticsTimeout("interrupted"));
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
    try {
      return await Promise.race([work, cutoff, this.exited.then(() => Promise.reject(this.failure))]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** shutdown and exit, then the process group is killed after `graceMs` if it is still there. */
  async close(graceMs = 1000): Promise<void> {
    this.closing = true;
    this.hold(true);
    if (!this.failure && this.initialized) {
      const { answer } = this.rpc.request("shutdown");
      await raceTimeout(answer, graceMs);
      this.rpc.notify("exit");
      this.child.stdin?.end();
      await raceTimeout(this.exited, graceMs);
    }
    await this.kill(graceMs);
  }

  private async kill(graceMs = 1000): Promise<void> {
    this.hold(true);
    await terminateGroup(this.child, this.exited, graceMs);
  }

  /** Whether the process (and its pipes) keep the event loop alive. */
  private hold(keep: boolean): void {
    for (const handle of [this.child, this.child.stdin, this.child.stdout, this.child.stderr]) {
      const refable = handle as unknown as { ref?: () => void; unref?: () => void } | null;
      if (keep) refable?.ref?.();
      else refable?.unref?.();
    }
  }
}

function raceTimeout(work: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work.catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
}

function pathOfUri(uri: string): string | undefined {
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** The line of a server's stderr that most likely says why it stopped. */
function telltaleLine(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return (lines.find((line) => /error|fatal|panic/i.test(line)) ?? lines.at(-1) ?? "").slice(0, 200);
}
