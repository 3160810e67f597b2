/**
 * `quick_commands` (the original's key): slash commands of the user's own, in the terminal and
 * in every chat. `exec` runs a fixed shell command without the model (30 s limit, the provider
 * keys withheld as for the agent's commands) and answers with its output; `alias` stands for
 * another slash command, with the arguments typed after it appended. Built-in commands keep
 * their names; a quick command under one is reported and left out.
 *
 *   quick_commands:
 *     disk: {type: exec, command: "df -h /"}
 *     ss: {type: alias, target: /sessions}
 */
import { runForeground } from "../tools/builtin/terminal.js";

export type QuickCommand =
  | { name: string; type: "exec"; command: string; description: string }
  | { name: string; type: "alias"; target: string; description: string };

export interface QuickCommandEntry {
  type?: string;
  command?: string;
  target?: string;
  description?: string;
}

const NAME = /^[a-z][a-z0-9_-]*$/;
export const QUICK_EXEC_TIMEOUT_SECONDS = 30;
/** A chat message has room for this much output; the start and the end are kept. */
const QUICK_EXEC_OUTPUT_CHARS = 3500;
const MAX_ALIAS_HOPS = 5;
/** The terminal tool's exit status for a command it stopped at its time limit. */
const EXIT_TIMEOUT = 124;

/** The usable entries of `quick_commands`; `problem` hears about the others. */
export function quickCommands(
  entries: Record<string, QuickCommandEntry>,
  isBuiltIn: (name: string) => boolean,
  problem: (message: string) => void,
): QuickCommand[] {
  const commands: QuickCommand[] = [];
  for (const [raw, entry] of Object.entries(entries)) {
    const name = raw.trim().toLowerCase().replace(/^\//, "");
    const where = `quick_commands.${raw}`;
    if (!NAME.test(name)) {
      problem(`${where}: a command name is letters, digits, - and _, starting with a letter`);
      continue;
    }
    if (isBuiltIn(name)) {
      problem(`${where}: /${name} is a built-in command, which keeps its name`);
      continue;
    }
    const type = entry.type?.trim() || (entry.target ? "alias" : "exec");
    if (type === "exec" && entry.command?.trim()) {
      const command = entry.command.trim();
      commands.push({ name, type, command, description: entry.description?.trim() || `runs: ${command}` });
    } else if (type === "alias" && entry.target?.trim()) {
      const target = entry.target.trim().startsWith("/") ? entry.target.trim() : `/${entry.target.trim()}`;
      commands.push({ name, type, target, description: entry.description?.trim() || `same as ${target}` });
    } else {
      problem(`${where}: needs type exec with a command, or type alias with a target`);
    }
  }
  return commands;
}

/**
 * The command line an alias stands for, followed through aliases of aliases; the text itself
 * when `text` names no alias. Throws on a loop.
 */
export function expandAlias(text: string, commands: readonly QuickCommand[]): string {
  let line = text.trim();
  const seen: string[] = [];
  for (let hop = 0; hop <= MAX_ALIAS_HOPS; hop++) {
    const match = /^\/([a-z][a-z0-9_-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/i.exec(line);
    const name = match?.[1]?.toLowerCase();
    const alias = commands.find((c) => c.type === "alias" && c.name === name);
    if (!alias || alias.type !== "alias") return line;
    if (seen.includes(alias.name))
      throw new Error(`quick command aliases loop: /${[...seen, alias.name].join(" → /")}`);
    seen.push(alias.name);
    const args = match?.[2]?.trim();
    line = args ? `${alias.target} ${args}` : alias.target;
  }
  throw new Error(`quick command /${seen[0]} goes through more than ${MAX_ALIAS_HOPS} aliases`);
}

/** Runs an exec quick command and describes what happened, for the chat or the terminal. */
export async function runQuickExec(
  command: Extract<QuickCommand, { type: "exec" }>,
  cwd: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<string> {
  const result = await runForeground(command.command, cwd, QUICK_EXEC_TIMEOUT_SECONDS, signal, {
    maxOutputChars: QUICK_EXEC_OUTPUT_CHARS,
  });
  const output = result.output.trimEnd() || "(no output)";
  if (result.exit_code === EXIT_TIMEOUT) {
    return `${output}\n(/${command.name} was stopped after ${QUICK_EXEC_TIMEOUT_SECONDS} s)`;
  }
  if (result.error) return `/${command.name}: ${result.error}\n${output}`;
  return result.exit_code === 0 ? output : `${output}\n(/${command.name} exited with status ${result.exit_code})`;
}
