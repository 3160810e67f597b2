/**
 * Finding and loading plugins: directories under $HERMES_HOME/plugins/ (on unless listed in
 * `plugins.disabled`) and npm packages named in `plugins.enabled` (from $HERMES_HOME/node_modules).
 * A plugin that fails (a bad manifest, a syntax error, a `register` that throws, a tool name
 * taken) is reported and left out; the others load. Nothing here is imported unless there is
 * at least one plugin to load.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { HermesConfig } from "../../state/config-schema.js";
import { type ToolRegistry, ToolRegistryError } from "../../tools/registry.js";
import { registerToolset } from "../../tools/toolsets.js";
import { importModule } from "../../util/import-module.js";
import {
  collectingApi,
  emptyRegistrations,
  type HermesPlugin,
  type PluginRegistrations,
  type PluginTool,
} from "./api.js";
import { ManifestError, type PluginManifest, type PluginSource, readManifest } from "./manifest.js";

export type PluginStatus = "loaded" | "failed" | "disabled" | "missing-env";

export interface PluginReport {
  name: string;
  source: PluginSource;
  dir: string;
  status: PluginStatus;
  manifest?: PluginManifest;
  /** Why it did not load (failed, missing-env). */
  error?: string;
  /** What it registered, by kind: "tool memory_recall", "hook pre_tool_call", ... */
  registered: string[];
}

export interface Owned<T> {
  owner: string;
  item: T;
}

/** Every plugin's report, and what the loaded ones registered (hooks in load order). */
export interface PluginSet {
  reports: PluginReport[];
  toolsets: string[];
  tools: Array<Owned<PluginTool>>;
  hooks: Array<Owned<PluginRegistrations["hooks"][number]>>;
  commands: Array<Owned<PluginRegistrations["commands"][number]>>;
  memoryProviders: Map<string, Owned<PluginRegistrations["memoryProviders"] extends Map<string, infer F> ? F : never>>;
  contextEngines: Map<string, Owned<PluginRegistrations["contextEngines"] extends Map<string, infer F> ? F : never>>;
  platforms: Array<Owned<PluginRegistrations["platforms"][number]>>;
  cliCommands: Array<Owned<PluginRegistrations["cliCommands"][number]>>;
}

export interface PluginCandidate {
  name: string;
  dir: string;
  source: PluginSource;
  disabled: boolean;
}

export function pluginsDir(home: string): string {
  return join(home, "plugins");
}

/** Directory plugins (by directory name) and the npm packages config.yaml enables. */
export function pluginCandidates(home: string, config: HermesConfig): PluginCandidate[] {
  const disabled = new Set(config.plugins.disabled);
  const candidates: PluginCandidate[] = [];
  const root = pluginsDir(home);
  if (existsSync(root)) {
    for (const name of readdirSync(root).sort()) {
      if (name.startsWith(".") || name === "node_modules") continue;
      const dir = join(root, name);
      if (!statSync(dir).isDirectory()) continue;
      candidates.push({ name, dir, source: "directory", disabled: disabled.has(name) });
    }
  }
  for (const name of config.plugins.enabled) {
    if (candidates.some((c) => c.name === name)) continue;
    candidates.push({ name, dir: join(home, "node_modules", name), source: "npm", disabled: disabled.has(name) });
  }
  return candidates;
}

/** Whether loading plugins could find anything (checked before the loader is imported). */
export function anyPluginCandidates(home: string, config: HermesConfig): boolean {
  return pluginCandidates(home, config).some((candidate) => !candidate.disabled);
}

function registerFunction(module: Record<string, unknown>): HermesPlugin["register"] | undefined {
  if (typeof module.register === "function") return module.register as HermesPlugin["register"];
  const fallback = module.default as Record<string, unknown> | ((...args: unknown[]) => unknown) | undefined;
  if (typeof fallback === "function") return fallback as HermesPlugin["register"];
  if (fallback && typeof fallback.register === "function") return fallback.register as HermesPlugin["register"];
  return undefined;
}

const REGISTER_TIMEOUT_MS = 10_000;

