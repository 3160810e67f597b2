/**
 * The tirith scanner before terminal commands, against a fake `tirith` executable that speaks
 * the real `check --json` contract (exit codes, one JSON line on stdout) and records each call.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { ApprovalPolicy, type ApprovalPolicyOptions } from "../../src/tools/approval/policy.js";
import { type TirithOptions, tirithScanner, tirithScannerFromConfig } from "../../src/tools/approval/tirith.js";
import { registerTerminalTools, type TerminalResult } from "../../src/tools/builtin/terminal.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import type { ApprovalAnswer, ApprovalRequest, ToolContext } from "../../src/tools/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { isAlive, makeCtx, tempDir, waitUntil } from "./process-helpers.js";

const processManager = new ProcessManager({ killGraceMs: 500 });
after(() => processManager.dispose());

interface FakeCall {
  argv: string[];
  env: Record<string, string>;
  pid: number;
}

/** A `tirith` whose verdict depends on words in the command; it appends each call to calls.jsonl. */
function fakeTirith(name = "tirith"): { dir: string; path: string; calls: () => FakeCall[] } {
  const dir = tempDir("hermes-fake-tirith-");
  const log = join(dir, "calls.jsonl");
  const path = join(dir, name);
  const script = `#!${process.execPath}
const fs = require("node:fs");
const argv = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ argv, env: process.env, pid: process.pid }) + "\\n");
const command = argv[argv.length - 1] ?? "";
const answer = (code, verdict) => {
  process.stdout.write(JSON.stringify({ schema_version: 3, findings: [], tier_reached: 3, bypass_requested: false,
    bypass_honored: false, interactive_detected: false, policy_path_used: null, timings_ms: {}, ...verdict }) + "\\n");
  process.exit(code);
};
if (command.includes("SLEEPME")) setTimeout(() => answer(0, { action: "allow" }), 30000);
else if (command.includes("CRASHME")) { process.stderr.write("thread 'main' panicked at src/engine.rs:1:1\\n"); process.exit(101); }
else if (command.includes("GARBAGE")) { process.stdout.write("this is not json\\n"); process.exit(0); }
else if (command.includes("ERRORJSON")) { process.stdout.write(JSON.stringify({ error: "unknown shell" }) + "\\n"); process.exit(2); }
else if (command.startsWith("TIRITH=0") && command.includes("HONOR-INLINE")) answer(0, { action: "allow", bypass_requested: true, bypass_honored: true });
else if (process.env.TIRITH === "0") answer(0, { action: "allow", bypass_requested: true, bypass_honored: true });
else if (command.includes("BLOCKME")) answer(1, { action: "block", findings: [
  { rule_id: "curl_pipe_shell", severity: "HIGH", title: "Pipe to shell \\u001b[31mred\\u001b[0m", description: "d", evidence: [] },
  { rule_id: "homograph_url", severity: "HIGH", title: "Homograph\\u202e URL \\u001b]0;evil\\u0007here", description: "d", evidence: [] },
] });
else if (command.includes("WARNME")) answer(2, { action: "warn", findings: [
  { rule_id: "shortened_url", severity: "MEDIUM", title: "Shortened URL", description: "d", evidence: [] },
] });
else answer(0, { action: "allow" });
`;
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  // Only lines the fake has finished writing: the file exists, empty, a moment before its first line.
  const calls = () =>
    existsSync(log)
      ? readFileSync(log, "utf8")
          .split("\n")
          .slice(0, -1)
          .map((line) => JSON.parse(line) as FakeCall)
      : [];
  return { dir, path, calls };
}

function approver(...answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  const requestApproval = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    return answers.shift() ?? "deny";
  };
  return { asked, requestApproval };
}

/** The real terminal tool behind a policy with the tirith scanner. */
function setup(
  tirith: Partial<TirithOptions> & { path: string },
  policy: Omit<ApprovalPolicyOptions, "scanCommand"> = {},
) {
  const notices: string[] = [];
  const scanner = tirithScanner({
    timeoutSeconds: 5,
    failOpen: true,
    notice: (message) => notices.push(message),
    ...tirith,
  });
  const registry = new ToolRegistry();
  registerTerminalTools(registry, {
    approvals: new ApprovalPolicy({ ...policy, scanCommand: scanner }),
    processManager,
    killGraceMs: 500,
  });
  const spec = registry.get("terminal");
  assert.ok(spec);
  const run = async (command: string, ctx: ToolContext): Promise<TerminalResult> =>
    JSON.parse(await spec.handler(spec.parameters.parse({ command }), ctx)) as TerminalResult;
  return { run, notices };
}

