/**
 * Commands the analyser cannot see through, and destructive programs the older rules did not
 * know. Approvals fail closed: when the program that will run is computed at run time (a
 * command substitution or a variable in the program position, `eval` of anything but a
 * literal, a script fed to a shell through process substitution), the command counts as
 * dangerous, because what it does cannot be judged from its text.
 */
import type { CommandAnalysis, Invocation } from "./command-analysis.js";
import { isShell } from "./command-analysis.js";
import { runsComputedProgram } from "./computed-program.js";
import { changesDeviceFile, directoryAfterCd, isOutputStream } from "./device-files.js";
import { gitSubcommand } from "./git-args.js";

export interface OpaqueFinding {
  key: string;
  description: string;
}

const SUBSTITUTION_TERMINATORS = new Set(["$(", "`", "<("]);
const INTERPRETERS =
  /^(?:python[\d.]*|ipython[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|bun|deno|php[\d.]*|lua[\d.]*)$/;
const AWKS = new Set(["awk", "gawk", "mawk", "nawk", "busybox-awk"]);
const DESTRUCTIVE_PROGRAMS = new Set(["truncate", "shred", "srm", "wipe"]);
const NO_OP_PROGRAMS = new Set(["", ":", "true"]);

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

/** `: > file`, `> file`, `true x &> file`: empties a file without naming any program that would. */
function truncatesFile(inv: Invocation): boolean {
  // `:` and `true` ignore their arguments, so arguments change nothing.
  if (!NO_OP_PROGRAMS.has(inv.name)) return false;
  return inv.redirects.some((r) => /^(?:\d*|&)>\|?$/.test(r.op) && !isOutputStream(r.target.value));
}

function discardsGitWork(inv: Invocation): boolean {
  if (inv.name !== "git") return false;
  const parsed = gitSubcommand(inv.args);
  if (parsed === null) return false;
  const { sub, rest } = parsed;
  if (sub === "restore") return !rest.includes("--staged") || rest.includes("--worktree");
  if (sub !== "checkout") return false;
  // `git checkout -- paths`, `git checkout .`, `git checkout -f`: working-tree changes are lost.
  return (
    rest.includes("--") || rest.includes(".") || rest.some((word) => /^-[a-zA-Z]*f/.test(word) || word === "--force")
  );
}

function movesIntoTheVoid(inv: Invocation): boolean {
  return (inv.name === "mv" || inv.name === "cp") && inv.args.at(-1)?.value === "/dev/null";
}

export function opaqueFinding(analysis: CommandAnalysis): OpaqueFinding | null {
  // eval's text is a command line of its own too: the eval is the clearer thing to name.
  if (analysis.invocations.some(evalsComputedText)) {
    return {
      key: "eval_computed",
      description: "eval of text built at run time; run the commands themselves instead",
    };
  }
  if (analysis.sources.some((source) => runsComputedProgram(source))) {
    return {
      key: "computed_program",
      description:
        "the program to run is computed when the command runs (a substitution or variable in its place); write the command out literally",
    };
  }
  // Where an earlier `cd` of this command line moved to: `cd /dev && mv null x` moves /dev/null.
  let cwd: string | null = null;
  for (const inv of analysis.invocations) {
    if (inv.name === "cd" || inv.name === "pushd") {
      cwd = directoryAfterCd(inv, cwd);
      continue;
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
    if (changesDeviceFile(inv, cwd)) {
      return { key: "device_file_change", description: "moving, removing or overwriting a device file under /dev" };
    }
  }
  return null;
}
