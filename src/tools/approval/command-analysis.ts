/**
 * Turns a command line into the programs it would run: wrappers such as `sudo`, `env`,
 * `nohup` or `xargs` are peeled off, and command strings handed to another shell
 * (`bash -c '...'`, `cmd /c ...`, `pwsh -Command ...`, `eval ...`) are analysed as well.
 */
import { commandName, normalizeCommand, parseCommandLine, type Redirect, type Word } from "../../util/shell-words.js";
import { readSudoOptions } from "./sudo-options.js";

export interface Invocation {
  /** Lower-case program name without directory or `.exe`. */
  name: string;
  /** The program word as written after unwrapping (e.g. "./run.sh", "/bin/rm"). */
  program: Word;
  args: Word[];
  redirects: Redirect[];
  /** Wrappers that were peeled off, in order (sudo, env, xargs...). */
  wrappers: string[];
  /** Option words given to sudo/doas, case preserved. */
  sudoOptions: string[];
  /** Operator after this command (";", "&&", "|", ...). */
  terminator: string;
  /** Nesting depth: 0 for the command line itself, 1 inside `bash -c '...'`, and so on. */
  depth: number;
}

export interface CommandAnalysis {
  /** Normalised command text (escapes stripped, compatibility characters folded), case kept. */
  text: string;
  /** `text` lower-cased. */
  lower: string;
  /** The command rebuilt from its parsed words: quotes and backslash tricks undone, lower-case. */
  flat: string;
  invocations: Invocation[];
  /** Every command string analysed: the command line itself, then the nested ones (`bash -c '...'`). */
  sources: string[];
}

const SHELLS = new Set(["sh", "bash", "zsh", "ksh", "dash", "fish", "ash", "mksh", "tcsh", "csh", "busybox"]);
const POWERSHELLS = new Set(["powershell", "pwsh"]);
const KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time", "exec"]);

export function isShell(name: string): boolean {
  return SHELLS.has(name);
}

export function isPowerShell(name: string): boolean {
  return POWERSHELLS.has(name);
}

/** Wrapper programs and, for each, the options that take a separate argument. */
const WRAPPERS: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "--user", "--group", "--prompt"]),
  doas: new Set(["-u", "-C"]),
  pkexec: new Set(["--user"]),
  env: new Set(["-u", "-C", "--unset", "--chdir"]),
  nohup: new Set(),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p", "--class", "--classdata"]),
  setsid: new Set(),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  command: new Set(),
  builtin: new Set(),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-s", "-a", "-E", "-e", "--max-args", "--max-procs", "--delimiter"]),
  watch: new Set(["-n", "-d", "--interval"]),
  chroot: new Set(),
  unbuffer: new Set(),
  caffeinate: new Set(["-t", "-w"]),
  runuser: new Set(["-u", "-g", "--user", "--group"]),
};

/** Wrappers whose first non-option argument is not the program (a duration, a directory). */
const LEADING_OPERAND: Record<string, number> = { timeout: 1, chroot: 1 };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const MAX_DEPTH = 3;

interface Unwrapped {
  words: Word[];
  wrappers: string[];
  sudoOptions: string[];
  /** A command string a wrapper will run through a shell (`env -S`, `watch`). */
  inner: string | null;
}

/** Peels wrappers, assignments and keywords off a simple command; the program is `words[0]` of the result. */
export function unwrap(words: Word[]): Unwrapped {
  const wrappers: string[] = [];
  const sudoOptions: string[] = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i]!.value;
    if (ASSIGNMENT.test(word) || KEYWORDS.has(word)) {
      i++;
      continue;
    }
    const name = commandName(word);
    const takesArgument = WRAPPERS[name];
    if (!takesArgument) break;
    wrappers.push(name);
    i++;
    if (name === "sudo") {
      const region = readSudoOptions(words, i);
      sudoOptions.push(...region.options);
      i = region.end;
      continue;
    }
    while (i < words.length && words[i]!.value.startsWith("-") && words[i]!.value.length > 1) {
      const option = words[i]!.value;
      if (name === "sudo" || name === "doas") sudoOptions.push(option);
      i++;
      if (option === "--") break;
      if (name === "env" && (option === "-S" || option.startsWith("--split-string"))) {
        const inner = option.includes("=") ? option.slice(option.indexOf("=") + 1) : (words[i]?.value ?? "");
        return { words: [], wrappers, sudoOptions, inner };
      }
      if (takesArgument.has(option) && i < words.length) i++;
    }
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++;
    i += LEADING_OPERAND[name] ?? 0;
    if (name === "watch") {
      return {
        words: [],
        wrappers,
        sudoOptions,
        inner: words
          .slice(i)
          .map((w) => w.value)
          .join(" "),
      };
    }
  }
  return { words: words.slice(i), wrappers, sudoOptions, inner: null };
}

/** Short option clusters of a shell's arguments before its first operand (`-lc` gives "lc"). */
export function shellCommandStringIndex(args: Word[]): number | null {
  for (let i = 0; i < args.length; i++) {
    const value = args[i]!.value;
    if (value === "-o" || value === "+o" || value === "-O" || value === "+O") {
      i++;
      continue;
    }
    if (value === "--command" || /^-[A-Za-z]*c[A-Za-z]*$/.test(value)) return i + 1;
    if (!/^[-+]/.test(value)) return null;
  }
  return null;
}