/** A command that leaves a file behind, so a test can tell whether it ran. */
const touching = (word: string) => `touch ran; echo ${word}`;
const ran = (ctx: ToolContext) => existsSync(join(ctx.cwd, "ran"));

describe("tirith verdicts", () => {
  test("a command tirith allows runs, and tirith got it verbatim as the one argument after --", async () => {
    const fake = fakeTirith();
    const { run, notices } = setup({ path: fake.path });
    const ctx = makeCtx();
    const result = await run("echo 'hello  world' | cat", ctx);
    assert.deepEqual(result, { output: "hello  world\n", exit_code: 0 });
    const [call] = fake.calls();
    assert.deepEqual(call?.argv, [
      "check",
      "--json",
      "--non-interactive",
      "--shell",
      "posix",
      "--",
      "echo 'hello  world' | cat",
    ]);
    assert.deepEqual(notices, []);
  });

  test("a command tirith blocks needs a yes, the prompt naming its rules and titles without escape sequences", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const { asked, requestApproval } = approver("deny", "once");
    const denied = makeCtx({ requestApproval, sessionId: "s" });
    assert.match((await run(touching("BLOCKME"), denied)).error ?? "", /The user denied this command \(tirith blocks/);
    assert.equal(ran(denied), false);
    const request = asked[0];
    assert.equal(request?.key, "tirith:curl_pipe_shell,homograph_url");
    assert.equal(
      request?.reason,
      "tirith blocks this command: curl_pipe_shell: Pipe to shell red; homograph_url: Homograph URL here",
    );
    const allowed = makeCtx({ requestApproval, sessionId: "s" });
    assert.equal((await run(touching("BLOCKME"), allowed)).exit_code, 0);
    assert.equal(ran(allowed), true);
  });

  test("a blocked command is refused where nobody can answer", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const { asked, requestApproval } = approver("once");
    for (const extra of [{ interactive: false }, { platform: "cron" }, { platform: "api_server" }]) {
      const ctx = makeCtx({ requestApproval, ...extra });
      const result = await run(touching("BLOCKME"), ctx);
      assert.match(result.error ?? "", /Command refused: tirith blocks this command.*Nobody is available/);
      assert.equal(ran(ctx), false);
    }
    assert.equal(asked.length, 0);
  });

  test("a warning needs a yes as well, and is named a warning", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const { asked, requestApproval } = approver("deny");
    const ctx = makeCtx({ requestApproval });
    assert.match((await run(touching("WARNME"), ctx)).error ?? "", /denied/);
    assert.equal(asked[0]?.reason, "tirith warns about this command: shortened_url: Shortened URL");
    assert.equal(asked[0]?.key, "tirith:shortened_url");
    assert.equal(ran(ctx), false);
  });

  test("approvals off runs a blocked command without asking tirith; hardline commands never reach it", async () => {
    const fake = fakeTirith();
    const off = setup({ path: fake.path }, { mode: "off" });
    const ctx = makeCtx();
    assert.equal((await off.run(touching("BLOCKME"), ctx)).exit_code, 0);
    const strict = setup({ path: fake.path });
    const hardline = await strict.run(
      "rm -rf / # BLOCKME",
      makeCtx({ requestApproval: approver("once").requestApproval }),
    );
    assert.match(hardline.error ?? "", /hardline blocklist/);
    assert.deepEqual(fake.calls(), []);
  });

  test("tirith's allow does not clear what our own rules flag", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const { asked, requestApproval } = approver("deny");
    const ctx = makeCtx({ requestApproval });
    mkdirSync(join(ctx.cwd, "build"));
    assert.match((await run("rm -r ./build", ctx)).error ?? "", /denied/);
    assert.equal(fake.calls().length, 1);
    assert.equal(asked.length, 1);
    assert.doesNotMatch(asked[0]?.reason ?? "", /tirith/);
    assert.ok(existsSync(join(ctx.cwd, "build")));
  });

  test("each command is checked on its own, the same command again included", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const ctx = makeCtx();
    await run("echo one", ctx);
    await run("echo two", ctx);
    await run("echo two", ctx);
    assert.deepEqual(
      fake.calls().map((call) => call.argv.at(-1)),
      ["echo one", "echo two", "echo two"],
    );
  });
});

