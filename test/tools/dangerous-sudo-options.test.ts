/**
 * Reading the option region of a sudo command line: which words are options, which are their
 * values, and where the program starts.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { analyzeCommand } from "../../src/tools/approval/command-analysis.js";
import { clusterLetters, readSudoOptions } from "../../src/tools/approval/sudo-options.js";
import { parseCommandLine } from "../../src/util/shell-words.js";

function region(command: string) {
  const words = parseCommandLine(command)[0]!.words;
  const { options, end } = readSudoOptions(words, 1);
  return { options, program: words[end]?.value ?? null };
}

describe("readSudoOptions", () => {
  const rows: Array<[string, string[], string | null]> = [
    ["sudo -nu root -S id", ["-nu", "-S"], "id"],
    ["sudo --us root -S id", ["--us", "-S"], "id"],
    ["sudo --user=root -S id", ["--user=root", "-S"], "id"],
    ["sudo FOO=bar -S id", ["-S"], "id"],
    ["sudo -u -S id", ["-u", "-S"], "id"],
    ["sudo -uroot ls", ["-uroot"], "ls"],
    ["sudo -p 'pw: ' -S id", ["-p", "-S"], "id"],
    ["sudo -- -S id", [], "-S"],
    ["sudo -s", ["-s"], null],
    ["sudo -i ls -la", ["-i"], "ls"],
    ["sudo --preserve-env=PATH ls", ["--preserve-env=PATH"], "ls"],
    ["sudo --u root ls", ["--u"], "ls"],
    ["sudo --close-from 5 ls", ["--close-from"], "ls"],
    ["sudo -n - ls", ["-n"], "-"],
  ];
  for (const [command, options, program] of rows) {
    test(command, () => {
      assert.deepEqual(region(command), { options, program });
    });
  }
});

describe("clusterLetters", () => {
  const rows: Array<[string, string]> = [
    ["-nS", "nS"],
    ["-nuroot", "nu"],
    ["-p'pw: '", "p"],
    ["-psa", "p"],
    ["-las", "las"],
    ["--stdin", ""],
    ["root", ""],
  ];
  for (const [option, letters] of rows) {
    test(option, () => assert.equal(clusterLetters(option), letters));
  }
});

test("sudo without a program still carries its options", () => {
  const [inv] = analyzeCommand("sudo -n -s").invocations;
  assert.deepEqual([inv?.name, inv?.sudoOptions, inv?.wrappers], ["", ["-n", "-s"], ["sudo"]]);
});
