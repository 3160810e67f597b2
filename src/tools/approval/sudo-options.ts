/**
 * Reads the option region of a `sudo` command line: the words between `sudo` and the program it
 * runs. Options may be clustered (`-nS`), take a value glued on (`-uroot`, `-p'pw: '`) or in the
 * next word (`-u root`, `--user root`), be abbreviated (`--us root`), and be mixed with
 * `NAME=value` environment settings. A value never starts with "-": in `sudo -u -S id` the -S is
 * read as an option, which errs towards asking.
 */
import type { Word } from "../../util/shell-words.js";

/** Short options whose value is the rest of the cluster or the next word. */
const SHORT_WITH_VALUE = new Set(["u", "g", "p", "C", "D", "h", "r", "t", "T", "U"]);
/** Long options that take a value; an unambiguous prefix of one takes it too. */
const LONG_WITH_VALUE = [
  "user",
  "group",
  "prompt",
  "close-from",
  "chdir",
  "host",
  "role",
  "type",
  "command-timeout",
  "other-user",
];
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export interface SudoOptions {
  /** Option words as written (clusters kept whole, values left out). */
  options: string[];
  /** Index of the first word after the option region (the program, if any). */
  end: number;
}

function longTakesValue(word: string): boolean {
  if (word.includes("=")) return false;
  const name = word.slice(2);
  if (name === "") return false;
  const matches = LONG_WITH_VALUE.filter((option) => option.startsWith(name));
  return matches.length > 0 && (matches.length === 1 || matches.includes(name));
}

/** Whether a short cluster (`-nu`) ends in an option that wants the next word as its value. */
function clusterTakesNextWord(word: string): boolean {
  const letters = word.slice(1);
  for (let i = 0; i < letters.length; i++) {
    if (SHORT_WITH_VALUE.has(letters[i]!)) return i === letters.length - 1;
  }
  return false;
}

/** Parses the option region starting at `start` (the word after `sudo`). */
export function readSudoOptions(words: readonly Word[], start: number): SudoOptions {
  const options: string[] = [];
  let i = start;
  while (i < words.length) {
    const word = words[i]!.value;
    if (word === "--") return { options, end: i + 1 };
    if (ASSIGNMENT.test(word)) {
      i++;
      continue;
    }
    if (!word.startsWith("-") || word === "-") break;
    options.push(word);
    i++;
    const wantsValue = word.startsWith("--") ? longTakesValue(word) : clusterTakesNextWord(word);
    if (wantsValue && i < words.length && !words[i]!.value.startsWith("-")) i++;
  }
  return { options, end: i };
}

/** The option letters of a short cluster that come before a value-taking letter (`-nuroot` gives "nu"). */
export function clusterLetters(option: string): string {
  if (option.startsWith("--") || !option.startsWith("-")) return "";
  const letters = option.slice(1);
  for (let i = 0; i < letters.length; i++) {
    if (SHORT_WITH_VALUE.has(letters[i]!)) return letters.slice(0, i + 1);
  }
  return letters;
}