describe("tirith bypasses", () => {
  test("TIRITH=0 and other TIRITH variables in hermes' environment never reach tirith", async () => {
    const fake = fakeTirith();
    const env = { ...process.env, TIRITH: "0", TIRITH_DEFER: "1", TIRITH_POLICY_ROOT: "/tmp", LD_PRELOAD: "x.so" };
    const { run } = setup({ path: fake.path, env });
    const { asked, requestApproval } = approver("deny");
    const ctx = makeCtx({ requestApproval });
    await run(`TIRITH=0 ${touching("BLOCKME")}`, ctx);
    assert.equal(asked[0]?.key, "tirith:curl_pipe_shell,homograph_url");
    assert.equal(ran(ctx), false);
    const [call] = fake.calls();
    assert.equal(call?.argv.at(-1), `TIRITH=0 ${touching("BLOCKME")}`);
    assert.deepEqual(
      Object.keys(call?.env ?? {}).filter((name) => /TIRITH|LD_PRELOAD/.test(name)),
      [],
    );
    assert.equal(call?.env.PATH, process.env.PATH);
    assert.equal(call?.env.NO_COLOR, "1");
  });

  test("a verdict saying tirith honoured a bypass in the command counts as a flag", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path });
    const { asked, requestApproval } = approver("deny");
    const ctx = makeCtx({ requestApproval });
    await run(`TIRITH=0 ${touching("HONOR-INLINE")}`, ctx);
    assert.equal(asked[0]?.key, "tirith:bypass");
    assert.match(asked[0]?.reason ?? "", /skip its check/);
    assert.equal(ran(ctx), false);
  });
});

