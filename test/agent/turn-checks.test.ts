import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  INTENT_NUDGE,
  intentCheckApplies,
  isIntentAnnouncement,
  isTurnNote,
  MAX_INTENT_NUDGES,
  splitAtTurnNotes,
  TURN_NOTE_PREFIX,
  type TurnCheckSettings,
  TurnChecks,
  verifyCheckOn,
  verifyNote,
} from "../../src/agent/turn-checks.js";
import {
  CHECK_TAIL_CHARS,
  isSourcePath,
  isVerificationCommand,
  VerificationLedger,
  v4aPatchPaths,
} from "../../src/agent/verification-ledger.js";
import type { Message, ToolCall } from "../../src/llm/types.js";

/** A temp git repository with a package.json whose scripts check the code. */
function tempRepo(scripts: Record<string, string> = { test: "node test.mjs" }): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-turn-checks-"));
  execFileSync("git", ["init", "-q"], { cwd: dir });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "demo", scripts }));
  return dir;
}

const ok = JSON.stringify({ success: true });
const ran = (exitCode: number, output = "") => JSON.stringify({ output, exit_code: exitCode });

const ON: TurnCheckSettings = {
  intentAckContinuation: true,
  verifyOnStop: true,
  maxVerifyNudges: 3,
  verifyGuidance: false,
};

