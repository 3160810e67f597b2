/**
 * The language servers of one runtime: one per (language, workspace root), started on the first
 * edit of such a file and kept for later ones, a few at most at a time. A server that fails is
 * reported once and started again only a few times.
 */
import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { commandEnv } from "../process-group.js";
import { DiagnosticsTimeout, LspClient, ServerFailure } from "./client.js";
import type { DiagnoseOutcome, DiagnoseRequest } from "./hook.js";
import { RpcError } from "./jsonrpc.js";
import { summarizeDiagnostics } from "./report.js";
import {
  type ConfiguredServer,
  findServerCommand,
  languageIdOf,
  type ServerSpec,
  serverTable,
  specFor,
  workspaceRoot,
} from "./servers.js";

export interface LspOptions {
  /** `lsp.wait_mode`: "none" checks nothing; "workspace" waits like "document". */
  waitMode: "document" | "workspace" | "none";
  /** `lsp.wait_timeout`, seconds. */
  waitTimeoutSeconds: number;
  /** `lsp.install_strategy`: "auto" adds the built-in table; "never"/"off" only `servers`. */
  installStrategy: "auto" | "never" | "off";
  /** `lsp.servers`. */
  servers: Record<string, ConfiguredServer>;
  /** HERMES_HOME: files under it are never checked. */
  home: string;
  /** The environment servers start with (default: what commands get, agent keys withheld). */
  env?: () => NodeJS.ProcessEnv;
  /** Servers kept running at once; the least recently used one stops for a new one. */
  maxServers?: number;
  /** Starts of one (language, root) before giving up on it for this runtime. */
  maxStarts?: number;
}

interface Entry {
  key: string;
  spec: ServerSpec;
  root: string;
  client: LspClient | undefined;
  starts: number;
  noted: boolean;
  lastUsed: number;
}

const DEFAULT_MAX_SERVERS = 4;
const DEFAULT_MAX_STARTS = 3;

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export class LspManager {
  private readonly table: ServerSpec[];
  private readonly entries = new Map<string, Entry>();
  private readonly stopping = new Set<Promise<void>>();
  private readonly home: string;
  private closed = false;

  constructor(private readonly options: LspOptions) {
    this.table = serverTable(options.servers, options.installStrategy === "auto");
    this.home = realOr(options.home);
  }

  /** The servers running now, for status lines and tests. */
  running(): Array<{ language: string; root: string; pid: number | undefined; command: string[] }> {
    return [...this.entries.values()]
      .filter((entry) => entry.client && !entry.client.failed)
      .map((entry) => ({
        language: entry.spec.language,
        root: entry.root,
        pid: entry.client?.pid,
        command: entry.client?.command ?? [],
      }));
  }

  async diagnose(request: DiagnoseRequest): Promise<DiagnoseOutcome | undefined> {
    if (this.closed || this.options.waitMode === "none") return undefined;
    const path = resolve(request.path);
    const cwd = resolve(request.cwd);
    if (!isInside(path, cwd) && !isInside(path, realOr(cwd))) return undefined;
    if (isInside(path, this.home)) return undefined;
    const spec = specFor(this.table, path);
    if (!spec) return undefined;
    const root = workspaceRoot(path, spec.rootMarkers, cwd);
    const entry = this.entryFor(spec, root);
    entry.lastUsed = Date.now();
    const started = this.clientFor(entry, cwd);
    if ("note" in started) return started.note ? this.noteOnce(entry, started.note) : undefined;
    const deadline = Date.now() + this.options.waitTimeoutSeconds * 1000;
    try {
      const diagnostics = await started.client.diagnose(
        path,
        request.text,
        languageIdOf(spec, path),
        deadline,
        request.signal,
      );
      return { diagnostics: summarizeDiagnostics(diagnostics, request.shown) };
    } catch (error) {
      if (request.signal?.aborted) return undefined;
      if (error instanceof DiagnosticsTimeout) {
        return {
          diagnostics_note: `no diagnostics: the ${spec.language} server ${error.message} after ${this.options.waitTimeoutSeconds}s`,
        };
      }
      if (error instanceof ServerFailure) {
        this.drop(entry);
        return this.noteOnce(entry, `diagnostics unavailable: ${error.message}`);
      }
      if (error instanceof RpcError) {
        return this.noteOnce(entry, `diagnostics unavailable: the ${spec.language} server answered: ${error.message}`);
      }
      throw error;
    }
  }

  private entryFor(spec: ServerSpec, root: string): Entry {
    const key = `${spec.language}\0${root}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { key, spec, root, client: undefined, starts: 0, noted: false, lastUsed: 0 };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private clientFor(entry: Entry, cwd: string): { client: LspClient } | { note: string | undefined } {
    if (entry.client && !entry.client.failed) return { client: entry.client };
    if (entry.starts >= (this.options.maxStarts ?? DEFAULT_MAX_STARTS)) return { note: undefined };
    const env = this.options.env?.() ?? commandEnv();
    const command = findServerCommand(entry.spec, entry.root, env.PATH ?? "");
    if (!command) {
      // A server of the built-in table that is not installed is simply not used.
      const wanted = entry.spec.candidates[0]?.command[0] ?? "";
      return {
        note: entry.spec.configured
          ? `diagnostics unavailable: lsp.servers.${entry.spec.language} command "${wanted}" was not found`
          : undefined,
      };
    }
    this.makeRoom();
    entry.starts++;
    const client = new LspClient({
      language: entry.spec.language,
      command,
      root: entry.root,
      cwd,
      env,
      initializationOptions: entry.spec.initializationOptions,
      watch: { extensions: new Set(entry.spec.extensions), names: new Set(entry.spec.rootMarkers) },
    });
    client.onFailure = () => {
      if (entry.client === client) entry.client = undefined;
    };
    entry.client = client;
    return { client };
  }

  private noteOnce(entry: Entry, note: string): DiagnoseOutcome | undefined {
    if (entry.noted) return undefined;
    entry.noted = true;
    return { diagnostics_note: note };
  }

  /** Stop the least recently used server when as many as allowed are running. */
  private makeRoom(): void {
    const live = [...this.entries.values()].filter((entry) => entry.client);
    if (live.length < (this.options.maxServers ?? DEFAULT_MAX_SERVERS)) return;
    const oldest = live.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
    this.drop(oldest);
  }

  private drop(entry: Entry): void {
    const client = entry.client;
    entry.client = undefined;
    if (!client) return;
    const stopping = client.close().finally(() => this.stopping.delete(stopping));
    this.stopping.add(stopping);
  }

  /** shutdown + exit for every server, killed after a grace period if still there. */
  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries.values()) this.drop(entry);
    await Promise.all([...this.stopping]);
  }
}
