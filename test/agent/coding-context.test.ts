import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { codingMode, isCodeWorkspace, isCodingSession, projectFacts } from "../../src/agent/coding-context.js";
import {
  codingPromptLayer,
  editFormatLine,
  parseStatus,
  primeWorkspaceSnapshot,
  workspaceSnapshot,
} from "../../src/agent/coding-prompt.js";
import { tempDir } from "../state/temp-dir.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-C", cwd, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });

function files(dir: string, entries: Record<string, string>): string {
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test("a manifest makes a project root, also from a subdirectory; one in the home directory does not", () => {
  const project = files(tempDir("hermes-coding-"), { "package.json": "{}", "src/deep/a.txt": "" });
  const home = tempDir("hermes-coding-home-");
  assert.equal(isCodeWorkspace(join(project, "src", "deep"), home), true);
  const homeWithMakefile = files(tempDir("hermes-coding-home-"), { Makefile: "all:\n", "notes/x.txt": "" });
  assert.equal(isCodeWorkspace(join(homeWithMakefile, "notes"), homeWithMakefile), false);
});

test("a git repository counts only when it holds source files, and never when it is the home directory", () => {
  const home = tempDir("hermes-coding-home-");
  const notes = files(tempDir("hermes-coding-"), { "journal.md": "# day one\n" });
  git(notes, "init", "-q");
  assert.equal(isCodeWorkspace(notes, home), false);
  files(notes, { "tools/convert.py": "print(1)\n" });
  assert.equal(isCodeWorkspace(notes, home), true, "a script one level down is enough");
  const dotfiles = files(tempDir("hermes-coding-home-"), { "bin/tool.sh": "echo\n" });
  git(dotfiles, "init", "-q");
  assert.equal(isCodeWorkspace(join(dotfiles, "bin"), dotfiles), false);
});

test("the posture: off and on win; auto needs an interactive surface in a workspace", () => {
  const project = files(tempDir("hermes-coding-"), { "go.mod": "module x\n" });
  const plain = tempDir("hermes-coding-plain-");
  const home = tempDir("hermes-coding-home-");
  assert.equal(isCodingSession({ mode: "auto", platform: "cli", cwd: project, home }), true);
  assert.equal(isCodingSession({ mode: "auto", platform: "acp", cwd: project, home }), true);
  assert.equal(isCodingSession({ mode: "auto", platform: "telegram", cwd: project, home }), false);
  assert.equal(isCodingSession({ mode: "auto", platform: "cron", cwd: project, home }), false);
  assert.equal(isCodingSession({ mode: "auto", platform: "cli", cwd: plain, home }), false);
  assert.equal(isCodingSession({ mode: "off", platform: "cli", cwd: project, home }), false);
  assert.equal(isCodingSession({ mode: "on", platform: "telegram", cwd: plain, home }), true);
  assert.deepEqual(["lean", "ALWAYS", "never", "sometimes"].map(codingMode), ["focus", "on", "off", "auto"]);
});

test("project facts: manifests, the package manager by lockfile, and the commands that check the code", () => {
  const root = files(tempDir("hermes-coding-"), {
    "package.json": JSON.stringify({ scripts: { test: "node --test", lint: "biome check", start: "node ." } }),
    "pnpm-lock.yaml": "",
    "pyproject.toml": "[tool.pytest.ini_options]\n",
    Makefile: "build:\n\tcc x.c\ninstall:\n\tcp x /usr/bin\n",
    "AGENTS.md": "rules\n",
  });
  const facts = projectFacts(root, tempDir("hermes-coding-home-"));
  assert.ok(facts);
  assert.equal(facts.root, root);
  assert.equal(facts.git, false);
  assert.deepEqual(facts.manifests, ["package.json", "pyproject.toml", "Makefile"]);
  assert.deepEqual(facts.packageManagers, ["pnpm"]);
  assert.deepEqual(facts.verifyCommands, ["pnpm run test", "pnpm run lint", "pytest", "make build"]);
  assert.deepEqual(facts.contextFiles, ["AGENTS.md"]);
  assert.equal(projectFacts(tempDir("hermes-coding-plain-"), tempDir("hermes-coding-home-")), undefined);
});

test("the workspace snapshot reads branch, status, recent commits and a linked work tree from git", async () => {
  const root = files(tempDir("hermes-coding-"), { "main.go": "package main\n", "go.mod": "module x\n" });
  git(root, "init", "-q", "-b", "trunk");
  git(root, "add", ".");
  git(root, "commit", "-q", "-m", "first commit");
  writeFileSync(join(root, "main.go"), "package main // changed\n");
  writeFileSync(join(root, "new.go"), "package main\n");
  const snapshot = await workspaceSnapshot(root, tempDir("hermes-coding-home-"));
  assert.match(snapshot, /^Workspace at session start:\n- Root: /);
  assert.match(snapshot, /\n- Branch: trunk\n/);
  assert.match(snapshot, /\n- Status: 1 modified, 1 untracked\n/);
  assert.match(snapshot, /\n- Recent commits:\n {4}[0-9a-f]{7,} first commit\n/);
  assert.match(snapshot, /\n- Checks: go test \.\/\.\.\.$/);
  assert.doesNotMatch(snapshot, /linked work tree/);
  const linked = join(tempDir("hermes-coding-wt-"), "wt");
  git(root, "worktree", "add", "-q", linked);
  assert.match(await workspaceSnapshot(linked), /- A linked work tree: /);
});

test("git status lines: ahead/behind of the upstream, staged, modified, conflicted, untracked", () => {
  const parsed = parseStatus(
    [
      "# branch.oid abc",
      "# branch.head main",
      "# branch.upstream origin/main",
      "# branch.ab +2 -1",
      "1 M. N... 100644 100644 100644 a b staged.ts",
      "1 .M N... 100644 100644 100644 a b modified.ts",
      "1 MM N... 100644 100644 100644 a b both.ts",
      "u UU N... 100644 100644 100644 100644 a b c conflict.ts",
      "? new.ts",
    ].join("\n"),
  );
  assert.deepEqual(parsed, {
    head: "main",
    upstream: "origin/main",
    ahead: 2,
    behind: 1,
    counts: { staged: 2, modified: 2, untracked: 1, conflicted: 1 },
  });
});

test("the coding layer: the brief, the edit format for the model's family, the user's standing instructions", async () => {
  const root = files(tempDir("hermes-coding-"), { "Cargo.toml": "[package]\n" });
  const layer = await codingPromptLayer({
    cwd: root,
    model: "anthropic/claude-sonnet-4.5",
    instructions: "Never run the full suite before I approve the design.",
  });
  assert.match(layer, /^# Working in this codebase\n/);
  assert.match(layer, /mode 'replace'/);
  assert.match(
    layer,
    /\n\nStanding instructions from the user:\nNever run the full suite before I approve the design\.\n\n/,
  );
  assert.match(layer, /- Checks: cargo test$/);
  assert.match(editFormatLine("openai/gpt-5.1-codex") ?? "", /mode 'patch' \(a V4A diff\)/);
  assert.equal(editFormatLine("some-local-model"), undefined);
});

test("a snapshot started early serves the first session only; later ones take a fresh one", async () => {
  const root = files(tempDir("hermes-coding-"), { "go.mod": "module x\n", "a.go": "package a\n" });
  git(root, "init", "-q");
  assert.match(await primeWorkspaceSnapshot(root), /- Status: 2 untracked/);
  writeFileSync(join(root, "b.go"), "package a\n");
  assert.match(await workspaceSnapshot(root), /- Status: 2 untracked/, "the one taken at start-up");
  assert.match(await workspaceSnapshot(root), /- Status: 3 untracked/, "then a fresh one");
});
