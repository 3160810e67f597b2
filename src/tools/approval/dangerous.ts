/**
 * Detection of shell commands that need a person's approval before the agent runs them.
 *
 * Each rule has a stable key (what "always allow" remembers) and a short description shown to
 * the user. Rules look at the parsed programs of the command (after peeling off sudo, env,
 * xargs... and looking inside `bash -c` strings) and, for shapes that cross commands, at the
 * normalised text. The first rule that matches wins.
 */
import type { Word } from "../../util/shell-words.js";
import {
  analyzeCommand,
  type CommandAnalysis,
  type Invocation,
  isForkBomb,
  isPowerShell,
  isShell,
  operands,
  pipesInto,
  shellCommandStringIndex,
} from "./command-analysis.js";
import { destructiveFinding } from "./destructive.js";
import { gitSubcommand } from "./git-args.js";
import { HOST_RULES } from "./host-rules.js";
import { opaqueFinding } from "./opaque.js";
import { AGENT_RULES, sudoFlagRule } from "./process-rules.js";
import { forAny, forProgram, isLongPrefixOf, type Rule, textMatches, values } from "./rule-helpers.js";
import { sensitiveWrite } from "./sensitive-paths.js";
import { WINDOWS_DELETE_RULES, WINDOWS_RULES } from "./windows-rules.js";

export { detectHardlineCommand, type HardlineResult } from "./hardline.js";

export interface DangerousCommandResult {
  dangerous: boolean;
  key: string | null;
  description: string | null;
}

const INTERPRETER =
  /^(?:python[\d.]*|ipython[\d.]*|pypy[\d.]*|perl[\d.]*|ruby[\d.]*|node|nodejs|bun|deno|php[\d.]*|lua[\d.]*|osascript|rscript)$/;
const DOWNLOADERS = new Set([
  "curl",
  "wget",
  "fetch",
  "http",
  "https",
  "lwp-request",
  "iwr",
  "irm",
  "invoke-webrequest",
  "invoke-restmethod",
]);
const SHELL_SINKS = new Set(["iex", "invoke-expression", "source", "."]);

function runsCode(name: string): boolean {
  return isShell(name) || INTERPRETER.test(name) || isPowerShell(name) || SHELL_SINKS.has(name);
}

function isRecursiveRm(args: Word[]): boolean {
  return values(args).some((v) => {
    const lower = v.toLowerCase();
    return /^-[dfiIrRv]*[rR][dfiIrRv]*$/.test(v) || lower === "--recursive" || /^-rec(?:u(?:r(?:se?)?)?)?$/.test(lower);
  });
}

function destructiveGit(key: string, inv: Invocation): boolean {
  if (inv.name !== "git") return false;
  const parsed = gitSubcommand(inv.args);
  if (!parsed) return false;
  const { sub, rest } = parsed;
  switch (key) {
    case "git_reset_hard":
      return sub === "reset" && rest.some((w) => isLongPrefixOf(w, "hard"));
    case "git_force_push":
      return (
        sub === "push" &&
        rest.some(
          (w) => /^-[a-zA-Z]*f/.test(w) || /^--force/.test(w) || isLongPrefixOf(w, "force", 3) || /^\+[^+]/.test(w),
        )
      );
    case "git_clean_force":
      return sub === "clean" && rest.some((w) => /^-[a-zA-Z]*f/.test(w) || w === "--force");
    case "git_branch_delete":
      return (
        sub === "branch" &&
        (rest.some((w) => /^-[a-zA-Z]*[dD]/.test(w)) ||
          (rest.includes("--delete") && rest.some((w) => w === "--force" || /^-[a-zA-Z]*f/.test(w))))
      );
    default:
      return false;
  }
}

const KILLALL_SIGNAL =
  /^-(?:\d+|s|-signal(?:=.*)?|r|-regexp|(?:sig)?(?:kill|term|hup|int|quit|stop|abrt|alrm|usr1|usr2|cont|tstp|segv|bus|trap))$/i;

