/**
 * Toolsets: named groups of tools that decide what the model is shown. The built-in table is
 * plain data; custom toolsets (from config), plugin/MCP toolsets and the toolset names tools
 * were registered under are merged in when read, so the built-in table never changes.
 */
import type { ToolRegistry } from "./registry.js";

export interface ToolsetDefinition {
  description: string;
  tools: string[];
  includes: string[];
}

/** What a config file or plugin may give: every field optional. */
export interface ToolsetInput {
  description?: string;
  tools?: string[];
  includes?: string[];
}

export const BROWSER_TOOLS: readonly string[] = [
  "browser_navigate",
  "browser_snapshot",
  "browser_click",
  "browser_type",
  "browser_scroll",
  "browser_back",
  "browser_press",
  "browser_get_images",
  "browser_vision",
  "browser_console",
];

export const HOME_ASSISTANT_TOOLS: readonly string[] = [
  "ha_list_entities",
  "ha_get_state",
  "ha_list_services",
  "ha_call_service",
];

/** The tools every full platform toolset (CLI and messaging platforms) starts from. */
export const HERMES_CORE_TOOLS: readonly string[] = [
  "web_search",
  "web_extract",
  "terminal",
  "process",
  "read_file",
  "write_file",
  "patch",
  "search_files",
  "vision_analyze",
  "image_generate",
  "skills_list",
  "skill_view",
  "skill_manage",
  ...BROWSER_TOOLS,
  "text_to_speech",
  "todo",
  "memory",
  "session_search",
  "clarify",
  "execute_code",
  "delegate_task",
  "cronjob",
  "send_message",
  ...HOME_ASSISTANT_TOOLS,
];

function def(description: string, tools: readonly string[] = [], includes: readonly string[] = []): ToolsetDefinition {
  return { description, tools: [...tools], includes: [...includes] };
}

function coreWithout(...excluded: string[]): string[] {
  return HERMES_CORE_TOOLS.filter((tool) => !excluded.includes(tool));
}

function platform(description: string, extras: readonly string[] = []): ToolsetDefinition {
  return def(description, [...HERMES_CORE_TOOLS, ...extras]);
}

const MESSAGING_PLATFORMS = [
  "hermes-telegram",
  "hermes-discord",
  "hermes-whatsapp",
  "hermes-slack",
  "hermes-signal",
  "hermes-homeassistant",
  "hermes-email",
  "hermes-sms",
  "hermes-mattermost",
  "hermes-matrix",
  "hermes-dingtalk",
  "hermes-feishu",
  "hermes-wecom",
  "hermes-webhook",
];