async function runRegister(register: HermesPlugin["register"], api: Parameters<HermesPlugin["register"]>[0]) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`register() did not finish within ${REGISTER_TIMEOUT_MS / 1000} s`)),
      REGISTER_TIMEOUT_MS,
    );
    timer.unref?.();
  });
  try {
    await Promise.race([Promise.resolve().then(() => register(api)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Adds the loaded plugins' tools to `registry` (after the built-ins), each plugin's all or none:
 * a plugin whose tool name is taken (without `override`) is marked failed and loses its tools.
 */
export function applyPluginTools(registry: ToolRegistry, set: PluginSet): void {
  const owners = [...new Set(set.tools.map((tool) => tool.owner))];
  for (const owner of owners) {
    const added: string[] = [];
    try {
      for (const { item } of set.tools.filter((tool) => tool.owner === owner)) {
        registry.register(item as Parameters<ToolRegistry["register"]>[0]);
        added.push(item.name);
      }
    } catch (error) {
      for (const name of added) registry.deregister(name);
      const report = set.reports.find((r) => r.manifest?.name === owner);
      if (report) {
        report.status = "failed";
        report.error = error instanceof ToolRegistryError ? error.message : firstLine(error);
      }
      set.tools = set.tools.filter((tool) => tool.owner !== owner);
    }
  }
}

function describe(registrations: PluginRegistrations): string[] {
  return [
    ...registrations.tools.map((tool) => `tool ${tool.name}`),
    ...registrations.hooks.map((hook) => `hook ${hook.event}`),
    ...registrations.commands.map((command) => `command /${command.name}`),
    ...[...registrations.memoryProviders.keys()].map((name) => `memory provider ${name}`),
    ...[...registrations.contextEngines.keys()].map((name) => `context engine ${name}`),
    ...registrations.platforms.map((platform) => `platform ${platform.name}`),
    ...registrations.cliCommands.map((command) => `cli command ${command.name}`),
  ];
}

function emptySet(): PluginSet {
  return {
    reports: [],
    toolsets: [],
    tools: [],
    hooks: [],
    commands: [],
    memoryProviders: new Map(),
    contextEngines: new Map(),
    platforms: [],
    cliCommands: [],
  };
}

export interface LoadPluginsInput {
  home: string;
  config: HermesConfig;
  env?: Record<string, string | undefined>;
  /** A line for the log. */
  log?: (line: string) => void;
}

async function loadOne(candidate: PluginCandidate, input: LoadPluginsInput, set: PluginSet): Promise<PluginReport> {
  const report: PluginReport = { ...candidate, status: "loaded", registered: [] };
  if (candidate.disabled) return { ...report, status: "disabled" };
  if (!existsSync(candidate.dir)) {
    const hint = candidate.source === "npm" ? ` (install it with: hermes plugins install ${candidate.name})` : "";
    return { ...report, status: "failed", error: `${candidate.dir} does not exist${hint}` };
  }
  let manifest: PluginManifest;
  try {
    manifest = await readManifest(candidate.dir, candidate.source);
  } catch (error) {
    if (error instanceof ManifestError) return { ...report, status: "failed", error: error.message };
    throw error;
  }
  report.manifest = manifest;
  const env = input.env ?? process.env;
  const missing = manifest.requiresEnv.filter((name) => !env[name]);
  if (missing.length > 0) {
    return { ...report, status: "missing-env", error: `needs ${missing.join(", ")} (set in $HERMES_HOME/.env)` };
  }
  const registrations = emptyRegistrations();
  try {
    const module = await importModule(pathToFileURL(manifest.entry).href);
    const register = registerFunction(module);
    if (!register) throw new Error(`${manifest.entry} exports no register(api) function`);
    const settings = input.config.plugins.config[manifest.name] ?? input.config.plugins.config[candidate.name] ?? {};
    const api = collectingApi(
      manifest.name,
      {
        home: input.home,
        config: settings && typeof settings === "object" ? (settings as Record<string, unknown>) : { value: settings },
        log: input.log ?? (() => {}),
      },
      registrations,
    );
    await runRegister(register, api);
  } catch (error) {
    const where = error instanceof SyntaxError ? await syntaxErrorLocation(manifest.entry) : undefined;
    return { ...report, status: "failed", error: `${firstLine(error)}${where ? ` (${where})` : ""}` };
  }
  const owner = manifest.name;
  const toolsets = new Map<string, string[]>();
  for (const tool of registrations.tools)
    toolsets.set(tool.toolset!, [...(toolsets.get(tool.toolset!) ?? []), tool.name]);
  for (const [name, tools] of toolsets) {
    registerToolset(name, { description: `Tools of the ${owner} plugin`, tools });
    set.toolsets.push(name);
  }
  for (const { name, toolset } of registrations.toolsets) {
    registerToolset(name, toolset);
    if (!set.toolsets.includes(name)) set.toolsets.push(name);
  }
  for (const item of registrations.tools) set.tools.push({ owner, item });
  for (const item of registrations.hooks) set.hooks.push({ owner, item });
  for (const item of registrations.commands) set.commands.push({ owner, item });
  for (const [name, item] of registrations.memoryProviders) set.memoryProviders.set(name, { owner, item });
  for (const [name, item] of registrations.contextEngines) set.contextEngines.set(name, { owner, item });
  for (const item of registrations.platforms) set.platforms.push({ owner, item });
  for (const item of registrations.cliCommands) set.cliCommands.push({ owner, item });
  return { ...report, registered: describe(registrations) };
}

/** One line naming the problem. */
function firstLine(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const name = error.name === "Error" ? "" : `${error.name}: `;
  return `${name}${error.message}`.replace(/\s*\n\s*/g, " ").slice(0, 500);
}

/**
 * Where a syntax error is: import() does not say, so Node checks the source itself (only after
 * a failure) as an ES module from stdin, and its first line of output is `[stdin]:LINE`.
 */
async function syntaxErrorLocation(entry: string): Promise<string | undefined> {
  const { spawn } = await import("node:child_process");
  const { readFileSync } = await import("node:fs");
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--input-type=module", "--check"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    const timer = setTimeout(() => child.kill(), 10_000);
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", () => resolve(undefined));
    child.on("close", () => {
      clearTimeout(timer);
      const line = /^\[stdin\]:(\d+)/m.exec(stderr)?.[1];
      resolve(line ? `${entry}:${line}` : undefined);
    });
    child.stdin.on("error", () => {});
    child.stdin.end(readFileSync(entry));
  });
}

/** Loads every candidate in order; never throws for a plugin's own failure. */
export async function loadPlugins(input: LoadPluginsInput): Promise<PluginSet> {
  const set = emptySet();
  for (const candidate of pluginCandidates(input.home, input.config)) {
    const report = await loadOne(candidate, input, set);
    set.reports.push(report);
    input.log?.(`plugin ${report.name}: ${report.status}${report.error ? ` (${report.error})` : ""}`);
  }
  return set;
}
