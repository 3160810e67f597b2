/**
 * The API a plugin's `register(api)` receives, and what its registrations add up to. Types here
 * are part of the package's public API (re-exported from the package root) so plugin authors
 * get them with `import type { PluginApi } from "hermes-agent"`.
 */
import type { ContextEngineFactory } from "../../agent/context-engine.js";
import type { HookEvent, HookHandler } from "../../agent/hooks.js";
import type { MemoryProvider } from "../../agent/memory-manager.js";
import type { HermesConfig } from "../../state/config-schema.js";
import type { ParameterSchema, ToolSpec } from "../../tools/registry.js";
import { z } from "../../util/schema/index.js";

/** Plugin tools described by plain JSON Schema accept any object here; the handler checks it. */
const anyArguments = z.record(z.string(), z.unknown());

function isSchema(value: unknown): value is ParameterSchema {
  return typeof (value as ParameterSchema | undefined)?.safeParse === "function";
}

/**
 * A tool from a plugin: a built-in's shape, its toolset defaulting to the plugin's name.
 * `parameters` is a schema built with `api.z` (or zod 4), or a plain JSON Schema object (then
 * the handler checks its own arguments).
 */
export type PluginTool<S extends ParameterSchema<unknown> = ParameterSchema> = Omit<
  ToolSpec<S>,
  "toolset" | "parameters"
> & {
  toolset?: string;
  parameters: S | Record<string, unknown>;
};

export interface PluginToolset {
  description: string;
  tools: string[];
  includes?: string[];
}

export interface PluginCommandContext {
  /** The session the command was typed in, when there is one. */
  sessionId?: string;
  /** "cli", "telegram", ... */
  platform: string;
  home: string;
}

/** A slash command for the terminal and the messaging gateway. */
export interface PluginCommand {
  /** Without the slash: letters, digits and dashes. */
  name: string;
  description: string;
  /** Shown in help as `/name ARGS`. */
  args?: string;
  /** Returns (or resolves to) the text shown to the user; anything but a string shows nothing. */
  run(args: string, ctx: PluginCommandContext): unknown;
}

export interface PluginCliIo {
  out(text: string): void;
  err(text: string): void;
}

/** `hermes NAME ARGS...` */
export interface PluginCliCommand {
  name: string;
  description: string;
  /** Returns (or resolves to) the exit code; anything but a number means 0. */
  run(argv: string[], io: PluginCliIo): unknown;
}

export interface MemoryProviderInput {
  home: string;
  /** The memory directory of this scope (the home's `memories/`, or a gateway user's scope under it). */
  dir: string;
  config: HermesConfig;
  /** Where the provider reports problems that do not stop it (shown to the user, logged). */
  warn: (message: string) => void;
  /** The provider's own settings: `plugins.config.<plugin>` for a plugin's provider. */
  settings: unknown;
}

export type MemoryProviderFactory = (input: MemoryProviderInput) => MemoryProvider | Promise<MemoryProvider>;

export interface PluginPlatformContext {
  config: HermesConfig;
  env: Record<string, string | undefined>;
  home: string;
  log: (line: string) => void;
}

/**
 * A messaging platform. `createAdapter` returns an object with the gateway's adapter contract
 * (see docs/gateway.md); the platform is on when `platforms.<name>.enabled` is true,
 * `<NAME>_ENABLED=true`, or every variable in `enablingEnv` is set.
 */
export interface PluginPlatform {
  name: string;
  label?: string;
  enablingEnv?: string[];
  createAdapter(context: PluginPlatformContext): unknown | Promise<unknown>;
}

export interface PluginApi {
  /** The plugin's name from its manifest. */
  readonly name: string;
  /** HERMES_HOME of the process loading it. */
  readonly home: string;
  /** `plugins.config.<name>` from config.yaml ({} when absent). */
  readonly config: Readonly<Record<string, unknown>>;
  /** A line in $HERMES_HOME/logs/agent.log, marked with the plugin's name. */
  log(message: string): void;
  /** The zod-compatible schema builder the built-in tools use (`api.z.object({...})`). */
  readonly z: typeof z;
  registerTool<S extends ParameterSchema<unknown>>(tool: PluginTool<S>): void;
  registerToolset(name: string, toolset: PluginToolset): void;
  on<E extends HookEvent>(event: E, handler: HookHandler<E>, options?: { timeoutMs?: number }): void;
  registerCommand(command: PluginCommand): void;
  registerMemoryProvider(name: string, factory: MemoryProviderFactory): void;
  registerContextEngine(name: string, factory: ContextEngineFactory): void;
  registerPlatform(platform: PluginPlatform): void;
  registerCliCommand(command: PluginCliCommand): void;
}

