/**
 * Where git's own options end and its subcommand begins: `git -C ../repo -c k=v checkout -- .`
 * runs `checkout`, not `../repo`.
 */
import type { Word } from "../../util/shell-words.js";

/** Global options that take their value as the next word (`--git-dir=x` carries its own). */
const TAKES_VALUE = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--super-prefix",
  "--config-env",
  "--attr-source",
]);

export interface GitSubcommand {
  /** The subcommand, lower-case. */
  sub: string;
  /** The words after it. */
  rest: string[];
}

/** The subcommand git will run and its arguments, or null when there is none. */
export function gitSubcommand(args: Word[]): GitSubcommand | null {
  let i = 0;
  while (i < args.length && args[i]!.value.startsWith("-")) {
    if (TAKES_VALUE.has(args[i]!.value)) i++;
    i++;
  }
  const sub = args[i]?.value;
  return sub === undefined ? null : { sub: sub.toLowerCase(), rest: args.slice(i + 1).map((w) => w.value) };
}
