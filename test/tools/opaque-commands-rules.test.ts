/**
 * The opaque-command rules one clause at a time: every program, interpreter, awk and redirection
 * they name, and the near misses beside them that must stay ordinary commands.
 * Everything here is only classified, never run.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { analyzeCommand } from "../../src/tools/approval/command-analysis.js";
import { detectDangerousCommand } from "../../src/tools/approval/dangerous.js";
import { opaqueFinding } from "../../src/tools/approval/opaque.js";

const opaqueKey = (command: string) => opaqueFinding(analyzeCommand(command))?.key ?? null;

/** Commands and the opaque rule that must catch each. */
const OPAQUE: Array<[string, string]> = [
  ["$(which rm) -f ./a", "computed_program"],
  ["`command -v rm` -rf ./build", "computed_program"],
  ["eval echo $X", "eval_computed"],
  ["eval echo `id`", "eval_computed"],
  ['eval "$(ssh-agent -s)"', "eval_computed"],
  ["bash <(cat x.sh)", "process_substitution_script"],
  ["zsh <(echo x)", "process_substitution_script"],
  ["python <(echo x)", "process_substitution_script"],
  ["python3.11 <(echo x)", "process_substitution_script"],
  ["pypy <(echo x)", "process_substitution_script"],
  ["pypy3 <(echo x)", "process_substitution_script"],
  ["perl5.36 <(echo x)", "process_substitution_script"],
  ["ruby3.2 <(echo x)", "process_substitution_script"],
  ["php8.1 <(echo x)", "process_substitution_script"],
  ["lua5.4 <(echo x)", "process_substitution_script"],
  ["node <(echo x)", "process_substitution_script"],
  ["nodejs <(echo x)", "process_substitution_script"],
  ["bun <(echo x)", "process_substitution_script"],
  ["deno <(echo x)", "process_substitution_script"],
  [". <(echo x)", "process_substitution_script"],
  ["mawk 'BEGIN{system(\"ls\")}'", "awk_runs_commands"],
  ["nawk 'BEGIN{system(\"ls\")}'", "awk_runs_commands"],
  ["busybox-awk 'BEGIN{system(\"ls\")}'", "awk_runs_commands"],
  ["awk -v x=1 'BEGIN{system(\"ls\")}'", "awk_runs_commands"],
  ["awk 'BEGIN { system (\"ls\") }'", "awk_runs_commands"],
  ["awk 'BEGIN{\"date\"|getline d; print d}'", "awk_runs_commands"],
  ["awk 'BEGIN { \"date\" | getline d }'", "awk_runs_commands"],
  ['awk \'BEGIN{print "ls" |"sh"}\'', "awk_runs_commands"],
  ["awk '{print $1 > \"out.txt\"}' data", "awk_runs_commands"],
  ["awk '{print > \"out.txt\"}' data", "awk_runs_commands"],
  ["awk '{print $0 >\"copy.txt\"}' data", "awk_runs_commands"],
  ["srm ./keep.txt", "destroy_file_contents"],
  ["wipe ./keep.txt", "destroy_file_contents"],
  [": >| ./keep.txt", "truncate_file"],
  [": 1> ./keep.txt", "truncate_file"],
  [": 2> ./keep.txt", "truncate_file"],
  ["git restore --worktree src/a.ts", "git_discard_changes"],
  ["git restore --staged --worktree src/a.ts", "git_discard_changes"],
  ["git checkout -- src/app.ts", "git_discard_changes"],
  ["git checkout --force main", "git_discard_changes"],
  ["git checkout -qf main", "git_discard_changes"],
  ["git -p checkout -- .", "git_discard_changes"],
  ["git --no-pager restore .", "git_discard_changes"],
  ["mv -f ./keep.txt /dev/null", "move_to_dev_null"],
  ["mv ./a ./b /dev/null", "move_to_dev_null"],
  ["cp ./keep.txt /dev/null", "move_to_dev_null"],
];

/** Near misses: ordinary commands one clause away from an opaque one. */
const ORDINARY = [
  'eval "ls -la"',
  "eval ls",
  "diff <(ls a) <(ls b)",
  "perltidy <(cat script.pl)",
  "awk -f prog.awk data.txt",
  "awk -F'|' '{print $1}' data",
  "awk '{x = $1 > \"a\"}' data",
  'grep -rn "system(" src',
  "exec -a worker node server.js",
  "true",
  ": >> ./log.txt",
  ": < ./in.txt",
  "false > ./keep.txt",
  "echo > ./keep.txt",
  "git restore --staged src/a.ts",
  "git checkout -b feature",
  "git checkout release-final",
  "git stash",
  "git log -- .",
  "svn checkout https://svn.example/repo .",
  "restic restore latest --target ./out",
  "mv",
  "cp",
  "ln ./keep.txt /dev/null",
  "mv ./keep.txt ./dev/null",
];

test("each opaque spelling is caught by its own rule", () => {
  for (const [command, key] of OPAQUE) {
    assert.equal(opaqueKey(command), key, command);
    assert.equal(detectDangerousCommand(command).dangerous, true, command);
  }
});

test("near misses of the opaque rules are ordinary commands", () => {
  for (const command of ORDINARY) {
    assert.equal(opaqueKey(command), null, command);
    const found = detectDangerousCommand(command);
    assert.equal(found.dangerous, false, `${command} was flagged as ${found.key}`);
  }
});

test("an opaque finding names its rule and says what it saw", () => {
  const findings: Array<[string, string, string]> = [
    ["srm ./keep.txt", "destroy_file_contents", "srm destroys file contents"],
    ["eval echo $X", "eval_computed", "eval of text built at run time; run the commands themselves instead"],
    [
      "bash <(cat x.sh)",
      "process_substitution_script",
      "a shell or interpreter running a script produced by process substitution",
    ],
    ["awk 'BEGIN{system(\"ls\")}'", "awk_runs_commands", "an awk program that runs commands or writes files"],
    [": > ./keep.txt", "truncate_file", "a redirection that empties a file"],
    ["git restore .", "git_discard_changes", "git checkout/restore that discards uncommitted work"],
    ["mv ./keep.txt /dev/null", "move_to_dev_null", "moving a file onto /dev/null"],
  ];
  for (const [command, key, description] of findings) {
    assert.deepEqual(opaqueFinding(analyzeCommand(command)), { key, description }, command);
  }
  assert.match(
    opaqueFinding(analyzeCommand("$(which rm) -f ./a"))?.description ?? "",
    /write the command out literally/,
  );
});
