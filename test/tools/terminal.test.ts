import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { detectDangerousCommand, detectHardlineCommand } from "../../src/tools/approval/dangerous.js";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { registerTerminalTools, type TerminalResult } from "../../src/tools/builtin/terminal.js";
import { ProcessManager } from "../../src/tools/process-manager.js";
import type { ApprovalAnswer, ApprovalRequest, ToolContext } from "../../src/tools/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { isAlive, makeCtx, waitUntil } from "./process-helpers.js";

const processManager = new ProcessManager({ killGraceMs: 500 });
after(() => processManager.dispose());

function setup(policy = new ApprovalPolicy(), maxOutputChars?: number) {
  const registry = new ToolRegistry();
  registerTerminalTools(registry, { approvals: policy, processManager, killGraceMs: 500, maxOutputChars });
  const spec = registry.get("terminal");
  assert.ok(spec);
  return async (args: Record<string, unknown>, ctx: ToolContext): Promise<TerminalResult> => {
    const parsed = spec.parameters.parse(args);
    return JSON.parse(await spec.handler(parsed, ctx)) as TerminalResult;
  };
}

/** An approver that answers from a script and records what it was asked. */
function approver(...answers: ApprovalAnswer[]) {
  const asked: ApprovalRequest[] = [];
  const requestApproval = async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    asked.push(request);
    return answers.shift() ?? "deny";
  };
  return { asked, requestApproval };
}

describe("terminal: running commands", () => {
  const run = setup();

  test("runs in the session directory and reports the exit code", async () => {
    const ctx = makeCtx();
    const result = await run({ command: "echo hi; pwd" }, ctx);
    assert.deepEqual(result, { output: `hi\n${ctx.cwd}\n`, exit_code: 0 });
    assert.equal((await run({ command: "exit 7" }, ctx)).exit_code, 7);
  });

  test("merges stderr into the output and strips colours", async () => {
    const result = await run({ command: "echo out; echo err >&2; printf '\\033[31mred\\033[0m\\n'" }, makeCtx());
    assert.equal(result.output.split("\n").sort().join(","), ",err,out,red");
  });

  test("honours workdir relative to the session directory, and rejects a missing one", async () => {
    const ctx = makeCtx();
    mkdirSync(join(ctx.cwd, "sub"));
    assert.equal((await run({ command: "pwd", workdir: "sub" }, ctx)).output, `${join(ctx.cwd, "sub")}\n`);
    const missing = await run({ command: "pwd", workdir: "nope" }, ctx);
    assert.match(missing.error ?? "", /does not exist/);
  });

  test("refuses a foreground timeout above the limit", async () => {
    const result = await run({ command: "true", timeout: 601 }, makeCtx());
    assert.match(result.error ?? "", /background=true/);
    process.env.TERMINAL_MAX_FOREGROUND_TIMEOUT = "5";
    try {
      assert.match((await run({ command: "true", timeout: 6 }, makeCtx())).error ?? "", /limit of 5s/);
      assert.equal((await run({ command: "true", timeout: 5 }, makeCtx())).exit_code, 0);
    } finally {
      delete process.env.TERMINAL_MAX_FOREGROUND_TIMEOUT;
    }
  });

  test("a timeout kills the whole process group, children included", async () => {
    const ctx = makeCtx();
    const started = Date.now();
    const result = await run({ command: "sleep 30 & echo $! > child.pid; wait", timeout: 1 }, ctx);
    assert.equal(result.exit_code, 124);
    assert.match(result.error ?? "", /timed out after 1s/);
    assert.ok(Date.now() - started < 5000);
    const childPid = Number(readFileSync(join(ctx.cwd, "child.pid"), "utf8"));
    // The group is signalled at once; a loaded machine may take a moment to end the sleep.
    await waitUntil(() => !isAlive(childPid), 2000, "the backgrounded sleep to be killed too");
  });

  test("an aborted turn kills the running command", async () => {
    const controller = new AbortController();
    const ctx = makeCtx({ signal: controller.signal });
    const pending = run({ command: "sleep 30 & echo $! > child.pid; wait" }, ctx);
    await waitUntil(() => existsSync(join(ctx.cwd, "child.pid")), 5000, "command start");
    controller.abort();
    const result = await pending;
    assert.equal(result.exit_code, 130);
    assert.match(result.error ?? "", /interrupted/);
    const childPid = Number(readFileSync(join(ctx.cwd, "child.pid"), "utf8"));
    // The signal reaches the group at once; a loaded machine may take a moment to end the sleep.
    await waitUntil(() => !isAlive(childPid), 2000, "the backgrounded sleep to die");
  });

  test("huge output keeps its beginning and end around a truncation marker", async () => {
    const small = setup(new ApprovalPolicy(), 10_000);
    const result = await small({ command: "seq 1 200000" }, makeCtx());
    assert.equal(result.exit_code, 0);
    assert.ok(result.output.startsWith("1\n2\n3\n"));
    assert.ok(result.output.endsWith("199999\n200000\n"));
    assert.match(result.output, /\[\.\.\. output truncated: \d+ characters removed of 1288895 \.\.\.\]/);
    assert.ok(result.output.length < 10_200);
  });

  test("rejects an empty command", async () => {
    assert.match((await run({ command: "   " }, makeCtx())).error ?? "", /empty/);
  });
});

