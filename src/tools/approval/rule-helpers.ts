/**
 * Building blocks for the approval rules: a rule looks at an analysed command and returns the
 * stable key and the description of what it found, or null.
 */
import type { Word } from "../../util/shell-words.js";
import type { CommandAnalysis, Invocation } from "./command-analysis.js";

export interface Finding {
  key: string;
  description: string;
}

export type Rule = (analysis: CommandAnalysis) => Finding | null;

export const values = (words: Word[]) => words.map((w) => w.value);

/** A rule with a fixed key that holds when some invocation passes `test`. */
export function forAny(
  key: string,
  description: string,
  test: (inv: Invocation, analysis: CommandAnalysis) => boolean,
): Rule {
  return (analysis) => (analysis.invocations.some((inv) => test(inv, analysis)) ? { key, description } : null);
}

/**
 * A rule with a fixed key that holds when an invocation of one of `programs` passes `test`
 * (or, without `test`, when one of them runs at all). Commands that run none of the programs
 * never call `test`, so ordinary commands skip compiling it and its patterns.
 */
export function forProgram(
  key: string,
  description: string,
  programs: readonly string[],
  test: (inv: Invocation) => boolean = () => true,
): Rule {
  return (analysis) =>
    analysis.invocations.some((inv) => programs.includes(inv.name) && test(inv)) ? { key, description } : null;
}

/**
 * A rule with a fixed key that holds when the normalised or rebuilt text matches. `keywords`
 * are literal pieces of the pattern of which any match holds one: a text without any of them
 * is not tested, which keeps the pattern from being compiled for ordinary commands.
 */
export function textMatches(key: string, description: string, keywords: readonly string[], pattern: RegExp): Rule {
  const matches = (text: string) => keywords.some((word) => text.includes(word)) && pattern.test(text);
  return (analysis) => (matches(analysis.lower) || matches(analysis.flat) ? { key, description } : null);
}

/** Whether `word` is `--` followed by a prefix (at least `minimum` letters) of the long option `option`. */
export const isLongPrefixOf = (word: string, option: string, minimum = 1) =>
  word.startsWith("--") && word.length - 2 >= minimum && option.startsWith(word.slice(2).split("=")[0]!);
