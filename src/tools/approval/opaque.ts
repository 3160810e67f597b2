/**
 * Commands the analyser cannot see through, and destructive programs the older rules did not
 * know. Approvals fail closed: when the program that will run is computed at run time (a
 * command substitution or a variable in the program position, `eval` of anything but a
 * literal, a script fed to a shell through process substitution), the command counts as
 * dangerous, because what it does cannot be judged from its text.
 */
import type { CommandAnalysis, Invocation } from "./command-analysis.js";
import { isShell } from "./command-analysis.js";

export interface OpaqueFinding {
  key: string;
  description: string;
}

const SUBSTITUTION_TERMINATORS = new Set(["$(", "`", "<("]);
const SUBSTITUTION_ENDS = new Set([")", "`"]);
const INTERPRETERS = /^(?:python[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|bun|deno|php[\d.]*|lua[\d.]*)$/;
const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);
const DESTRUCTIVE_PROGRAMS = new Set(["truncate", "shred", "srm", "wipe"]);
const NO_OP_PROGRAMS = new Set(["", ":", "true"]);

/** A program name that only exists once the shell has expanded something. */
function computedProgram(inv: Invocation, previous: Invocation | undefined): boolean {
  if (/[$`]/.test(inv.program.raw)) return true;
  // `$(echo rm) -rf x` parses as `echo rm`, then `-rf x`: the substitution's output is the program.
  return previous !== undefined && SUBSTITUTION_ENDS.has(previous.terminator) && inv.name.startsWith("-");
}

function evalsComputedText(inv: Invocation): boolean {
  if (inv.name !== "eval") return false;
  return SUBSTITUTION_TERMINATORS.has(inv.terminator) || inv.args.some((word) => /[$`]/.test(word.raw));
}

/** `bash <(...)`, `source <(...)`, `python3 <(...)`: a script that exists only at run time. */
function runsProcessSubstitution(inv: Invocation): boolean {
  const runsScripts = isShell(inv.name) || INTERPRETERS.test(inv.name) || inv.name === "source" || inv.name === ".";
  return runsScripts && inv.terminator === "<(";
}

function awkRunsCommands(inv: Invocation): boolean {
  if (!AWKS.has(inv.name)) return false;
  return inv.args.some((word) => /\bsystem\s*\(|\|\s*getline|\|\s*"|print[^;}]*>\s*"/.test(word.value));
}

/** `: > file`, `> file`, `true > file`: empties a file without naming any program that would. */
function truncatesFile(inv: Invocation): boolean {
  return NO_OP_PROGRAMS.has(inv.name) && inv.args.length === 0 && inv.redirects.some((r) => /^\d*>\|?$/.test(r.op));
}

function discardsGitWork(inv: Invocation): boolean {
  if (inv.name !== "git") return false;
  const words = inv.args.map((word) => word.value);
  const sub = words.find((word) => !word.startsWith("-"));
  if (sub === "restore") return !words.includes("--staged") || words.includes("--worktree");
  if (sub !== "checkout") return false;
  const rest = words.slice(words.indexOf(sub) + 1);
  // `git checkout -- paths`, `git checkout .`, `git checkout -f`: working-tree changes are lost.
  return (
    rest.includes("--") || rest.includes(".") || rest.some((word) => /^-[a-zA-Z]*f/.test(word) || word === "--force")
  );
}

function movesIntoTheVoid(inv: Invocation): boolean {
  return (inv.name === "mv" || inv.name === "cp") && inv.args.at(-1)?.value === "/dev/null";
}

export function opaqueFinding(analysis: CommandAnalysis): OpaqueFinding | null {
  const invocations = analysis.invocations;
  for (const [i, inv] of invocations.entries()) {
    if (computedProgram(inv, invocations[i - 1])) {
      return {
        key: "computed_program",
        description:
          "the program to run is computed when the command runs (a substitution or variable in its place); write the command out literally",
      };
    }
    if (evalsComputedText(inv)) {
      return {
        key: "eval_computed",
        description: "eval of text built at run time; run the commands themselves instead",
      };
    }
    if (runsProcessSubstitution(inv)) {
      return {
        key: "process_substitution_script",
        description: "a shell or interpreter running a script produced by process substitution",
      };
    }
    if (awkRunsCommands(inv)) {
      return { key: "awk_runs_commands", description: "an awk program that runs commands or writes files" };
    }
    if (DESTRUCTIVE_PROGRAMS.has(inv.name)) {
      return { key: "destroy_file_contents", description: `${inv.name} destroys file contents` };
    }
    if (truncatesFile(inv)) {
      return { key: "truncate_file", description: "a redirection that empties a file" };
    }
    if (discardsGitWork(inv)) {
      return { key: "git_discard_changes", description: "git checkout/restore that discards uncommitted work" };
    }
    if (movesIntoTheVoid(inv)) {
      return { key: "move_to_dev_null", description: "moving a file onto /dev/null" };
    }
  }
  return null;
}