const BUILTIN_TOOLSETS: Readonly<Record<string, ToolsetDefinition>> = {
  web: def("Search the web and extract page content", ["web_search", "web_extract"]),
  search: def("Web search only, without page extraction", ["web_search"]),
  vision: def("Analyse images", ["vision_analyze"]),
  image_gen: def("Generate images", ["image_generate"]),
  // Not in any platform's default set: every call is several paid requests to large models.
  moa: def("Put a hard question to several models and merge their answers", ["mixture_of_agents"]),
  // Not in any platform's default set: each call is a paid xAI request, so it is opted into.
  x_search: def("Search X (Twitter) posts and threads through xAI", ["x_search"]),
  terminal: def("Run shell commands and manage background processes", ["terminal", "process"]),
  file: def("Read, write, patch and search files", ["read_file", "write_file", "patch", "search_files"]),
  skills: def("List, view, create and edit skills", ["skills_list", "skill_view", "skill_manage"]),
  browser: def("Drive a web browser (navigate, click, type, scroll)", BROWSER_TOOLS),
  cronjob: def("Create, list, update, pause and remove scheduled jobs", ["cronjob"]),
  tts: def("Turn text into speech", ["text_to_speech"]),
  todo: def("Plan and track multi-step work", ["todo"]),
  memory: def("Persistent notes about the work and the user across sessions", ["memory"]),
  session_search: def("Search and recall past conversations", ["session_search"]),
  clarify: def("Ask the user a clarifying question", ["clarify"]),
  code_execution: def("Run a script that calls tools programmatically", ["execute_code"]),
  delegation: def("Hand a subtask to a subagent with its own context", ["delegate_task"]),
  messaging: def("Send a message to another chat or platform", ["send_message"]),
  homeassistant: def("Control and monitor a Home Assistant smart home", HOME_ASSISTANT_TOOLS),

  debugging: def("Troubleshooting kit: terminal plus web and file tools", ["terminal", "process"], ["web", "file"]),
  safe: def("Research and media tools without terminal or file access", [], ["web", "vision", "image_gen"]),
  coding: def(
    "Lean set for working in a codebase (agent.coding_context: focus)",
    ["clarify"],
    ["file", "terminal", "todo", "web", "skills", "memory", "session_search", "code_execution", "delegation"],
  ),

  // No speech in the terminal by default: it has nowhere to play it, and the first request stays
  // under its token budget (add the `tts` toolset to have it).
  "hermes-cli": def("Interactive terminal: every default tool but speech", coreWithout("text_to_speech")),
  "hermes-cron": platform("Scheduled jobs: the CLI's tools, and speech for the chats they deliver to"),
  "hermes-api-server": def(
    "OpenAI-compatible API server: full agent tools without interactive ones",
    coreWithout("clarify", "send_message", "text_to_speech"),
  ),
  "hermes-acp": def(
    "Editor integration: coding tools without messaging, audio or clarify",
    coreWithout("clarify", "send_message", "text_to_speech", "image_generate", "cronjob", ...HOME_ASSISTANT_TOOLS),
  ),
  "hermes-telegram": platform("Telegram bot"),
  "hermes-discord": platform("Discord bot"),
  "hermes-whatsapp": platform("WhatsApp bot"),
  "hermes-slack": platform("Slack bot"),
  "hermes-signal": platform("Signal bot"),
  "hermes-homeassistant": platform("Home Assistant conversation agent"),
  "hermes-email": platform("Email (IMAP/SMTP) agent"),
  "hermes-sms": platform("SMS agent"),
  "hermes-mattermost": platform("Mattermost bot"),
  "hermes-matrix": platform("Matrix bot"),
  "hermes-dingtalk": platform("DingTalk bot"),
  "hermes-feishu": platform("Feishu/Lark bot"),
  "hermes-wecom": platform("WeCom bot"),
  // Webhook payloads come from third parties, so no file or shell access.
  "hermes-webhook": def("Webhook events: read-only research tools", [
    "web_search",
    "web_extract",
    "vision_analyze",
    "clarify",
  ]),
  "hermes-gateway": def("Every messaging platform's tools", [], MESSAGING_PLATFORMS),
};

const ALL_NAMES = new Set(["all", "*"]);

function normalise(input: ToolsetInput, fallbackDescription: string): ToolsetDefinition {
  return {
    description: input.description ?? fallbackDescription,
    tools: [...new Set(input.tools ?? [])],
    includes: [...new Set(input.includes ?? [])],
  };
}

/**
 * The toolset table of one process: built-ins plus what config, plugins and MCP servers add.
 * The module-level functions below use a shared default catalog.
 */
export class ToolsetCatalog {
  private readonly custom = new Map<string, ToolsetDefinition>();
  private readonly dynamic = new Map<string, ToolsetDefinition>();
  private registry: ToolRegistry | undefined;

  constructor(registry?: ToolRegistry) {
    this.registry = registry;
  }

  /** Merge tools registered under a toolset name (plugins, MCP servers) into reads. */
  attachRegistry(registry: ToolRegistry | undefined): void {
    this.registry = registry;
  }

  /**
   * Add user-defined toolsets (the `custom_toolsets` config section). A name that belongs to a
   * built-in toolset is refused so config cannot silently change what a platform exposes.
   */
  registerCustomToolsets(record: Record<string, ToolsetInput>): { registered: string[]; rejected: string[] } {
    const registered: string[] = [];
    const rejected: string[] = [];
    for (const [name, input] of Object.entries(record)) {
      if (name in BUILTIN_TOOLSETS || ALL_NAMES.has(name)) {
        rejected.push(name);
        continue;
      }
      this.custom.set(name, normalise(input, `Custom toolset ${name}`));
      registered.push(name);
    }
    return { registered, rejected };
  }

  /** Add or replace a plugin or MCP toolset (MCP servers use `mcp-<server>`). */
  registerToolset(name: string, input: ToolsetInput): void {
    if (ALL_NAMES.has(name)) throw new Error(`"${name}" is reserved and cannot name a toolset`);
    this.dynamic.set(name, normalise(input, `Tools from ${name}`));
  }

