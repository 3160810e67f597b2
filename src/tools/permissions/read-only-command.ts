/** Shell commands that change nothing: known read-only programs used in a read-only way. */
import { parseShellStrict, redirectWritesFile, type ShellWord } from "./shell-parse.js";

/**
 * Programs that neither write files nor run other programs whatever arguments they are given,
 * so arguments the shell expands (variables, globs) cannot turn them into something else.
 */
const INERT_PROGRAMS = new Set([
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "grep",
  "pwd",
  "echo",
  "which",
  "stat",
  "du",
  "df",
  "cut",
  "jq",
  "printenv",
  "uname",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "whoami",
  "true",
  "false",
  "cd",
]);

type ArgCheck = (args: string[]) => boolean;

/** Programs that are read-only only with some arguments; every argument must be literal. */
const CHECKED_PROGRAMS: Record<string, ArgCheck> = {
  git: gitIsReadOnly,
  find: (args) => !args.some((a) => FIND_ACTIONS.has(a)),
  rg: (args) => !args.some((a) => longOptionIs(a, "--pre") || longOptionIs(a, "--pre-glob")),
  sort: (args) =>
    !options(args).some(
      (a) => shortCluster(a, "o") || longOptionIs(a, "--output") || longOptionIs(a, "--compress-program"),
    ),
  uniq: uniqIsReadOnly,
  tree: (args) => !options(args).some((a) => shortCluster(a, "o") || shortCluster(a, "R")),
  file: (args) => !options(args).some((a) => shortCluster(a, "C") || longOptionIs(a, "--compile")),
  date: (args) => !options(args).some((a) => shortCluster(a, "s") || longOptionIs(a, "--set")),
  node: (args) => args.length === 1 && (args[0] === "--version" || args[0] === "-v"),
  npm: (args) => NPM_READS.has(args[0] ?? "") || (args.length === 1 && (args[0] === "--version" || args[0] === "-v")),
};

const FIND_ACTIONS = new Set([
  "-delete",
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-fprint",
  "-fprint0",
  "-fprintf",
  "-fls",
]);
const NPM_READS = new Set(["ls", "list", "la", "ll", "view", "info", "show", "v"]);

/** Arguments before `--`. */
function options(args: string[]): string[] {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).filter((a) => a.startsWith("-") && a !== "-");
}

/** A cluster of short options (`-ro`) that includes `letter`. */
function shortCluster(arg: string, letter: string): boolean {
  return arg.startsWith("-") && !arg.startsWith("--") && arg.slice(1).includes(letter);
}

/**
 * Whether `arg` names the long option `name`, also when abbreviated (getopt accepts any
 * unambiguous prefix, so `--out=f` is `--output=f`) or followed by `=value`.
 */
function longOptionIs(arg: string, name: string): boolean {
  if (!arg.startsWith("--") || arg === "--") return false;
  const given = arg.split("=")[0]!;
  return given.length > 2 && (name.startsWith(given) || given.startsWith(name));
}

const GIT_READS = new Set(["status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "branch"]);
const GIT_WRITING_OPTIONS = ["--output", "--ext-diff", "--open-files-in-pager"];

function gitIsReadOnly(args: string[]): boolean {
  let k = 0;
  // Only global options that change no behaviour beyond the directory and the pager.
  while (k < args.length && args[k]!.startsWith("-")) {
    const option = args[k]!;
    if (option === "-C") k += 2;
    else if (option === "--no-pager" || option === "-P" || option === "--no-optional-locks") k++;
    else if (option === "--version" && args.length === k + 1) return true;
    else return false;
  }
  const sub = args[k];
  const rest = args.slice(k + 1);
  if (sub === undefined || !GIT_READS.has(sub)) return false;
  const opts = options(rest);
  if (opts.some((a) => GIT_WRITING_OPTIONS.some((name) => longOptionIs(a, name)))) return false;
  if (sub === "grep" && opts.some((a) => shortCluster(a, "O"))) return false;
  if (sub === "branch") return gitBranchLists(rest);
  return true;
}

const BRANCH_LIST_FLAGS = new Set([
  "-a",
  "-r",
  "-v",
  "-vv",
  "-l",
  "--all",
  "--remotes",
  "--verbose",
  "--list",
  "--show-current",
  "--no-color",
  "--color",
  "--column",
  "--no-column",
  "-i",
  "--ignore-case",
  "--omit-empty",
]);
const BRANCH_LIST_VALUES = [
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
  "--sort",
  "--format",
];

/** `git branch` that only lists: known listing options, and names only as `--list` patterns. */
function gitBranchLists(args: string[]): boolean {
  let listing = false;
  const names: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    // Not -l: before git 2.19 it meant --create-reflog, which creates the named branch.
    if (arg === "--list") listing = true;
    if (BRANCH_LIST_FLAGS.has(arg) || /^--(?:color|column)=/.test(arg)) continue;
    const valued = BRANCH_LIST_VALUES.find((name) => arg === name || arg.startsWith(`${name}=`));
    if (valued) {
      if (arg === valued && args[k + 1] !== undefined && !args[k + 1]!.startsWith("-")) k++;
      continue;
    }
    if (arg.startsWith("-")) return false;
    names.push(arg);
  }
  // `git branch NAME` creates a branch; with --list, names are patterns to filter by.
  return names.length === 0 || listing;
}

/** uniq's second operand is an output file. */
function uniqIsReadOnly(args: string[]): boolean {
  let operands = 0;
  let ended = false;
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    if (!ended && arg === "--") {
      ended = true;
    } else if (!ended && arg.startsWith("-") && arg !== "-") {
      const takesValue =
        arg === "-f" ||
        arg === "-s" ||
        arg === "-w" ||
        (!arg.includes("=") && ["--skip-fields", "--skip-chars", "--check-chars"].some((n) => longOptionIs(arg, n)));
      if (takesValue) k++;
    } else {
      operands++;
    }
  }
  return operands <= 1;
}

