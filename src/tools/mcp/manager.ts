/**
 * All configured MCP servers of one process. `start()` connects them in parallel, each under
 * its own `connect_timeout`, and registers their tools as `mcp_<server>_<tool>` in toolset
 * `mcp-<server>` as soon as each one is ready, so a slow or dead server holds up nobody.
 * A server's `notifications/tools/list_changed` re-syncs its tools; `reload()` restarts all
 * of them; `close()` stops them.
 */
import type { ToolRegistry } from "../registry.js";
import { defaultToolsets, type ToolsetCatalog } from "../toolsets.js";
import { McpConnection, type McpServerState } from "./connection.js";
import { mcpToolsetName } from "./names.js";
import { SamplingGate, samplingEnabled } from "./sampling.js";
import type { SamplingModel } from "./sampling-request.js";
import { configuredTransport, type McpServerSettings, type McpTransportKind } from "./settings.js";
import { type McpBlockedTool, planServerTools } from "./tool-specs.js";

export interface McpServerStatus {
  name: string;
  enabled: boolean;
  transport: McpTransportKind;
  state: McpServerState | "disabled";
  toolset: string;
  /** Registered tool names. */
  tools: string[];
  /** Server tools left out by `tools.include` / `tools.exclude`. */
  filtered: string[];
  /** Server tools refused (suspicious description, name collision). */
  blocked: McpBlockedTool[];
  error?: string;
  connectMs?: number;
  warnings: string[];
  /** Process id of a running stdio server. */
  pid?: number;
}

export interface McpManagerOptions {
  servers: Readonly<Record<string, McpServerSettings>>;
  registry: ToolRegistry;
  /** Where `mcp-<server>` toolsets are registered (default: the process-wide catalog). */
  toolsets?: ToolsetCatalog;
  /** Environment for `${VAR}` references and stdio servers (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * Answers servers' `sampling/createMessage` requests. Without it no server is offered
   * sampling; with it, every server whose `sampling.enabled` is not false is.
   */
  sampling?: SamplingModel;
}

export type McpStatusListener = (status: McpServerStatus) => void;

interface ServerEntry {
  name: string;
  settings: McpServerSettings;
  connection: McpConnection | undefined;
  tools: string[];
  filtered: string[];
  blocked: McpBlockedTool[];
  syncError: string | undefined;
  syncing: Promise<void> | undefined;
  syncAgain: boolean;
}

export class McpManager {
  private servers: Readonly<Record<string, McpServerSettings>>;
  private readonly registry: ToolRegistry;
  private readonly toolsets: ToolsetCatalog;
  private readonly env: NodeJS.ProcessEnv | undefined;
  private readonly sampling: SamplingModel | undefined;
  private entries = new Map<string, ServerEntry>();
  private starting: Promise<McpServerStatus[]> | undefined;
  /** Server names registered as aliases of their `mcp-<server>` toolset. */
  private readonly aliases = new Set<string>();
  private readonly listeners = new Set<McpStatusListener>();
  private generation = 0;

  constructor(options: McpManagerOptions) {
    this.servers = options.servers;
    this.registry = options.registry;
    this.toolsets = options.toolsets ?? defaultToolsets;
    this.env = options.env;
    this.sampling = options.sampling;
  }

  /** Toolset names of the enabled servers, known before any server starts. */
  toolsetNames(): string[] {
    return Object.entries(this.servers)
      .filter(([, settings]) => settings.enabled !== false)
      .map(([name]) => mcpToolsetName(name));
  }

