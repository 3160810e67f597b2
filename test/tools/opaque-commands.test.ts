import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { detectDangerousCommand } from "../../src/tools/approval/dangerous.js";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { registerTerminalTools, type TerminalResult } from "../../src/tools/builtin/terminal.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeCtx } from "./process-helpers.js";

/** Destructive commands whose program, script or effect is hidden from a reading of their text. */
const EVASIONS: Array<[string, string]> = [
  ["$(echo rm) -rf ./decoy", "computed_program"],
  ["`echo rm` -rf ./decoy", "computed_program"],
  ["$(printf 'r%s' m) -r ./decoy", "computed_program"],
  ["X=rm; $X -rf ./decoy", "computed_program"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
  ["P=rm && ${P} -r -f ./decoy", "computed_program"],
  ['eval "$(echo cm0gLXJmIC4vZGVjb3k= | base64 -d)"', "eval_computed"],
  ["eval `cat cmd.txt`", "eval_computed"],
  ['C="rm -rf ./decoy"; eval $C', "eval_computed"],
  ["bash <(echo 'rm -rf ./decoy')", "process_substitution_script"],
  ["sh <(cat script.sh)", "process_substitution_script"],
  ["source <(echo 'rm -rf ./decoy')", "process_substitution_script"],
  ["python3 <(echo 'import shutil; shutil.rmtree(\"decoy\")')", "process_substitution_script"],
  ["awk 'BEGIN{system(\"rm -rf decoy\")}'", "awk_runs_commands"],
  ['gawk \'BEGIN { print "x" | "sh" }\'', "awk_runs_commands"],
  ["truncate -s 0 ./decoy/keep.txt", "destroy_file_contents"],
  ["shred -u ./decoy/keep.txt", "destroy_file_contents"],
  [": > ./decoy/keep.txt", "truncate_file"],
  ["> ./decoy/keep.txt", "truncate_file"],
  ["true > ./decoy/keep.txt", "truncate_file"],
  ["git checkout -- .", "git_discard_changes"],
  ["git checkout .", "git_discard_changes"],
  ["git checkout -f main", "git_discard_changes"],
  ["git restore src/", "git_discard_changes"],
  ["mv ./decoy/keep.txt /dev/null", "move_to_dev_null"],
];

/** What developers run all day: none of it may need an approval. */
const ORDINARY = [
  "echo $(date)",
  "ls $HOME",
  "cat <(sort a.txt)",
  "diff <(ls a) <(ls b)",
  "awk '{print $1}' f.txt",
  "awk -F, '{s+=$2} END {print s}' data.csv",
  "X=1; echo $X",
  "FOO=bar npm test",
  "export PATH=$PATH:/opt/bin",
  "echo hi > out.txt",
  "cat a > b",
  "ls -la > listing.txt",
  'echo "$(git rev-parse HEAD)" > VERSION',
  "wc -l $(git ls-files)",
  "git status",
  "git checkout main",
  "git checkout -b feature",
  "git restore --staged file.ts",
  "git diff HEAD~1",
  "mv old.txt new.txt",
  "cp a.txt b.txt",
  "npm run build 2>&1 | tail -20",
  "for f in *.ts; do echo $f; done",
  "[ -d build ] || mkdir build",
  "sed -n 1,10p file.txt",
  "jq . data.json",
];

test("every evasion is dangerous under its own rule", () => {
  for (const [command, key] of EVASIONS) {
    const found = detectDangerousCommand(command);
    assert.equal(found.dangerous, true, command);
    assert.equal(found.key, key, command);
  }
});

test("ordinary commands with substitutions, variables and redirections stay allowed", () => {
  for (const command of ORDINARY) {
    const found = detectDangerousCommand(command);
    assert.equal(found.dangerous, false, `${command} was flagged as ${found.key}`);
  }
});

test("unattended, every evasion is refused with a message the model can act on", async () => {
  const policy = new ApprovalPolicy();
  for (const [command] of EVASIONS) {
    const verdict = await policy.check(command, makeCtx({ platform: "cron" }));
    assert.equal(verdict.allowed, false, command);
    assert.ok(!verdict.allowed && /Nobody is available to approve/.test(verdict.message), command);
  }
});

const processManager = new ProcessManager({ killGraceMs: 500 });
after(() => processManager.dispose());

test("run for real through the terminal tool unattended, the evasions leave the decoy intact", async () => {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { approvals: new ApprovalPolicy(), processManager, killGraceMs: 500 });
  const terminal = registry.get("terminal")!;
  // Only commands whose damage, should one get through, stays inside the test's directory: moving
  // a file over /dev/null replaces the machine's /dev/null (a mutation run once did exactly that).
  for (const [command] of EVASIONS.filter(([, kind]) => kind !== "move_to_dev_null")) {
    const ctx = makeCtx({ platform: "cron", interactive: false });
    mkdirSync(join(ctx.cwd, "decoy"));
    writeFileSync(join(ctx.cwd, "decoy", "keep.txt"), "precious\n");
    const result = JSON.parse(await terminal.handler({ command }, ctx)) as TerminalResult;
    assert.match(result.error ?? "", /refused/i, command);
    assert.equal(readFileSync(join(ctx.cwd, "decoy", "keep.txt"), "utf8"), "precious\n", command);
    assert.ok(existsSync(join(ctx.cwd, "decoy")), command);
  }
});