function call(name: string, args: Record<string, unknown>, id = `c-${Math.random()}`): ToolCall {
  return { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
}

function toolResult(content: string): Message {
  return { role: "tool", tool_call_id: "x", name: "t", content };
}

// --- isIntentAnnouncement ---------------------------------------------------------------------

test("a reply that ends by announcing the next action is a bare announcement", () => {
  for (const reply of [
    "I'll check the logs now.",
    "Let me run the tests.",
    "Next, I will update the config…",
    "Found the culprit in parser.ts. I’ll fix it now:",
    "OK, let's build it and see.",
    "**Let me look at the failing test.**",
    "Now I'm going to inspect the database schema",
  ]) {
    assert.equal(isIntentAnnouncement(reply), true, reply);
  }
});

test("questions, finished work, code, long replies and announcements not at the end are not bare announcements", () => {
  for (const reply of [
    "",
    "Should I run the tests now?",
    "Let me run the tests. Which environment should I use?",
    "I updated the config. Next, I will run the tests.",
    "I've fixed the bug and the tests pass.",
    "Done. Let me know if you need anything else.",
    "The config has been updated. Let me check it once more.",
    "Let me know if you want me to change anything.",
    "I'll be here if you need anything.",
    "Let me run the tests. The answer to your question is 42.",
    "Here it is:\n```js\nconsole.log(1)\n```\nLet me run it.",
    `${"The module reads its settings from the environment and falls back to defaults. ".repeat(9)}Let me check the loader.`,
  ]) {
    assert.equal(isIntentAnnouncement(reply), false, reply);
  }
});

test("the intent check follows its setting: auto is the Responses API only, a list matches model names", () => {
  assert.equal(intentCheckApplies("auto", "gpt-5", "codex_responses"), true);
  assert.equal(intentCheckApplies("auto", "gpt-5", "chat_completions"), false);
  assert.equal(intentCheckApplies("auto", "gpt-5", undefined), false);
  assert.equal(intentCheckApplies(true, "anything", "anthropic_messages"), true);
  assert.equal(intentCheckApplies(false, "gpt-5", "codex_responses"), false);
  assert.equal(intentCheckApplies(["Kimi", "glm"], "moonshot/kimi-k2", "chat_completions"), true);
  assert.equal(intentCheckApplies(["kimi"], "claude-sonnet", "codex_responses"), false);
});

// --- enabling the verify check ----------------------------------------------------------------

test("verify on stop: the env var wins, booleans are kept, auto is off on chat platforms", () => {
  const none = {};
  assert.equal(verifyCheckOn("auto", undefined, none), true);
  for (const platform of ["", "cli", "tui", "acp", "desktop", "api_server", "webhook", "local", "CLI"]) {
    assert.equal(verifyCheckOn("auto", platform, none), true, platform);
  }
  for (const platform of ["telegram", "discord", "slack", "cron", "whatsapp", "something-new"]) {
    assert.equal(verifyCheckOn("auto", platform, none), false, platform);
  }
  assert.equal(verifyCheckOn(true, "telegram", none), true);
  assert.equal(verifyCheckOn(false, "cli", none), false);
  for (const off of ["0", "false", "no", "OFF"]) {
    assert.equal(verifyCheckOn(true, "cli", { HERMES_VERIFY_ON_STOP: off }), false, off);
  }
  assert.equal(verifyCheckOn(false, "telegram", { HERMES_VERIFY_ON_STOP: "1" }), true);
  assert.equal(verifyCheckOn("auto", "slack", { HERMES_VERIFY_ON_STOP: "yes please" }), true);
});

// --- verification commands and paths ----------------------------------------------------------

test("recognises test, lint, type-check and build runs behind wrappers, and nothing else", () => {
  for (const command of [
    "npm test",
    "npm run lint",
    "pnpm typecheck",
    "yarn test --watch=false",
    "bun test",
    "cd web && npm run build",
    "node --import tsx --test test/a.test.ts",
    "npx tsc --noEmit -p .",
    "npx vitest run",
    "FORCE_COLOR=0 npx eslint src",
    "pytest -q",
    "python3 -m pytest tests/",
    "uv run mypy .",
    "ruff check .",
    "cargo clippy --all",
    "go vet ./...",
    "make check",
    "./gradlew test",
    "mvn -q test",
    "bundle exec rspec",
    "npm test 2>&1 | tail -20",
    "node /tmp/hermes-verify-sum.mjs",
  ]) {
    assert.equal(isVerificationCommand(command), true, command);
  }
  for (const command of ["ls -la", "cat jest.config.js", "npm install", "git status", "node app.js", "make"]) {
    assert.equal(isVerificationCommand(command), false, command);
  }
  assert.equal(isVerificationCommand("./scripts/ci.sh --fast", ["./scripts/ci.sh"]), true);
});

test("source paths count as code; docs and text do not", () => {
  for (const path of ["a.ts", "b.PY", "c.go", "d.css", "e.vue", "f.sh"]) assert.equal(isSourcePath(path), true, path);
  for (const path of ["README.md", "guide.mdx", "notes.txt", "index.rst", "book.adoc", "LICENSE"]) {
    assert.equal(isSourcePath(path), false, path);
  }
});

test("reads every file a V4A patch touches from its headers", () => {
  const patch = [
    "*** Begin Patch",
    "*** Add File: src/new.ts",
    "+export const a = 1;",
    "*** Update File: src/old.ts",
    "*** Move to: src/moved.ts",
    "@@",
    "-x",
    "+y",
    "*** Delete File: docs/gone.md",
    "*** End Patch",
  ].join("\n");
  assert.deepEqual(v4aPatchPaths(patch), ["src/new.ts", "src/old.ts", "src/moved.ts", "docs/gone.md"]);
});

// --- the ledger -------------------------------------------------------------------------------

test("the ledger records successful code edits in a workspace and the checks run after the last one", () => {
  const repo = tempRepo();
  // The agent's home inside the workspace: its files (skills) are still not code work.
  const home = join(repo, ".hermes");
  try {
    const ledger = new VerificationLedger(home);
    ledger.record("terminal", { command: "npm test" }, ran(0), repo);
    assert.deepEqual(ledger.codeEdits(), [], "a check before any edit is not kept");
    ledger.record("write_file", { path: "src/a.ts" }, ok, repo);
    ledger.record("write_file", { path: "src/failed.ts" }, JSON.stringify({ error: "disk full" }), repo);
    ledger.record("write_file", { path: "README.md" }, ok, repo);
    ledger.record("patch", { path: join(repo, "src/b.ts"), old_string: "a", new_string: "b" }, ok, repo);
    ledger.record(
      "patch",
      { mode: "patch", patch: "*** Begin Patch\n*** Add File: lib/c.py\n+x\n*** End Patch" },
      ok,
      repo,
    );
    ledger.record("write_file", { path: join(home, "skills/tool.py") }, ok, repo);
    ledger.record("write_file", { path: join(tmpdir(), "hermes-verify-x.mjs") }, ok, repo);
    assert.deepEqual(
      ledger.codeEdits().map((edit) => edit.shown),
      ["src/a.ts", "src/b.ts", "lib/c.py"],
    );
    assert.deepEqual(ledger.verifyCommands(), ["npm run test"]);
    assert.deepEqual(ledger.status(), { kind: "none" });

    ledger.record("terminal", { command: "ls" }, ran(0), repo);
    ledger.record("terminal", { command: "npm test", background: true }, ran(0), repo);
    assert.deepEqual(ledger.status(), { kind: "none" }, "neither a plain command nor a background one is a check");

    const longOutput = `${"x".repeat(2000)}\nboom: 1 failing`;
    // A guardrail note after the JSON does not hide the exit code.
    ledger.record("terminal", { command: "npm test" }, `${ran(1, longOutput)}\n\n[a guardrail note]`, repo);
    const failed = ledger.status();
    assert.equal(failed.kind, "failed");
    assert.equal(failed.kind === "failed" && failed.check.command, "npm test");
    assert.equal(failed.kind === "failed" && failed.check.tail.length, CHECK_TAIL_CHARS);
    assert.match(failed.kind === "failed" ? failed.check.tail : "", /boom: 1 failing$/);

    ledger.record("terminal", { command: "npm run test" }, ran(0, "ok"), repo);
    assert.equal(ledger.status().kind, "passed");

    ledger.record("write_file", { path: "src/a.ts" }, ok, repo);
    assert.deepEqual(ledger.status(), { kind: "none" }, "a new code edit needs a new check");
    assert.deepEqual(
      ledger.codeEdits().map((edit) => edit.shown),
      ["src/b.ts", "lib/c.py", "src/a.ts"],
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("edits outside any workspace are not code work", () => {
  const loose = mkdtempSync(join(tmpdir(), "hermes-loose-"));
  const repo = tempRepo();
  try {
    const ledger = new VerificationLedger();
    ledger.record("write_file", { path: "script.py" }, ok, loose);
    assert.deepEqual(ledger.codeEdits(), []);
    ledger.record("write_file", { path: "script.py" }, ok, repo);
    assert.equal(ledger.codeEdits().length, 1);
  } finally {
    rmSync(loose, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
});

// --- the notes --------------------------------------------------------------------------------

test("the verify note lists at most 8 paths, the failure with its output, and up to 3 commands", () => {
  const paths = Array.from({ length: 11 }, (_, i) => `src/f${i}.ts`);
  const note = verifyNote({
    paths,
    status: { kind: "failed", check: { command: "npm test", exitCode: 2, tail: "Error: expected 4, got 0" } },
    verifyCommands: ["npm run test", "npm run lint", "npm run typecheck", "npm run build"],
    guidance: false,
  });
  assert.ok(note.startsWith(TURN_NOTE_PREFIX));
  assert.ok(isTurnNote({ role: "user", content: note }));
  assert.match(note, /src\/f7\.ts, … and 3 more/);
  assert.doesNotMatch(note, /src\/f8\.ts/);
  assert.match(note, /`npm test`, failed \(exit code 2\)/);
  assert.match(note, /Error: expected 4, got 0/);
  assert.match(note, /`npm run test`, `npm run lint`, `npm run typecheck`/);
  assert.doesNotMatch(note, /npm run build/);
  assert.match(note, /say what prevents it/);
  assert.doesNotMatch(note, /screenshot/);
});

test("with no known check command the note asks for a throwaway hermes-verify- script; guidance adds two sentences", () => {
  const note = verifyNote({
    paths: ["a.py"],
    status: { kind: "none" },
    verifyCommands: [],
    guidance: true,
    tempDir: "/tmp",
  });
  assert.match(note, /No check has run/);
  assert.match(note, /throwaway script in \/tmp whose name starts with hermes-verify-/);
  assert.match(note, /ad-hoc check/);
  assert.match(note, /build or a screenshot/);
  assert.match(note, /no stray debug code/);
  assert.ok(note.endsWith("]"));
});

test("notes the checks add are told apart from the user's messages", () => {
  const history: Message[] = [
    { role: "user", content: "[System: an old note]" },
    { role: "assistant", content: "a" },
    { role: "user", content: "fix it" },
    { role: "assistant", content: "I'll look." },
    { role: "user", content: INTENT_NUDGE },
    { role: "assistant", content: "done" },
    {
      role: "user",
      content: verifyNote({ paths: ["a.ts"], status: { kind: "none" }, verifyCommands: [], guidance: false }),
    },
  ];
  const [turn, notes] = splitAtTurnNotes(history);
  assert.equal(turn.at(-1)?.content, "I'll look.");
  assert.equal(notes.length, 3);
  assert.equal(isTurnNote({ role: "user", content: `${INTENT_NUDGE}\n\nand a real question` }), false);
  assert.deepEqual(splitAtTurnNotes(history.slice(0, 3)), [history.slice(0, 3), []]);
});

// --- TurnChecks -------------------------------------------------------------------------------

test("turn checks do nothing without settings", () => {
  const repo = tempRepo();
  try {
    const checks = new TurnChecks(undefined, {});
    checks.record([call("write_file", { path: "a.ts" })], [toolResult(ok)], repo);
    assert.equal(
      checks.afterFinalAnswer("Let me run the tests.", { model: "m", apiMode: "codex_responses" }),
      undefined,
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("turn checks nudge an announcement at most twice, then verification up to its cap", () => {
  const repo = tempRepo();
  try {
    const checks = new TurnChecks({ ...ON, maxVerifyNudges: 2 }, { env: {} });
    const route = { model: "m", apiMode: "chat_completions" as const };
    checks.record([call("write_file", { path: "a.ts" })], [toolResult(ok)], repo);
    for (let i = 0; i < MAX_INTENT_NUDGES; i++) {
      assert.equal(checks.afterFinalAnswer("Let me run the tests.", route)?.message, INTENT_NUDGE);
    }
    const first = checks.afterFinalAnswer("Let me run the tests.", route);
    assert.match(first?.message ?? "", /You changed code this turn/);
    assert.match(first?.status ?? "", /verify its edits/);
    assert.ok(checks.afterFinalAnswer("All done.", route));
    assert.equal(checks.afterFinalAnswer("All done.", route), undefined, "the cap of 2 is reached");
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("a passing check after the last edit lets the turn end; a zero cap never nudges", () => {
  const repo = tempRepo();
  try {
    const route = { model: "m", apiMode: undefined };
    const checks = new TurnChecks(ON, { env: {} });
    checks.record(
      [call("write_file", { path: "a.ts" }), call("terminal", { command: "npm test" })],
      [toolResult(ok), toolResult(ran(0))],
      repo,
    );
    assert.equal(checks.afterFinalAnswer("All done.", route), undefined);

    const capped = new TurnChecks({ ...ON, maxVerifyNudges: 0 }, { env: {} });
    capped.record([call("write_file", { path: "a.ts" })], [toolResult(ok)], repo);
    assert.equal(capped.afterFinalAnswer("All done.", route), undefined);

    const chat = new TurnChecks({ ...ON, verifyOnStop: "auto" }, { platform: "telegram", env: {} });
    chat.record([call("write_file", { path: "a.ts" })], [toolResult(ok)], repo);
    assert.equal(chat.afterFinalAnswer("All done.", route), undefined);

    const cli = new TurnChecks({ ...ON, verifyOnStop: "auto" }, { platform: "cli", env: {} });
    cli.record([call("write_file", { path: "a.ts" })], [toolResult(ok)], repo);
    assert.ok(cli.afterFinalAnswer("All done.", route));
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("a workspace without check commands gets the ad-hoc script request", () => {
  const repo = tempRepo({ start: "node app.js" });
  mkdirSync(join(repo, "src"));
  try {
    const checks = new TurnChecks(ON, { env: {} });
    checks.record([call("write_file", { path: "src/app.js" })], [toolResult(ok)], repo);
    const note = checks.afterFinalAnswer("Added the app.", { model: "m", apiMode: undefined });
    assert.match(note?.message ?? "", /hermes-verify-/);
    assert.match(note?.message ?? "", /Changed: src\/app\.js\./);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});