/** The module a plugin's entry must be: `export function register(api) {...}` (or a default export). */
export interface HermesPlugin {
  register(api: PluginApi): void | Promise<void>;
}

export interface OwnedHook {
  event: HookEvent;
  handler: HookHandler<HookEvent>;
  timeoutMs?: number;
}

/** Everything one plugin registered, applied only when its `register` finished without error. */
export interface PluginRegistrations {
  tools: PluginTool[];
  toolsets: Array<{ name: string; toolset: PluginToolset }>;
  hooks: OwnedHook[];
  commands: PluginCommand[];
  memoryProviders: Map<string, MemoryProviderFactory>;
  contextEngines: Map<string, ContextEngineFactory>;
  platforms: PluginPlatform[];
  cliCommands: PluginCliCommand[];
}

export function emptyRegistrations(): PluginRegistrations {
  return {
    tools: [],
    toolsets: [],
    hooks: [],
    commands: [],
    memoryProviders: new Map(),
    contextEngines: new Map(),
    platforms: [],
    cliCommands: [],
  };
}

const COMMAND_NAME = /^[a-z][a-z0-9-]*$/;

function need(condition: boolean, message: string): void {
  if (!condition) throw new TypeError(message);
}

/** An api whose calls are checked and collected into `into`. */
export function collectingApi(
  name: string,
  input: { home: string; config: Record<string, unknown>; log: (line: string) => void },
  into: PluginRegistrations,
): PluginApi {
  const toolsetName = name.replace(/^@/, "").replace(/[^\w-]+/g, "-");
  return {
    name,
    home: input.home,
    config: Object.freeze({ ...input.config }),
    log: (message) => input.log(`[${name}] ${message}`),
    z,
    registerTool(tool) {
      need(typeof tool?.name === "string" && /^[A-Za-z_][\w-]*$/.test(tool.name), "registerTool: a tool needs a name");
      need(typeof tool.handler === "function", `registerTool(${tool.name}): handler must be a function`);
      need(
        Boolean(tool.parameters) && typeof tool.parameters === "object",
        `registerTool(${tool.name}): parameters must be a schema or a JSON Schema object`,
      );
      const parameters = isSchema(tool.parameters)
        ? { parameters: tool.parameters }
        : { parameters: anyArguments, jsonSchema: { type: "object", properties: {}, ...tool.parameters } };
      into.tools.push({ ...tool, ...parameters, toolset: tool.toolset ?? toolsetName } as PluginTool);
    },
    registerToolset(toolset, definition) {
      need(typeof toolset === "string" && toolset.length > 0, "registerToolset: a toolset needs a name");
      need(Array.isArray(definition?.tools), `registerToolset(${toolset}): tools must be a list of names`);
      into.toolsets.push({ name: toolset, toolset: definition });
    },
    on(event, handler, options) {
      need(typeof handler === "function", `on(${event}): the handler must be a function`);
      into.hooks.push({
        event,
        handler: handler as unknown as HookHandler<HookEvent>,
        ...(options?.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
    },
    registerCommand(command) {
      need(COMMAND_NAME.test(command?.name ?? ""), "registerCommand: name must be lower-case letters, digits, dashes");
      need(typeof command.run === "function", `registerCommand(${command.name}): run must be a function`);
      into.commands.push(command);
    },
    registerMemoryProvider(provider, factory) {
      need(typeof factory === "function", `registerMemoryProvider(${provider}): the factory must be a function`);
      into.memoryProviders.set(provider, factory);
    },
    registerContextEngine(engine, factory) {
      need(typeof factory === "function", `registerContextEngine(${engine}): the factory must be a function`);
      into.contextEngines.set(engine, factory);
    },
    registerPlatform(platform) {
      need(
        COMMAND_NAME.test(platform?.name ?? ""),
        "registerPlatform: name must be lower-case letters, digits, dashes",
      );
      need(typeof platform.createAdapter === "function", `registerPlatform(${platform.name}): createAdapter is needed`);
      into.platforms.push(platform);
    },
    registerCliCommand(command) {
      need(
        COMMAND_NAME.test(command?.name ?? ""),
        "registerCliCommand: name must be lower-case letters, digits, dashes",
      );
      need(typeof command.run === "function", `registerCliCommand(${command.name}): run must be a function`);
      into.cliCommands.push(command);
    },
  };
}