  unregisterToolset(name: string): boolean {
    return this.dynamic.delete(name);
  }

  /** Forget custom and plugin toolsets (tests, config reloads). */
  reset(): void {
    this.custom.clear();
    this.dynamic.clear();
  }

  /** Every known toolset name: built-in, custom, plugin/MCP, and registry toolset tags. */
  names(): string[] {
    const names = new Set<string>([...Object.keys(BUILTIN_TOOLSETS), ...this.custom.keys(), ...this.dynamic.keys()]);
    for (const spec of this.registry?.all() ?? []) names.add(spec.toolset);
    return [...names];
  }

  get(name: string): ToolsetDefinition | null {
    const base = BUILTIN_TOOLSETS[name] ?? this.custom.get(name) ?? this.dynamic.get(name);
    const registered = this.registeredTools(name);
    if (!base && registered.length === 0) return null;
    const merged = base ? normalise(base, base.description) : def(`Tools registered under ${name}`);
    if (registered.length === 0) return merged;
    for (const tool of registered) if (!merged.tools.includes(tool)) merged.tools.push(tool);
    merged.tools.sort();
    return merged;
  }

  validate(name: string): boolean {
    return ALL_NAMES.has(name) || this.get(name) !== null;
  }

  /** Tool names of a toolset, with includes expanded transitively, sorted; [] for an unknown name. */
  resolve(name: string): string[] {
    return this.resolveInDeclaredOrder(name).sort();
  }

  /**
   * The same tools as `resolve`, in the order the definitions list them (own tools first, then
   * each include's), for listings meant to be read by people.
   */
  resolveInDeclaredOrder(name: string): string[] {
    if (ALL_NAMES.has(name)) return this.allTools();
    const out: string[] = [];
    this.collect(name, new Set(), out, new Set());
    return out;
  }

  /** The union of several toolsets, sorted. */
  resolveMany(names: readonly string[]): string[] {
    const out = new Set<string>();
    for (const name of names) for (const tool of this.resolve(name)) out.add(tool);
    return [...out].sort();
  }

  private collect(name: string, visited: Set<string>, out: string[], added: Set<string>): void {
    if (visited.has(name)) return;
    visited.add(name);
    const toolset = ALL_NAMES.has(name) ? { tools: this.allTools(), includes: [] } : this.get(name);
    if (!toolset) return;
    for (const tool of toolset.tools) {
      if (!added.has(tool)) {
        added.add(tool);
        out.push(tool);
      }
    }
    for (const included of toolset.includes) this.collect(included, visited, out, added);
  }

  private allTools(): string[] {
    const out = new Set<string>();
    for (const name of this.names()) {
      const toolset = this.get(name);
      for (const tool of toolset?.tools ?? []) out.add(tool);
    }
    for (const tool of this.registry?.names() ?? []) out.add(tool);
    return [...out];
  }

  private registeredTools(toolset: string): string[] {
    if (!this.registry) return [];
    return this.registry
      .all()
      .filter((spec) => spec.toolset === toolset)
      .map((spec) => spec.name);
  }
}

export const defaultToolsets = new ToolsetCatalog();

export function getToolset(name: string): ToolsetDefinition | null {
  return defaultToolsets.get(name);
}

export function resolveToolset(name: string): string[] {
  return defaultToolsets.resolve(name);
}

export function resolveToolsets(names: readonly string[]): string[] {
  return defaultToolsets.resolveMany(names);
}

export function validateToolset(name: string): boolean {
  return defaultToolsets.validate(name);
}

export function listToolsets(): string[] {
  return defaultToolsets.names();
}

export function registerCustomToolsets(record: Record<string, ToolsetInput>): {
  registered: string[];
  rejected: string[];
} {
  return defaultToolsets.registerCustomToolsets(record);
}

export function registerToolset(name: string, input: ToolsetInput): void {
  defaultToolsets.registerToolset(name, input);
}

export function unregisterToolset(name: string): boolean {
  return defaultToolsets.unregisterToolset(name);
}

/** The built-in names, for help texts and config validation. */
export function builtinToolsetNames(): string[] {
  return Object.keys(BUILTIN_TOOLSETS);
}