describe("terminal: approvals", () => {
  const dangerous = "rm -r ./victim";

  function victimCtx(extra: Partial<ToolContext> = {}): ToolContext {
    const ctx = makeCtx(extra);
    mkdirSync(join(ctx.cwd, "victim"));
    return ctx;
  }

  test("the commands used here are classified as expected", () => {
    assert.equal(detectDangerousCommand(dangerous).dangerous, true);
    assert.equal(detectDangerousCommand("echo safe").dangerous, false);
    assert.equal(detectHardlineCommand("echo canary > canary.txt || rm -rf /").blocked, true);
  });

  test("a hardline command is blocked even with approvals off", async () => {
    const run = setup(new ApprovalPolicy({ mode: "off", yolo: true }));
    const ctx = makeCtx();
    const result = await run({ command: "echo canary > canary.txt || rm -rf /" }, ctx);
    assert.match(result.error ?? "", /BLOCKED/);
    assert.equal(existsSync(join(ctx.cwd, "canary.txt")), false, "nothing ran");
  });

  test("a deny rule refuses a command without asking, even with approvals off", async () => {
    const run = setup(new ApprovalPolicy({ mode: "off", deny: ["echo forbidden*"] }));
    const { asked, requestApproval } = approver("once");
    const result = await run({ command: "echo forbidden thing" }, makeCtx({ requestApproval }));
    assert.match(result.error ?? "", /deny rule "echo forbidden\*"/);
    assert.equal(asked.length, 0);
  });

  test("safe commands run without asking", async () => {
    const { asked, requestApproval } = approver();
    const result = await setup()({ command: "echo safe" }, makeCtx({ requestApproval }));
    assert.equal(result.output, "safe\n");
    assert.equal(asked.length, 0);
  });

  test("a dangerous command asks, and a denial leaves everything in place", async () => {
    const { asked, requestApproval } = approver("deny");
    const ctx = victimCtx({ requestApproval });
    const result = await setup()({ command: dangerous }, ctx);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.command, dangerous);
    assert.ok(asked[0]?.reason);
    assert.match(result.error ?? "", /denied/);
    assert.ok(existsSync(join(ctx.cwd, "victim")));
  });

  test("'once' runs the command this time only", async () => {
    const run = setup();
    const { asked, requestApproval } = approver("once", "deny");
    const ctx = victimCtx({ requestApproval, sessionId: "s1" });
    assert.equal((await run({ command: dangerous }, ctx)).exit_code, 0);
    assert.equal(existsSync(join(ctx.cwd, "victim")), false);
    mkdirSync(join(ctx.cwd, "victim"));
    assert.match((await run({ command: dangerous }, ctx)).error ?? "", /denied/);
    assert.equal(asked.length, 2);
  });

  test("'session' stops asking for that kind of command in the same session only", async () => {
    const run = setup();
    const { asked, requestApproval } = approver("session", "deny");
    const ctx = victimCtx({ requestApproval, sessionId: "s1" });
    assert.equal((await run({ command: dangerous }, ctx)).exit_code, 0);
    mkdirSync(join(ctx.cwd, "victim"));
    assert.equal((await run({ command: dangerous }, ctx)).exit_code, 0);
    assert.equal(asked.length, 1);
    const other = victimCtx({ requestApproval, sessionId: "s2" });
    assert.match((await run({ command: dangerous }, other)).error ?? "", /denied/);
    assert.equal(asked.length, 2);
  });

  test("'always' persists exactly that command and applies to every session", async () => {
    const persisted: string[] = [];
    const run = setup(new ApprovalPolicy({ persistAllowlist: (p) => void persisted.push(p) }));
    const { asked, requestApproval } = approver("always");
    assert.equal((await run({ command: dangerous }, victimCtx({ requestApproval, sessionId: "a" }))).exit_code, 0);
    assert.equal((await run({ command: dangerous }, victimCtx({ requestApproval, sessionId: "b" }))).exit_code, 0);
    assert.equal(asked.length, 1);
    assert.deepEqual(persisted, [`cmd:${dangerous}`]);
  });

  test("unattended contexts deny dangerous commands without asking", async () => {
    const run = setup();
    const { asked, requestApproval } = approver("once");
    for (const extra of [{ interactive: false }, { platform: "api_server" }, { platform: "cron" }]) {
      const ctx = victimCtx({ requestApproval, ...extra });
      const result = await run({ command: dangerous }, ctx);
      assert.match(result.error ?? "", /Nobody is available to approve/);
      assert.ok(existsSync(join(ctx.cwd, "victim")));
    }
    const noApprover = victimCtx();
    assert.match((await run({ command: dangerous }, noApprover)).error ?? "", /refused/);
    assert.equal(asked.length, 0);
  });

  test("an API server run asks only when it says a person answers, and denies when they do", async () => {
    const run = setup();
    const { asked, requestApproval } = approver("deny");
    const unsaid = victimCtx({ requestApproval, platform: "api_server" });
    assert.match((await run({ command: dangerous }, unsaid)).error ?? "", /Nobody is available to approve/);
    assert.equal(asked.length, 0);
    const attended = victimCtx({ requestApproval, platform: "api_server", interactive: true });
    assert.match((await run({ command: dangerous }, attended)).error ?? "", /denied/);
    assert.equal(asked.length, 1);
    assert.ok(existsSync(join(attended.cwd, "victim")));
  });

  test("cron_mode approve lets cron jobs run dangerous commands", async () => {
    const run = setup(new ApprovalPolicy({ cronMode: "approve" }));
    const ctx = victimCtx({ platform: "cron", interactive: false });
    assert.equal((await run({ command: dangerous }, ctx)).exit_code, 0);
  });
});