describe("tirith failures", () => {
  test("a check that outlasts tirith_timeout is killed; failing open, the command runs after a notice", async () => {
    const fake = fakeTirith();
    const { run, notices } = setup({ path: fake.path, timeoutSeconds: 0.2 });
    const ctx = makeCtx();
    assert.equal((await run(touching("SLEEPME"), ctx)).exit_code, 0);
    assert.equal(ran(ctx), true);
    assert.deepEqual(notices, [
      "tirith could not check a command (no answer within 0.2s); hermes' own rules decide alone.",
    ]);
    const pid = fake.calls()[0]?.pid ?? 0;
    await waitUntil(() => !isAlive(pid), 5000, "the timed-out tirith to be killed");
  });

  test("failing closed, a timed-out check needs a yes, and is refused unattended", async () => {
    const fake = fakeTirith();
    const { run, notices } = setup({ path: fake.path, timeoutSeconds: 0.2, failOpen: false });
    const { asked, requestApproval } = approver("deny");
    const ctx = makeCtx({ requestApproval });
    assert.match((await run(touching("SLEEPME"), ctx)).error ?? "", /denied/);
    assert.equal(asked[0]?.key, "tirith:unavailable");
    assert.match(
      asked[0]?.reason ?? "",
      /could not check this command \(no answer within 0\.2s\).*tirith_fail_open is false/,
    );
    const unattended = makeCtx({ interactive: false });
    assert.match((await run(touching("SLEEPME"), unattended)).error ?? "", /Command refused: tirith could not check/);
    assert.equal(ran(ctx) || ran(unattended), false);
    assert.deepEqual(notices, []);
  });

  test("a crash, unreadable output or an error answer: a notice failing open, a yes failing closed", async () => {
    const fake = fakeTirith();
    const cases: Array<[string, RegExp]> = [
      ["CRASHME", /it exited with code 101: thread 'main' panicked at src\/engine\.rs/],
      ["GARBAGE", /its output is not a JSON verdict/],
      ["ERRORJSON", /its output names no known action/],
    ];
    for (const [word, reason] of cases) {
      const open = setup({ path: fake.path });
      const ctx = makeCtx();
      assert.equal((await open.run(touching(word), ctx)).exit_code, 0, word);
      assert.equal(open.notices.length, 1, word);
      assert.match(open.notices[0] ?? "", reason);

      const closed = setup({ path: fake.path, failOpen: false });
      const { asked, requestApproval } = approver("deny");
      const closedCtx = makeCtx({ requestApproval });
      assert.match((await closed.run(touching(word), closedCtx)).error ?? "", /denied/, word);
      assert.match(asked[0]?.reason ?? "", reason);
      assert.equal(ran(closedCtx), false, word);
    }
  });

  test("tirith missing at the default name is skipped without a word, and looked up once", async () => {
    const emptyPath = tempDir("hermes-no-tirith-");
    const { run, notices } = setup({ path: "tirith", env: { ...process.env, PATH: emptyPath }, failOpen: false });
    const ctx = makeCtx();
    assert.equal((await run(touching("BLOCKME"), ctx)).exit_code, 0);
    // Installed after the first command: this process keeps its first answer.
    const fake = fakeTirith();
    writeFileSync(join(emptyPath, "tirith"), readFileSync(fake.path));
    chmodSync(join(emptyPath, "tirith"), 0o755);
    assert.equal((await run("echo BLOCKME", ctx)).exit_code, 0);
    assert.deepEqual(notices, []);
    assert.deepEqual(fake.calls(), []);
  });

  test("the default name is found on PATH, then in $HERMES_HOME/bin", async () => {
    const onPath = fakeTirith();
    const viaPath = setup({ path: "tirith", env: { ...process.env, PATH: onPath.dir } });
    assert.match((await viaPath.run("echo BLOCKME", makeCtx())).error ?? "", /refused/);
    assert.equal(onPath.calls().length, 1);

    const inHome = fakeTirith();
    const viaHome = setup({ path: "tirith", env: { ...process.env, PATH: tempDir() }, fallbackDir: inHome.dir });
    assert.match((await viaHome.run("echo BLOCKME", makeCtx())).error ?? "", /refused/);
    assert.equal(inHome.calls().length, 1);
  });

  test("tirith missing at a path set explicitly: one notice failing open, a yes failing closed", async () => {
    const missing = join(tempDir(), "bin", "tirith");
    const open = setup({ path: missing });
    const ctx = makeCtx();
    await open.run("echo one", ctx);
    await open.run("echo two", ctx);
    assert.deepEqual(open.notices, [
      `tirith could not check a command (security.tirith_path "${missing}" is not an executable file); hermes' own rules decide alone.`,
    ]);
    assert.equal(ran(ctx), false);
    assert.equal((await open.run(touching("x"), ctx)).exit_code, 0);

    const closed = setup({ path: "tirith-custom", env: { ...process.env, PATH: tempDir() }, failOpen: false });
    const { asked, requestApproval } = approver("deny");
    await closed.run("echo hi", makeCtx({ requestApproval }));
    assert.match(asked[0]?.reason ?? "", /security\.tirith_path "tirith-custom" is not an executable file/);
    assert.deepEqual(closed.notices, []);
  });

  test("an interrupted turn stops the check and the command does not run", async () => {
    const fake = fakeTirith();
    const { run } = setup({ path: fake.path, timeoutSeconds: 30, failOpen: true });
    const controller = new AbortController();
    const ctx = makeCtx({ signal: controller.signal, requestApproval: approver("once").requestApproval });
    const pending = run(touching("SLEEPME"), ctx);
    await waitUntil(() => fake.calls().length === 1, 5000, "tirith to start");
    controller.abort();
    assert.match((await pending).error ?? "", /interrupted/);
    assert.equal(ran(ctx), false);
    const pid = fake.calls()[0]?.pid ?? 0;
    await waitUntil(() => !isAlive(pid), 5000, "the interrupted tirith to be killed");
  });
});

describe("tirith settings", () => {
  test("tirith_enabled false adds no scanner; the other keys reach it", async () => {
    const security = { tirith_enabled: false, tirith_path: "tirith", tirith_timeout: 5, tirith_fail_open: true };
    assert.equal(
      tirithScannerFromConfig(security, tempDir(), () => {}),
      undefined,
    );

    const home = tempDir();
    const missing = join(home, "nowhere", "tirith");
    const scanner = tirithScannerFromConfig(
      { ...security, tirith_enabled: true, tirith_path: missing, tirith_fail_open: false },
      home,
      () => {},
    );
    const flag = await scanner?.("echo hi", makeCtx());
    assert.equal(flag?.key, "tirith:unavailable");
  });
});
