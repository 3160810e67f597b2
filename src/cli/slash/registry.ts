/**
 * One table of slash commands for every interactive surface. A typed command resolves by
 * exact name or alias first, then by unique prefix; an ambiguous prefix names the candidates.
 */
import { editDistance } from "../../util/edit-distance.js";

export type SlashCategory = "session" | "control" | "config" | "info";

export interface SlashCommand<C = unknown> {
  /** Without the leading slash, lower case. */
  name: string;
  aliases?: string[];
  /** Shown in /help as `/name ARGS`. */
  args?: string;
  description: string;
  category: SlashCategory;
  /** May run while a turn is in progress (otherwise it waits until the turn ends). */
  whileBusy?: boolean;
  run(args: string, ctx: C): void | Promise<void>;
}

export type SlashResolution<C> =
  | { kind: "command"; command: SlashCommand<C>; args: string; typed: string }
  | { kind: "unknown"; typed: string; suggestions: string[] }
  | { kind: "ambiguous"; typed: string; candidates: string[] };

/** `"/title  My talk"` → `{name: "title", args: "My talk"}`; undefined for text that is not a command. */
export function parseSlashInput(input: string): { name: string; args: string } | undefined {
  const text = input.trim();
  if (!text.startsWith("/") || text.length < 2) return undefined;
  // "/path/to/file" is text about a path, not a command.
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return undefined;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}

export class SlashRegistry<C = unknown> {
  private readonly commands: SlashCommand<C>[] = [];
  private readonly byName = new Map<string, SlashCommand<C>>();

  constructor(commands: readonly SlashCommand<C>[] = []) {
    for (const command of commands) this.register(command);
  }

  register(command: SlashCommand<C>): void {
    for (const key of [command.name, ...(command.aliases ?? [])]) {
      const taken = this.byName.get(key);
      if (taken) throw new Error(`slash command "/${key}" is already taken by /${taken.name}`);
    }
    this.commands.push(command);
    for (const key of [command.name, ...(command.aliases ?? [])]) this.byName.set(key, command);
  }

  list(): readonly SlashCommand<C>[] {
    return this.commands;
  }

  get(name: string): SlashCommand<C> | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** Resolve a typed name (without the slash): exact name or alias, then a unique prefix. */
  resolveName(typed: string): SlashResolution<C> {
    const key = typed.toLowerCase();
    const exact = this.byName.get(key);
    if (exact) return { kind: "command", command: exact, args: "", typed: key };
    const matches = new Set<SlashCommand<C>>();
    for (const [name, command] of this.byName) if (name.startsWith(key)) matches.add(command);
    if (matches.size === 1) {
      const [command] = matches;
      return { kind: "command", command: command!, args: "", typed: key };
    }
    if (matches.size > 1) {
      return { kind: "ambiguous", typed: key, candidates: [...matches].map((c) => c.name).sort() };
    }
    const suggestions = [...this.byName.keys()]
      .map((name) => ({ name, distance: editDistance(key, name) }))
      .filter((s) => s.distance <= (key.length <= 3 ? 1 : 2))
      .sort((a, b) => a.distance - b.distance)
      .map((s) => this.byName.get(s.name)!.name);
    return { kind: "unknown", typed: key, suggestions: [...new Set(suggestions)].slice(0, 3) };
  }

  /** Resolve a whole input line; undefined when the line is not a slash command. */
  resolve(input: string): SlashResolution<C> | undefined {
    const parsed = parseSlashInput(input);
    if (!parsed) return undefined;
    const resolution = this.resolveName(parsed.name);
    return resolution.kind === "command" ? { ...resolution, args: parsed.args } : resolution;
  }

  /** One line per command for /help, grouped by category. */
  helpLines(): string[] {
    const titles: Record<SlashCategory, string> = {
      session: "Session",
      control: "While the agent works",
      config: "Settings",
      info: "Information",
    };
    const lines: string[] = [];
    const usage = (c: SlashCommand<C>) => `/${c.name}${c.args ? ` ${c.args}` : ""}`;
    const width = Math.max(...this.commands.map((c) => usage(c).length)) + 2;
    for (const category of Object.keys(titles) as SlashCategory[]) {
      const group = this.commands.filter((c) => c.category === category);
      if (group.length === 0) continue;
      lines.push(`${titles[category]}:`);
      for (const command of group) {
        const aliases = command.aliases?.length ? ` (also ${command.aliases.map((a) => `/${a}`).join(", ")})` : "";
        lines.push(`  ${usage(command).padEnd(width)}${command.description}${aliases}`);
      }
    }
    return lines;
  }
}

/** The message for a line that did not resolve to a command. */
export function describeUnresolved(resolution: SlashResolution<unknown>): string {
  if (resolution.kind === "ambiguous") {
    return `/${resolution.typed} is ambiguous: ${resolution.candidates.map((c) => `/${c}`).join(", ")}`;
  }
  if (resolution.kind === "unknown") {
    const hint = resolution.suggestions.length
      ? ` Did you mean ${resolution.suggestions.map((s) => `/${s}`).join(" or ")}?`
      : "";
    return `unknown command /${resolution.typed}.${hint} Type /help for the list.`;
  }
  return "";
}