function isPowerShellEncoded(inv: Invocation): boolean {
  if (!isPowerShell(inv.name)) return false;
  return values(inv.args).some((v) => {
    if (!/^[-/]/.test(v)) return false;
    const option = v.replace(/^[-/]+/, "").toLowerCase();
    return option === "ec" || (option.length > 0 && "encodedcommand".startsWith(option));
  });
}

/** `eval "$(curl ...)"` and the like. */
function evalsDownload(lower: string): boolean {
  return lower.includes("eval") && /\beval\b[^\n]{0,40}(?:\$\(|`)\s*(?:curl|wget|fetch)\b/.test(lower);
}

function downloadPipedToShell(analysis: CommandAnalysis): boolean {
  return pipesInto(
    analysis.invocations,
    (inv) => DOWNLOADERS.has(inv.name),
    (inv) => runsCode(inv.name),
  );
}

function inlineCode(inv: Invocation): boolean {
  const args = values(inv.args);
  const name = inv.name;
  if (/^(?:i?python|pypy)/.test(name)) return args.some((a) => /^-[a-zA-Z]*c$/.test(a));
  if (/^(?:perl|ruby)/.test(name)) return args.some((a) => /^-[a-zA-Z]*[eE]/.test(a));
  if (["node", "nodejs", "bun"].includes(name)) return args.some((a) => /^(?:-e|-p|--eval|--print)(?:=|$)/.test(a));
  if (name === "deno") return args[0] === "eval";
  if (name.startsWith("php")) return args.includes("-r");
  if (name.startsWith("lua") || name === "osascript" || name === "rscript") return args.includes("-e");
  return false;
}

function chmodThenRun(analysis: CommandAnalysis): boolean {
  const list = analysis.invocations;
  for (let i = 0; i < list.length; i++) {
    const inv = list[i]!;
    if (
      inv.name !== "chmod" ||
      !values(inv.args).some((a) => /^(?:[ugoa]*\+[rwxst]*x|0?[0-7]?[1357][0-7]{0,2})$/.test(a))
    )
      continue;
    const made = new Set(operands(inv.args).map((w) => w.value.split("/").pop()!));
    for (const later of list.slice(i + 1)) {
      const program = later.program.value;
      const script = runsCode(later.name) ? operands(later.args)[0]?.value : program;
      if (script && made.has(script.split("/").pop()!) && (script.includes("/") || runsCode(later.name))) return true;
    }
  }
  return false;
}

/**
 * The one absolute-path rm that needs no approval: removing a single throw-away script the agent
 * wrote under /tmp (`rm -f /tmp/hermes-verify-<name>.py`), spelled literally, as the whole command.
 */
function removesScratchScript(analysis: CommandAnalysis): boolean {
  const [only, ...others] = analysis.invocations;
  if (!only || others.length > 0 || only.name !== "rm" || only.wrappers.length > 0) return false;
  const args = only.args;
  const path = args[args.length - 1];
  return (
    path !== undefined &&
    args.slice(0, -1).every((w) => w.value === "-f") &&
    path.raw === path.value &&
    /^\/tmp\/hermes-(?:verify|ad-hoc)-[A-Za-z0-9_.-]+\.py$/.test(path.value) &&
    !path.value.includes("..")
  );
}

const RULES: Rule[] = [
  (a) => (isForkBomb(a.lower) ? { key: "fork_bomb", description: "fork bomb" } : null),
  forAny("format_filesystem", "format a filesystem", (inv) =>
    /^(?:mkfs(?:\..+)?|mke2fs|mkswap|mkntfs|mkdosfs|newfs(?:_\w+)?|wipefs)$/.test(inv.name),
  ),
  ...AGENT_RULES,
  (a) => {
    for (const inv of a.invocations) {
      const found = sensitiveWrite(inv);
      if (found) return found;
    }
    return null;
  },
  sudoFlagRule,
  ...WINDOWS_DELETE_RULES,
  forProgram("powershell_encoded", "PowerShell encoded command execution", ["powershell", "pwsh"], isPowerShellEncoded),
  (a) =>
    downloadPipedToShell(a) || evalsDownload(a.lower)
      ? { key: "download_pipe_shell", description: "run downloaded content in a shell or interpreter" }
      : null,
  textMatches(
    "download_process_substitution",
    "run a downloaded script via process substitution",
    ["curl", "wget", "fetch"],
    /(?:^|[\s;&|(`])(?:bash|sh|zsh|ksh|dash|fish|source|\.|i?python[\d.]*|perl|ruby|node)\s+(?:-\S+\s+)*<\s*(?:<\s*)?\(\s*(?:sudo\s+)?(?:curl|wget|fetch)\b/,
  ),
  forProgram("find_exec_rm", "find -exec rm", ["find"], (inv) => {
    const args = values(inv.args);
    return args.some(
      (a, i) =>
        /^-(?:exec|execdir|ok|okdir)$/.test(a) &&
        /^(?:rm|shred|unlink|rmdir)$/.test((args[i + 1] ?? "").split("/").pop()!),
    );
  }),
  forProgram("find_delete", "find -delete", ["find"], (inv) => values(inv.args).includes("-delete")),
  forProgram("xargs_rm", "xargs with rm", ["rm", "shred", "unlink"], (inv) => inv.wrappers.includes("xargs")),
  forProgram("recursive_delete", "recursive delete", ["rm"], (inv) => isRecursiveRm(inv.args)),
  forProgram(
    "windows_recursive_delete",
    "recursive delete (del/rmdir /s or Remove-Item -Recurse)",
    ["remove-item", "ri", "rmdir", "rd", "del", "erase"],
    (inv) => {
      const args = values(inv.args).map((v) => v.toLowerCase());
      if (["rmdir", "rd", "del", "erase"].includes(inv.name) && args.includes("/s")) return true;
      return isRecursiveRm(inv.args);
    },
  ),
  (a) =>
    a.invocations.some((inv) => inv.name === "rm" && operands(inv.args).some((w) => w.value.startsWith("/"))) &&
    !removesScratchScript(a)
      ? { key: "delete_system_path", description: "delete by absolute path (outside the working tree)" }
      : null,
  textMatches("sql_drop", "SQL DROP", ["drop"], /\bdrop\s+(?:table|database|schema|view|index|user|role)\b/),
  textMatches(
    "sql_delete_no_where",
    "SQL DELETE without WHERE",
    ["delete"],
    /\bdelete\s+from\s+[\w."`[\]]+(?![^;]*\bwhere\b)/,
  ),
  textMatches("sql_truncate", "SQL TRUNCATE", ["truncate"], /\btruncate\s+table\b/),
  forProgram("git_reset_hard", "git reset --hard (discards uncommitted changes)", ["git"], (inv) =>
    destructiveGit("git_reset_hard", inv),
  ),
  forProgram("git_force_push", "git push --force (rewrites remote history)", ["git"], (inv) =>
    destructiveGit("git_force_push", inv),
  ),
  forProgram("git_clean_force", "git clean -f (deletes untracked files)", ["git"], (inv) =>
    destructiveGit("git_clean_force", inv),
  ),
  forProgram("git_branch_delete", "git branch -d/-D (deletes a branch)", ["git"], (inv) =>
    destructiveGit("git_branch_delete", inv),
  ),
  forProgram("killall_signal", "killall with a kill signal or name pattern", ["killall"], (inv) =>
    values(inv.args).some((a) => KILLALL_SIGNAL.test(a)),
  ),
  forProgram("pkill_force", "force-kill processes by name", ["pkill"], (inv) =>
    values(inv.args).some((a) => /^-(?:9|kill|sigkill|s|-signal.*)$/i.test(a)),
  ),
  forProgram("kill_all_processes", "kill every process", ["kill"], (inv) => values(inv.args).includes("-1")),
  (a) => (chmodThenRun(a) ? { key: "chmod_exec", description: "chmod +x followed by immediate execution" } : null),
  forProgram("world_writable", "world-writable permissions", ["chmod"], (inv) => {
    return values(inv.args).some(
      (v) => /^0?[0-7]?[0-7][0-7][2367]$/.test(v) || /^[ugo]*[ao][ugo]*[+=][rwxXst]*w/.test(v),
    );
  }),
  forProgram("chown_root_recursive", "recursive chown to root", ["chown"], (inv) => {
    const args = values(inv.args);
    return args.some((v) => /^-[a-zA-Z]*R/.test(v) || v === "--recursive") && args.some((v) => /^root(?::|$)/.test(v));
  }),
  forProgram("service_stop_restart", "stop/restart/disable a system service", ["systemctl", "service"], (inv) => {
    const ops = values(operands(inv.args)).map((v) => v.toLowerCase());
    const stopping = /^(?:stop|restart|kill|disable|mask|try-restart|reload-or-restart|isolate)$/;
    if (inv.name === "systemctl") return stopping.test(ops[0] ?? "");
    return inv.name === "service" && stopping.test(ops[1] ?? "");
  }),
  forProgram(
    "system_power",
    "shut down or reboot the machine",
    ["shutdown", "reboot", "halt", "poweroff", "init", "telinit"],
    (inv) => (inv.name !== "init" && inv.name !== "telinit") || /^[06]$/.test(inv.args[0]?.value ?? ""),
  ),
  forAny("reverse_shell", "reverse shell or raw network redirection", (inv) => {
    if (/^(?:nc|ncat|netcat)$/.test(inv.name) && values(inv.args).some((v) => /^-[a-zA-Z]*[ec]$/.test(v))) return true;
    return inv.redirects.some((r) => /^\/dev\/(?:tcp|udp)\//.test(r.target.value));
  }),
  forProgram("disk_copy", "raw disk copy (dd)", ["dd"], (inv) => values(inv.args).some((a) => /^(?:if|of)=/.test(a))),
  forAny("interpreter_heredoc", "run a script fed through a heredoc", (inv) => {
    return inv.redirects.some((r) => r.op.startsWith("<<")) && runsCode(inv.name);
  }),
  (a) =>
    pipesInto(
      a.invocations,
      () => true,
      (inv) => runsCode(inv.name) && values(operands(inv.args)).every((v) => v === "-"),
    )
      ? { key: "pipe_into_interpreter", description: "pipe text into a shell or interpreter as code" }
      : null,
  forAny("interpreter_inline_code", "run inline code via -c/-e", inlineCode),
  forAny("shell_command_string", "shell command via -c/-lc flag", (inv) => {
    return isShell(inv.name) && shellCommandStringIndex(inv.args) !== null;
  }),
  ...HOST_RULES,
  ...WINDOWS_RULES,
  opaqueFinding,
  destructiveFinding,
  forProgram("alias_dangerous", "an alias that stands for a dangerous command", ["alias"], (inv) =>
    values(inv.args).some((v) => {
      const body = v.slice(v.indexOf("=") + 1);
      return v.includes("=") && body.trim() !== "" && detectDangerousCommand(body).dangerous;
    }),
  ),
];

/** Whether `command` needs approval, and under which key and description. */
export function detectDangerousCommand(command: string): DangerousCommandResult {
  if (typeof command !== "string" || command.trim() === "") return { dangerous: false, key: null, description: null };
  const analysis = analyzeCommand(command);
  for (const rule of RULES) {
    const found = rule(analysis);
    if (found) return { dangerous: true, key: found.key, description: found.description };
  }
  return { dangerous: false, key: null, description: null };
}