  /** Called after every state or tool-list change of a server; returns an unsubscribe function. */
  onChange(listener: McpStatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connect every enabled server in parallel; resolves once each is connected or has failed. */
  start(): Promise<McpServerStatus[]> {
    this.starting ??= this.startAll();
    return this.starting;
  }

  status(): McpServerStatus[] {
    return Object.keys(this.servers).map((name) => this.statusOf(name));
  }

  /** Wait until no tool-list re-sync is in flight. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.entries.values()].flatMap((entry) => (entry.syncing ? [entry.syncing] : []));
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  /** Call a tool by its server-side name; always resolves to text ("Error: ..." on failure). */
  async callTool(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<string> {
    const connection = this.entries.get(server)?.connection;
    if (!connection) return `Error: no MCP server named "${server}" is running.`;
    return connection.callTool(tool, args, signal);
  }

  /** Stop every server and start again, with new settings when given (`/reload-mcp`). */
  async reload(servers?: Readonly<Record<string, McpServerSettings>>): Promise<McpServerStatus[]> {
    await this.close();
    if (servers) this.servers = servers;
    return this.start();
  }

  /** Stop every server and remove their tools and toolsets. */
  async close(): Promise<void> {
    this.generation++;
    const entries = [...this.entries.values()];
    this.entries = new Map();
    this.starting = undefined;
    await Promise.all(entries.map((entry) => entry.connection?.close()));
    for (const entry of entries) {
      for (const name of entry.tools) this.registry.deregister(name);
      this.toolsets.unregisterToolset(mcpToolsetName(entry.name));
      if (this.aliases.delete(entry.name)) this.toolsets.unregisterToolset(entry.name);
    }
  }

  private async startAll(): Promise<McpServerStatus[]> {
    const generation = this.generation;
    const work: Promise<void>[] = [];
    for (const [name, settings] of Object.entries(this.servers)) {
      if (settings.enabled === false) continue;
      const entry: ServerEntry = {
        name,
        settings,
        connection: undefined,
        tools: [],
        filtered: [],
        blocked: [],
        syncError: undefined,
        syncing: undefined,
        syncAgain: false,
      };
      entry.connection = new McpConnection(name, settings, {
        ...(this.env ? { env: this.env } : {}),
        onToolsChanged: () => void this.sync(entry),
        onReconnected: () => void this.sync(entry),
        onStateChange: () => this.emit(name),
        ...(this.sampling && samplingEnabled(settings.sampling)
          ? { sampling: new SamplingGate(name, settings.sampling ?? {}, this.sampling) }
          : {}),
      });
      this.entries.set(name, entry);
      this.registerServerToolsets(name, []);
      work.push(this.startOne(entry));
    }
    await Promise.all(work);
    // A reload or close during the start leaves this round's statuses meaningless.
    return generation === this.generation ? this.status() : [];
  }

  private async startOne(entry: ServerEntry): Promise<void> {
    try {
      await entry.connection?.connect();
    } catch {
      return; // the connection keeps the reason for status()
    }
    await this.sync(entry);
  }

  /** Re-read a server's tool list; calls that arrive during a sync run it once more afterwards. */
  private sync(entry: ServerEntry): Promise<void> {
    if (entry.syncing) {
      entry.syncAgain = true;
      return entry.syncing;
    }
    entry.syncing = (async () => {
      do {
        entry.syncAgain = false;
        await this.syncOnce(entry);
      } while (entry.syncAgain);
    })().finally(() => {
      entry.syncing = undefined;
      this.emit(entry.name);
    });
    return entry.syncing;
  }

  private async syncOnce(entry: ServerEntry): Promise<void> {
    const connection = entry.connection;
    if (!connection || this.entries.get(entry.name) !== entry) return;
    let tools: Awaited<ReturnType<McpConnection["listTools"]>>;
    try {
      tools = await connection.listTools();
    } catch (error) {
      entry.syncError = `listing tools failed: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    if (this.entries.get(entry.name) !== entry) return;
    const plan = planServerTools(entry.name, entry.settings, tools, (tool, args, ctx) =>
      this.callTool(entry.name, tool, args, ctx.signal),
    );
    for (const name of entry.tools) if (!plan.specs.has(name)) this.registry.deregister(name);
    const registered: string[] = [];
    for (const [name, spec] of plan.specs) {
      try {
        this.registry.register(spec);
        registered.push(name);
      } catch (error) {
        plan.blocked.push({ tool: name, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    entry.tools = registered;
    entry.filtered = plan.filtered;
    entry.blocked = plan.blocked;
    entry.syncError = undefined;
    this.registerServerToolsets(entry.name, registered);
  }

  /** `mcp-<server>`, plus `<server>` as an alias when no other toolset has that name. */
  private registerServerToolsets(server: string, tools: string[]): void {
    const toolset = mcpToolsetName(server);
    this.toolsets.registerToolset(toolset, { description: `Tools of the ${server} MCP server`, tools });
    if (this.aliases.has(server) || (toolset !== server && this.toolsets.get(server) === null)) {
      try {
        this.toolsets.registerToolset(server, { description: `Alias of ${toolset}`, includes: [toolset] });
        this.aliases.add(server);
      } catch {
        // A reserved name ("all", "*") cannot be an alias; the mcp- name still works.
      }
    }
  }

  private statusOf(name: string): McpServerStatus {
    const settings = this.servers[name] ?? {};
    const entry = this.entries.get(name);
    const connection = entry?.connection;
    const enabled = settings.enabled !== false;
    const error = connection?.lastError ?? entry?.syncError;
    return {
      name,
      enabled,
      transport: connection?.transport ?? configuredTransport(settings),
      state: enabled ? (connection?.state ?? "idle") : "disabled",
      toolset: mcpToolsetName(name),
      tools: [...(entry?.tools ?? [])],
      filtered: [...(entry?.filtered ?? [])],
      blocked: [...(entry?.blocked ?? [])],
      warnings: [...(connection?.warnings ?? [])],
      ...(error ? { error } : {}),
      ...(connection?.connectMs !== undefined ? { connectMs: connection.connectMs } : {}),
      ...(connection?.pid !== undefined ? { pid: connection.pid } : {}),
    };
  }

  private emit(name: string): void {
    if (this.listeners.size === 0) return;
    const status = this.statusOf(name);
    for (const listener of this.listeners) {
      try {
        listener(status);
      } catch {
        // A listener's failure must not break the server's bookkeeping.
      }
    }
  }
}
