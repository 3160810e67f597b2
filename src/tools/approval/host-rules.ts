/**
 * Rules about the machine around the project: cloud instance-metadata endpoints, package
 * managers removing software, container CLIs pointed at another daemon or stopping containers,
 * read tools told to run a helper program, and find words the shell may expand into -delete.
 */
import type { Invocation } from "./command-analysis.js";
import { forProgram, isLongPrefixOf, type Rule, textMatches, values } from "./rule-helpers.js";

/**
 * The index of `words` where a subcommand may stand after global options, each option taking
 * at most one following value that does not start with "-": the first word that neither is an
 * option nor directly follows one. Returns the indexes of every such candidate position.
 */
function subcommandPositions(words: string[]): number[] {
  const positions: number[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith("-")) continue;
    positions.push(i);
    const previous = words[i - 1];
    // A word after an option may be its value; otherwise the option region has ended.
    if (previous === undefined || !previous.startsWith("-")) break;
  }
  return positions;
}

const UNINSTALL_VERBS: Record<string, RegExp> = {
  npm: /^(?:uninstall|unlink|remove|rm|r|un)$/,
  pnpm: /^(?:uninstall|remove|rm|un)$/,
  yarn: /^(?:uninstall|remove)$/,
  pip: /^uninstall$/,
  pip3: /^uninstall$/,
  brew: /^(?:uninstall|remove|rm)$/,
  apt: /^(?:remove|purge|autoremove)$/,
  "apt-get": /^(?:remove|purge|autoremove)$/,
};

function uninstalls(inv: Invocation): boolean {
  const verbs = UNINSTALL_VERBS[inv.name];
  if (!verbs) return false;
  const words = values(inv.args).map((v) => v.toLowerCase());
  return subcommandPositions(words).some((at) => {
    if (inv.name === "yarn" && words[at] === "global") return verbs.test(words[at + 1] ?? "");
    return verbs.test(words[at]!);
  });
}

const DOCKER_REDIRECT = /^(?:-H|--host|-c|--context)(?:=.+)?$/;
const PODMAN_REDIRECT = /^(?:--url|--connection|--identity|-r|--remote)(?:=.+)?$/;

/** Global options of a docker/podman command line, and the words from each place its subcommand may start. */
function containerCommand(words: string[]): { options: string[]; subs: string[][] } {
  const positions = subcommandPositions(words);
  const last = positions[positions.length - 1] ?? words.length;
  const options = words.slice(0, last).filter((w) => w.startsWith("-"));
  return { options, subs: positions.map((at) => words.slice(at).map((w) => w.toLowerCase())) };
}

function redirectsDaemon(inv: Invocation): boolean {
  const { options, subs } = containerCommand(values(inv.args));
  if (inv.name === "podman") return options.some((o) => PODMAN_REDIRECT.test(o));
  return options.some((o) => DOCKER_REDIRECT.test(o)) || subs.some((sub) => sub[0] === "context" && sub[1] === "use");
}

const COMPOSE_STOPPING = /^(?:restart|stop|kill|down)$/;

function composeStops(words: string[]): boolean {
  return containerCommand(words).subs.some((sub) => COMPOSE_STOPPING.test(sub[0]!));
}

function stopsContainers(inv: Invocation): boolean {
  const words = values(inv.args);
  if (inv.name === "docker-compose") return composeStops(words);
  return containerCommand(words).subs.some((sub) =>
    sub[0] === "compose" ? composeStops(sub.slice(1)) : /^(?:restart|stop|kill)$/.test(sub[0]!),
  );
}

/** Options with which a read-only tool runs another program on each file or for paging. */
function readToolRunsProgram(inv: Invocation): boolean {
  const all = values(inv.args);
  const end = all.indexOf("--");
  const args = end < 0 ? all : all.slice(0, end);
  switch (inv.name) {
    case "rg":
      return args.some((a) => /^--(?:pre|hostname-bin)(?:=|$)/.test(a));
    case "sort":
      return args.some((a) => isLongPrefixOf(a, "compress-program", 3));
    case "ag":
      return args.some((a) => /^--pager(?:=|$)/.test(a));
    case "man":
      return args.some((a) => /^(?:--pager|--html)(?:=|$)|^-[PH]/.test(a));
    default:
      return false;
  }
}

/** `find . -{delete,print}`, `find . -del*`: an unquoted word the shell expands into a destructive action. */
function findDynamicAction(inv: Invocation): boolean {
  return inv.args.some(
    (w) =>
      !/["'\\]/.test(w.raw) &&
      /^-(?:\{[^}\s]*(?:delete|exec(?:dir)?)[^}\s]*\}|(?:del(?:ete?)?|exec(?:dir)?)[*?[])/.test(w.raw),
  );
}

export const HOST_RULES: Rule[] = [
  textMatches(
    "cloud_metadata_access",
    "cloud metadata endpoint access (instance credentials)",
    ["169.254.169.254", "100.100.100.200", "metadata.google.internal", "fd00:ec2::254"],
    /(?<![\d.])(?:169\.254\.169\.254|100\.100\.100\.200)(?![\d.])|(?<![\w.-])metadata\.google\.internal(?![\w.-])|fd00:ec2::254/,
  ),
  forProgram("package_uninstall", "package manager uninstall", Object.keys(UNINSTALL_VERBS), uninstalls),
  forProgram(
    "container_daemon_redirect",
    "docker/podman pointed at another (possibly remote) daemon",
    ["docker", "podman"],
    redirectsDaemon,
  ),
  textMatches(
    "container_daemon_redirect",
    "docker/podman pointed at another (possibly remote) daemon",
    ["docker_", "container_"],
    /\b(?:docker_host|docker_context|container_host|container_connection)=\S+/,
  ),
  forProgram(
    "container_lifecycle",
    "stop, restart or tear down containers (docker stop/kill/restart, compose down)",
    ["docker", "docker-compose"],
    stopsContainers,
  ),
  forProgram(
    "read_tool_runs_program",
    "read tool told to run another program (rg --pre, sort --compress-program, --pager)",
    ["rg", "sort", "ag", "man"],
    readToolRunsProgram,
  ),
  forProgram(
    "find_dynamic_action",
    "find word the shell may expand into -delete or -exec",
    ["find"],
    findDynamicAction,
  ),
];