describe("terminal: background processes", () => {
  test("starts a background process and notifies when it completes", async () => {
    const notes: string[] = [];
    let notified: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      notified = resolve;
    });
    const notify = (text: string) => {
      notes.push(text);
      notified();
    };
    const run = setup();
    const ctx = makeCtx({ services: { notify }, sessionId: "bg" });
    const result = await run({ command: "echo working; exit 2", background: true, notify_on_complete: true }, ctx);
    assert.equal(result.exit_code, 0);
    assert.match(result.session_id ?? "", /^proc_/);
    assert.match(result.output, /notified/);
    await done;
    assert.equal(notes.length, 1);
    assert.match(notes[0] ?? "", /exited with code 2/);
    assert.match(notes[0] ?? "", /working/);
  });

  test("says so when notifications are requested but unavailable", async () => {
    const result = await setup()({ command: "true", background: true, notify_on_complete: true }, makeCtx());
    assert.match(result.output, /not available here/);
  });

  test("background commands pass the approval policy too", async () => {
    const ctx = makeCtx({ interactive: false });
    mkdirSync(join(ctx.cwd, "victim"));
    const result = await setup()({ command: "rm -r ./victim", background: true }, ctx);
    assert.match(result.error ?? "", /Nobody is available/);
    assert.equal(result.session_id, undefined);
  });
});