/** The command string a program will hand to a shell, if it is one that does so. */
function nestedCommand(name: string, args: Word[]): string | null {
  if (isShell(name)) {
    const at = shellCommandStringIndex(args);
    return at === null ? null : (args[at]?.value ?? null);
  }
  if (name === "cmd") {
    const at = args.findIndex((w) => /^\/[ckr]$/i.test(w.value));
    return at < 0 ? null : joinRest(args.slice(at + 1));
  }
  if (isPowerShell(name)) {
    const at = args.findIndex((w) => {
      const option = w.value.toLowerCase().replace(/^[-/]+/, "");
      return /^[-/]/.test(w.value) && option.length > 0 && "command".startsWith(option);
    });
    return at < 0 ? null : joinRest(args.slice(at + 1));
  }
  if (name === "eval") return args.map((w) => w.value).join(" ");
  if (name === "su") {
    const at = args.findIndex((w) => w.value === "-c" || w.value === "--command");
    return at < 0 ? null : (args[at + 1]?.value ?? null);
  }
  return null;
}

function joinRest(words: Word[]): string {
  if (words.length === 1) return words[0]!.value;
  return words.map((w) => w.raw).join(" ");
}

function collect(source: string, depth: number, out: Invocation[], sources: string[]): void {
  sources.push(source);
  for (const simple of parseCommandLine(source)) {
    const { words, wrappers, sudoOptions, inner } = unwrap(simple.words);
    if (inner !== null && depth < MAX_DEPTH) collect(inner, depth + 1, out, sources);
    const program = words[0];
    if (!program) {
      // Kept for its redirections, or for its sudo options (`sudo -s` runs a shell).
      if (simple.redirects.length > 0 || sudoOptions.length > 0) {
        const blank = { value: "", raw: "" };
        out.push({
          name: "",
          program: blank,
          args: [],
          redirects: simple.redirects,
          wrappers,
          sudoOptions,
          terminator: simple.terminator,
          depth,
        });
      }
      continue;
    }
    const name = commandName(program.value);
    const args = words.slice(1);
    out.push({
      name,
      program,
      args,
      redirects: simple.redirects,
      wrappers,
      sudoOptions,
      terminator: simple.terminator,
      depth,
    });
    const nested = nestedCommand(name, args);
    if (nested !== null && depth < MAX_DEPTH) collect(nested, depth + 1, out, sources);
  }
}

/**
 * Undoes what the shared normaliser leaves: 8-bit C1 control sequences (0x9B CSI, 0x9D OSC) that
 * terminals honour like their ESC-prefixed forms, and `${IFS...}` expansions with an operator
 * (`${IFS:0:1}`), which still stand for a space.
 */
function preNormalize(command: string): string {
  if (!/[\x9b\x9d]|\$\{IFS/.test(command)) return command;
  return command
    .replace(/\x9b[0-?]*[ -/]*[@-~]/g, "")
    .replace(/\x9d[^\x07\x9c]*(?:\x07|\x9c)?/g, "")
    .replace(/\$\{IFS\b[^}]*\}/g, " ");
}

export function analyzeCommand(command: string): CommandAnalysis {
  const text = normalizeCommand(preNormalize(command));
  const invocations: Invocation[] = [];
  const sources: string[] = [];
  collect(text, 0, invocations, sources);
  const flat = invocations
    .map((inv) => [...inv.wrappers, inv.program.value, ...inv.args.map((w) => w.value)].join(" "))
    .join(" ; ")
    .toLowerCase();
  return { text, lower: text.toLowerCase(), flat, invocations, sources };
}

/**
 * Whether some invocation accepted by `isSink` reads, through a pipe, the output of an earlier
 * invocation in the same pipeline accepted by `isSource`.
 */
export function pipesInto(
  list: Invocation[],
  isSource: (inv: Invocation) => boolean,
  isSink: (inv: Invocation) => boolean,
): boolean {
  // Nested command strings interleave with their parent, so pipelines are followed per depth.
  const previous = new Map<number, { terminator: string; sourceUpstream: boolean }>();
  for (const inv of list) {
    const before = previous.get(inv.depth);
    const piped = before !== undefined && /^\|&?$/.test(before.terminator);
    if (piped && before.sourceUpstream && isSink(inv)) return true;
    previous.set(inv.depth, {
      terminator: inv.terminator,
      sourceUpstream: (piped && before.sourceUpstream) || isSource(inv),
    });
  }
  return false;
}

/** A fork bomb: a function that pipes itself into itself in the background (`:(){ :|:& };:`). */
export function isForkBomb(lowerText: string): boolean {
  if (!lowerText.includes("{") || !lowerText.includes("|")) return false;
  return /(?:^|[^\w:.])([\w:.]{1,40})\(\)\{\1\|\1&\}/.test(lowerText.replace(/\s+/g, ""));
}

/** Arguments that are not options (do not start with "-"), after `--` everything counts. */
export function operands(args: Word[]): Word[] {
  const out: Word[] = [];
  let optionsEnded = false;
  for (const arg of args) {
    if (!optionsEnded && arg.value === "--") {
      optionsEnded = true;
      continue;
    }
    if (optionsEnded || !arg.value.startsWith("-") || arg.value === "-") out.push(arg);
  }
  return out;
}
