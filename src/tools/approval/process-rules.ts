/**
 * Rules about processes and services: sudo flags that let it run without a terminal, commands
 * that would kill or restart the agent itself (its process, its gateway, its launchd job), and
 * kills aimed at whatever a pgrep/pidof lookup returns.
 */
import type { Word } from "../../util/shell-words.js";
import { type CommandAnalysis, type Invocation, pipesInto } from "./command-analysis.js";
import { type Finding, forAny, isLongPrefixOf, type Rule, values } from "./rule-helpers.js";
import { clusterLetters } from "./sudo-options.js";

const SUDO_SINGLE = "sudo with privilege flag (stdin/askpass/shell/list)";
const SUDO_COMBINED = "sudo with combined-flag privilege escalation";

/**
 * sudo told to read its password from stdin or an askpass helper (-S, -A), to open a shell (-s)
 * or to list privileges (-a, as the original reads it). Letters count in either case.
 */
function sudoFlagFinding(inv: Invocation): Finding | null {
  let readsPassword = false;
  let single = false;
  let found = false;
  for (const option of inv.sudoOptions) {
    if (option.startsWith("--")) {
      if (isLongPrefixOf(option, "stdin", 2) || isLongPrefixOf(option, "askpass", 1)) {
        found = readsPassword = single = true;
      }
      continue;
    }
    const letters = clusterLetters(option);
    if (!/[SAsa]/.test(letters)) continue;
    found = true;
    if (/[SA]/.test(letters)) readsPassword = true;
    if (letters.length === 1) single = true;
  }
  if (!found) return null;
  return {
    key: readsPassword ? "sudo_password_stdin" : "sudo_shell_or_list",
    description: single ? SUDO_SINGLE : SUDO_COMBINED,
  };
}

export const sudoFlagRule: Rule = (analysis) => {
  for (const inv of analysis.invocations) {
    const found = inv.sudoOptions.length > 0 ? sudoFlagFinding(inv) : null;
    if (found) return found;
  }
  return null;
};

/** `hermes`, `gateway` or `cli.py` as a whole word: `hermesd` or `api_gateway2` are other programs. */
const NAMES_AGENT = /\b(?:hermes|gateway)\b|\bcli\.py\b/i;
const mentionsAgent = (words: Word[]) => words.some((w) => NAMES_AGENT.test(w.value));

/** `kill $(pgrep ...)`, `kill -9 \`pidof ...\``: the lookup may well return the agent's own pid. */
function killsLookedUpProcesses(analysis: CommandAnalysis): boolean {
  const list = analysis.invocations;
  return list.some((inv, i) => {
    const next = list[i + 1];
    return (
      inv.name === "kill" &&
      /^(?:\$\(|`)$/.test(inv.terminator) &&
      next !== undefined &&
      (next.name === "pgrep" || next.name === "pidof")
    );
  });
}

/** `pkill hermes`, `kill $(cat hermes.pid)`, `pgrep hermes | xargs kill` and the like. */
function killsAgent(analysis: CommandAnalysis): boolean {
  const list = analysis.invocations;
  return (
    list.some((inv, i) => {
      if (["pkill", "killall", "taskkill"].includes(inv.name)) return mentionsAgent(inv.args);
      if (inv.name !== "kill") return false;
      if (mentionsAgent(inv.args)) return true;
      const next = list[i + 1];
      return /^(?:\$\(|`)$/.test(inv.terminator) && next !== undefined && mentionsAgent([next.program, ...next.args]);
    }) ||
    pipesInto(
      list,
      (inv) => ["pgrep", "pidof"].includes(inv.name) && mentionsAgent(inv.args),
      (inv) => inv.name === "kill" || inv.name === "pkill",
    )
  );
}

const INTERPRETERS = /(?:^|\/)(?:python[\d.]*|pypy[\d.]*|uv|uvx|pipx)$/;
const HERMES_PROGRAM = /(?:^|\/)hermes(?:[_-]cli(?:\.main)?|\.py)?$/;

/**
 * The lower-case words after the hermes program, or null when the invocation does not run it:
 * the program itself, a module run with `-m` (`python -m hermes_cli.main`) or a script path
 * handed to an interpreter (`python hermes.py`).
 */
function hermesArgs(inv: Invocation): string[] | null {
  const words = values([inv.program, ...inv.args]).map((w) => w.toLowerCase());
  const at = words.findIndex(
    (w, i) => HERMES_PROGRAM.test(w) && (i === 0 || words[i - 1] === "-m" || INTERPRETERS.test(words[0]!)),
  );
  return at < 0 ? null : words.slice(at + 1);
}

/** The word after `gateway` in a hermes command line (`hermes -p work gateway restart` gives "restart"). */
function gatewayVerb(inv: Invocation): string | null {
  const rest = hermesArgs(inv);
  if (!rest) return null;
  const at = rest.indexOf("gateway");
  return at < 0 ? null : (rest[at + 1] ?? "");
}

/** A gateway started in the background, detached from the service manager that supervises it. */
function startsDetachedGateway(inv: Invocation, analysis: CommandAnalysis): boolean {
  if (gatewayVerb(inv) !== "run") return false;
  return (
    inv.terminator === "&" ||
    inv.wrappers.some((w) => w === "nohup" || w === "setsid") ||
    analysis.invocations.some((other) => other.name === "disown")
  );
}

const LAUNCHD_STOPPING = /^(?:unload|bootout|stop|kill|remove|disable|kickstart)$/;

/**
 * launchctl stopping or restarting a job, when the command names a Hermes job anywhere (a loop
 * may build the label before the launchctl call). A verb hidden by quote splicing (`boot"out"`)
 * only counts when the gateway itself is named.
 */
function stopsHermesLaunchdJob(analysis: CommandAnalysis): boolean {
  if (!/\bhermes\b/.test(analysis.lower)) return false;
  return analysis.invocations.some((inv) => {
    if (inv.name !== "launchctl") return false;
    const verb = inv.args[0];
    if (!verb || !LAUNCHD_STOPPING.test(verb.value.toLowerCase())) return false;
    return !/["']/.test(verb.raw) || /gateway/.test(analysis.lower);
  });
}

export const AGENT_RULES: Rule[] = [
  (a) =>
    killsLookedUpProcesses(a)
      ? { key: "kill_via_lookup", description: "kill whatever pgrep/pidof returns (may include the agent itself)" }
      : null,
  (a) =>
    killsAgent(a)
      ? { key: "hermes_self_termination", description: "kill the Hermes agent or gateway process (self-termination)" }
      : null,
  forAny("hermes_gateway_control", "stop or restart the Hermes gateway (cuts off the running agent)", (inv) =>
    /^(?:stop|restart|kill|uninstall)$/.test(gatewayVerb(inv) ?? ""),
  ),
  forAny(
    "hermes_gateway_detached",
    "start the gateway outside systemd (use 'systemctl --user restart hermes-gateway' instead)",
    startsDetachedGateway,
  ),
  forAny(
    "hermes_update",
    "hermes update (restarts the gateway and its running agents)",
    (inv) => hermesArgs(inv)?.[0] === "update",
  ),
  (a) =>
    stopsHermesLaunchdJob(a)
      ? { key: "launchd_stop_restart", description: "stop/restart the Hermes launchd service (cuts off the agent)" }
      : null,
];