/** env options that change nothing but the environment and directory of the program it runs. */
function envProgram(words: ShellWord[]): ShellWord[] | null {
  let k = 0;
  while (k < words.length) {
    const word = words[k]!;
    if (word.dynamic) return null;
    const v = word.value;
    if (v === "--") {
      k++;
      break;
    }
    if (v === "-i" || v === "-" || v === "-0" || v === "--null" || v === "--ignore-environment") k++;
    else if (v === "-u" || v === "--unset" || v === "-C" || v === "--chdir") k += 2;
    else if (/^(?:-u.|--unset=|-C.|--chdir=)/.test(v)) k++;
    else if (v.startsWith("-")) return null;
    else break;
  }
  const rest = words.slice(k);
  // NAME=value before the program (LD_PRELOAD, GIT_PAGER...) can make any program run code.
  if (rest.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(rest[0]!.value)) return null;
  return rest;
}

const XARGS_FLAGS = new Set(["0", "r", "t", "x", "p", "o"]);
const XARGS_VALUED = new Set(["a", "d", "E", "I", "L", "n", "P", "s"]);
const XARGS_OPTIONAL = new Set(["e", "i", "l"]);
const XARGS_LONG_FLAGS = new Set([
  "--null",
  "--no-run-if-empty",
  "--verbose",
  "--exit",
  "--interactive",
  "--open-tty",
  "--show-limits",
]);
const XARGS_LONG_VALUED = [
  "--arg-file",
  "--delimiter",
  "--max-args",
  "--max-lines",
  "--max-procs",
  "--max-chars",
  "--replace",
  "--eof",
  "--process-slot-var",
];

/** The program xargs runs, with its fixed arguments, or null for options this does not know. */
function xargsProgram(words: ShellWord[]): ShellWord[] | null {
  let k = 0;
  while (k < words.length) {
    const word = words[k]!;
    if (word.dynamic) return null;
    const v = word.value;
    if (v === "--") {
      k++;
      break;
    }
    if (!v.startsWith("-") || v === "-") break;
    if (v.startsWith("--")) {
      const name = v.split("=")[0]!;
      if (XARGS_LONG_FLAGS.has(name)) k++;
      else if (XARGS_LONG_VALUED.includes(name))
        k += v.includes("=") || name === "--replace" || name === "--eof" ? 1 : 2;
      else return null;
      continue;
    }
    let consumed = 1;
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!;
      if (XARGS_FLAGS.has(letter)) continue;
      if (XARGS_OPTIONAL.has(letter)) break;
      if (XARGS_VALUED.has(letter)) {
        if (j === v.length - 1) consumed = 2;
        break;
      }
      return null;
    }
    k += consumed;
  }
  return words.slice(k);
}

function wordsAreReadOnly(words: ShellWord[]): boolean {
  const program = words[0];
  if (!program) return true;
  // The program must be named literally, without a directory (./ls could be anything).
  if (program.dynamic || program.value.includes("/")) return false;
  const name = program.value;
  const args = words.slice(1);
  if (name === "env") {
    const inner = envProgram(args);
    return inner !== null && wordsAreReadOnly(inner);
  }
  if (name === "xargs") {
    const inner = xargsProgram(args);
    if (inner === null) return false;
    // xargs appends words from its input, so only programs that no argument can turn into a
    // writer qualify (`echo -delete | xargs find .` would delete).
    if (inner.length > 0 && (inner[0]!.dynamic || !INERT_PROGRAMS.has(inner[0]!.value))) return false;
    return wordsAreReadOnly(inner);
  }
  if (INERT_PROGRAMS.has(name)) return true;
  const check = CHECKED_PROGRAMS[name];
  if (!check) return false;
  if (args.some((a) => a.dynamic)) return false;
  return check(args.map((a) => a.value));
}

/**
 * True only when every program the command runs is a known read-only one used in a read-only
 * way, joined by pipes, `&&`, `||`, `;` or `&`. Redirections to files, substitutions, variable
 * assignments and anything the strict reader cannot parse make it false.
 */
export function isReadOnlyCommand(command: string): boolean {
  if (typeof command !== "string" || command.trim() === "") return false;
  const parsed = parseShellStrict(command);
  if (!parsed || parsed.parts.length === 0) return false;
  return parsed.parts.every(
    (part) => part.words.length > 0 && !part.redirects.some(redirectWritesFile) && wordsAreReadOnly(part.words),
  );
}
