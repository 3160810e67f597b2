/**
 * ApprovalPolicy step by step: what each check returns (verdict, key, message), who is asked,
 * what is remembered, and how config is read. Commands are only judged, never run.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { describe, test } from "node:test";
import {
  ApprovalPolicy,
  type ApprovalPolicyOptions,
  approvalPolicyFromConfig,
  exactCommandEntry,
  type SmartJudgeRequest,
  type SmartVerdict,
  yoloFromEnv,
} from "../../src/tools/approval/policy.js";
import type { ApprovalAnswer, ApprovalRequest, ToolContext } from "../../src/tools/registry.js";

const DANGEROUS = "rm -r ./build";
const KEY = "recursive_delete";
const DESCRIPTION = "recursive delete";

function ctxWith(answer: ApprovalAnswer | "never", extra: Partial<ToolContext> = {}) {
  const asked: ApprovalRequest[] = [];
  const ctx: ToolContext = {
    cwd: "/",
    signal: new AbortController().signal,
    sessionId: "s1",
    requestApproval: (request) => {
      asked.push(request);
      return answer === "never" ? new Promise<ApprovalAnswer>(() => {}) : Promise.resolve(answer);
    },
    ...extra,
  };
  return { ctx, asked };
}

function judging(verdict: SmartVerdict) {
  const seen: SmartJudgeRequest[] = [];
  const smartJudge = async (request: SmartJudgeRequest) => {
    seen.push(request);
    return verdict;
  };
  return { smartJudge, seen };
}

/** Settles microtasks and immediates queued so far (real time does not advance). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the order of the checks", () => {
  test("a hardline command is refused before deny rules, yolo or the allowlist are looked at", async () => {
    const { ctx, asked } = ctxWith("always");
    const policy = new ApprovalPolicy({ mode: "off", yolo: true, deny: ["rm*"], commandAllowlist: [KEY, "rm*"] });
    assert.deepEqual(await policy.check("rm -rf /", ctx), {
      allowed: false,
      by: "hardline",
      message:
        "BLOCKED: recursive delete of the filesystem root, a top-level system directory or the home directory. This command is on the hardline blocklist and never runs, whatever the approval settings. Do not retry or rephrase it; choose another approach or ask the user to run it outside the agent.",
    });
    assert.equal(asked.length, 0);
  });

  test("a deny rule refuses a command even in yolo mode, naming the rule", async () => {
    const { ctx, asked } = ctxWith("once");
    const policy = new ApprovalPolicy({ yolo: true, deny: ["git push*", "rm -r *"], commandAllowlist: [KEY] });
    assert.deepEqual(await policy.check(DANGEROUS, ctx), {
      allowed: false,
      by: "deny_rule",
      message:
        'BLOCKED: the command matches the user\'s deny rule "rm -r *" (approvals.deny). Do not retry or rephrase it; choose another approach.',
    });
    assert.deepEqual(await policy.check("ls -la", ctx), { allowed: true, via: "safe" });
    assert.equal(asked.length, 0);
  });

  test("the deny list is the policy's own copy", async () => {
    const deny = ["echo no*"];
    const policy = new ApprovalPolicy({ deny });
    deny.length = 0;
    const { ctx } = ctxWith("once");
    assert.equal((await policy.check("echo nope", ctx)).allowed, false);
  });

  test("a command the detector does not flag runs without asking, whatever else is set", async () => {
    const { ctx, asked } = ctxWith("deny", { platform: "cron" });
    assert.deepEqual(await new ApprovalPolicy({ mode: "smart" }).check("ls -la", ctx), { allowed: true, via: "safe" });
    assert.equal(asked.length, 0);
  });

  test("mode off and yolo allow a dangerous command under its key without asking", async () => {
    for (const options of [{ mode: "off" }, { yolo: true }] satisfies ApprovalPolicyOptions[]) {
      const { ctx, asked } = ctxWith("deny", { platform: "cron" });
      assert.deepEqual(await new ApprovalPolicy(options).check(DANGEROUS, ctx), {
        allowed: true,
        via: "yolo",
        key: KEY,
      });
      assert.equal(asked.length, 0);
    }
  });

  test("a call the permission mode already allowed runs without asking, even unattended", async () => {
    const { ctx, asked } = ctxWith("deny", { platform: "cron", preapproved: true });
    assert.deepEqual(await new ApprovalPolicy().check(DANGEROUS, ctx), { allowed: true, via: "permission", key: KEY });
    assert.equal(asked.length, 0);
  });

  test("the allowlist is consulted before the unattended rules", async () => {
    const { ctx, asked } = ctxWith("deny", { platform: "cron" });
    assert.deepEqual(await new ApprovalPolicy({ commandAllowlist: [KEY] }).check(DANGEROUS, ctx), {
      allowed: true,
      via: "allowlist",
      key: KEY,
    });
    assert.equal(asked.length, 0);
  });
});

describe("HERMES_YOLO_MODE", () => {
  test("only 1, true, yes and on (any case) switch it on", () => {
    for (const value of ["1", "true", "TRUE", "yes", "Yes", "on", "ON"]) {
      assert.equal(yoloFromEnv({ HERMES_YOLO_MODE: value }), true, value);
    }
    for (const value of ["", "0", "false", "no", "off", "1x", "x1", " 1", "yess"]) {
      assert.equal(yoloFromEnv({ HERMES_YOLO_MODE: value }), false, value);
    }
    assert.equal(yoloFromEnv({}), false);
  });

  test("it lets actions through as well as commands", async () => {
    const { ctx, asked } = ctxWith("deny");
    process.env.HERMES_YOLO_MODE = "yes";
    try {
      const verdict = await new ApprovalPolicy().checkAction("run script", { key: "script", description: "d" }, ctx);
      assert.deepEqual(verdict, { allowed: true, via: "yolo", key: "script" });
    } finally {
      delete process.env.HERMES_YOLO_MODE;
    }
    assert.equal(asked.length, 0);
  });
});

describe("the permanent allowlist", () => {
  async function allowedBy(allowlist: string[], command = DANGEROUS): Promise<string | null> {
    const { ctx } = ctxWith("deny");
    const verdict = await new ApprovalPolicy({ commandAllowlist: allowlist }).check(command, ctx);
    return verdict.allowed ? verdict.via : null;
  }

  test("a key matches in any case", async () => {
    assert.equal(await allowedBy(["RECURSIVE_DELETE"]), "allowlist");
    assert.equal(await allowedBy(["recursive"]), null);
  });

  test("globs match the trimmed command with *, ? and [...]", async () => {
    assert.equal(await allowedBy(["rm -r ./b*"]), "allowlist");
    assert.equal(await allowedBy(["rm -r ./buil?"]), "allowlist");
    assert.equal(await allowedBy(["rm -r ./[b]uild"]), "allowlist");
    assert.equal(await allowedBy(["rm -r ./b*"], "  rm -r ./build  "), "allowlist");
    assert.equal(await allowedBy(["rm -r ./x*"]), null);
  });

  test("a command written out without cmd: or a glob character is not an entry for it", async () => {
    assert.equal(await allowedBy(["rm -r ./build"]), null);
  });

  test("cmd: entries match one exact command, whitespace-normalised, and never a key", async () => {
    assert.equal(await allowedBy(["cmd:rm -r ./build"], "  rm   -r\t./build "), "allowlist");
    assert.equal(await allowedBy(["cmd:rm -r ./other"]), null);
    assert.equal(await allowedBy([`cmd:${KEY}`]), null);
    assert.equal(exactCommandEntry("  rm  -rf\n x "), "cmd:rm -rf x");
  });

  test("the policy keeps its own copy of the allowlist", async () => {
    const list = ["git_force_push"];
    const policy = new ApprovalPolicy({ commandAllowlist: list });
    list.push(KEY);
    policy.allowlisted().push(KEY);
    assert.deepEqual(policy.allowlisted(), ["git_force_push"]);
    const { ctx } = ctxWith("deny");
    assert.equal((await policy.check(DANGEROUS, ctx)).allowed, false);
  });
});

describe("nobody to ask", () => {
  async function verdictIn(extra: Partial<ToolContext>, options: ApprovalPolicyOptions = {}) {
    const { ctx, asked } = ctxWith("once", extra);
    const verdict = await new ApprovalPolicy(options).check(DANGEROUS, ctx);
    return { verdict, asked: asked.length };
  }

  test("refusals name the context, and nobody is asked", async () => {
    const cases: Array<[Partial<ToolContext>, string]> = [
      [{ platform: "cron" }, "cron"],
      [{ platform: "webhook" }, "webhook"],
      [{ platform: "api_server" }, "api_server"],
      [{ platform: "api_server", interactive: false }, "api_server"],
      [{ interactive: false }, "non-interactive run"],
      [{ requestApproval: undefined }, "no approval channel"],
      [{ requestApproval: undefined, interactive: true }, "no approval channel"],
    ];
    for (const [extra, where] of cases) {
      const { verdict, asked } = await verdictIn(extra);
      assert.deepEqual(
        verdict,
        {
          allowed: false,
          by: "unattended",
          key: KEY,
          message: `Command refused: ${DESCRIPTION}. Nobody is available to approve dangerous commands in this context (${where}). Find a safer way to do this, or leave it for the user.`,
        },
        where,
      );
      assert.equal(asked, 0, where);
    }
  });

  test("cron follows cron_mode, every other unattended context unattended_mode", async () => {
    const cronOnly = { cronMode: "approve", unattendedMode: "deny" } as const;
    const othersOnly = { cronMode: "deny", unattendedMode: "approve" } as const;
    assert.deepEqual((await verdictIn({ platform: "cron" }, cronOnly)).verdict, {
      allowed: true,
      via: "unattended",
      key: KEY,
    });
    assert.equal((await verdictIn({ platform: "cron" }, othersOnly)).verdict.allowed, false);
    for (const extra of [{ platform: "webhook" }, { platform: "api_server" }, { interactive: false }]) {
      assert.equal((await verdictIn(extra, cronOnly)).verdict.allowed, false, JSON.stringify(extra));
      assert.deepEqual((await verdictIn(extra, othersOnly)).verdict, { allowed: true, via: "unattended", key: KEY });
    }
  });

  test("an API run that says someone answers, and an ordinary chat, ask the user", async () => {
    for (const extra of [{ platform: "api_server", interactive: true }, { platform: "cli" }, {}]) {
      const { verdict, asked } = await verdictIn(extra, { unattendedMode: "deny", cronMode: "deny" });
      assert.deepEqual(verdict, { allowed: true, via: "user", key: KEY, answer: "once" }, JSON.stringify(extra));
      assert.equal(asked, 1);
    }
  });
});

describe("asking", () => {
  test("the user is asked with the command, the reason and the key", async () => {
    const { ctx, asked } = ctxWith("once");
    const policy = new ApprovalPolicy();
    assert.deepEqual(await policy.check(DANGEROUS, ctx), { allowed: true, via: "user", key: KEY, answer: "once" });
    assert.deepEqual(asked, [{ command: DANGEROUS, reason: DESCRIPTION, key: KEY }]);
    await policy.check(DANGEROUS, ctx);
    assert.equal(asked.length, 2, "once is not remembered");
  });

  test("a denial says who denied and what", async () => {
    const { ctx } = ctxWith("deny");
    assert.deepEqual(await new ApprovalPolicy().check(DANGEROUS, ctx), {
      allowed: false,
      by: "user",
      key: KEY,
      message: `The user denied this command (${DESCRIPTION}). Do not retry it; ask the user how to proceed or take another approach.`,
    });
  });

  test("a session answer holds for that key in that session only", async () => {
    const policy = new ApprovalPolicy();
    const first = ctxWith("session", { sessionId: "a" });
    await policy.check(DANGEROUS, first.ctx);
    assert.deepEqual(await policy.check("rm -r ./other", first.ctx), { allowed: true, via: "session", key: KEY });
    await policy.check("git push --force", first.ctx);
    assert.equal(first.asked.length, 2, "another key is asked about");
    assert.deepEqual(await policy.check(DANGEROUS, first.ctx), { allowed: true, via: "session", key: KEY });
    assert.equal((await policy.check("git push -f", first.ctx)).allowed, true);
    assert.equal(first.asked.length, 2, "both keys are remembered");
    const second = ctxWith("deny", { sessionId: "b" });
    assert.equal((await policy.check(DANGEROUS, second.ctx)).allowed, false);
  });

  test("without a session id the task id, then a shared default, scope session answers", async () => {
    const policy = new ApprovalPolicy();
    const task = ctxWith("session", { sessionId: undefined, taskId: "t" });
    await policy.check(DANGEROUS, task.ctx);
    const sameTask = ctxWith("deny", { sessionId: undefined, taskId: "t" });
    assert.equal((await policy.check(DANGEROUS, sameTask.ctx)).allowed, true);
    const noIds = ctxWith("deny", { sessionId: undefined });
    assert.equal((await policy.check(DANGEROUS, noIds.ctx)).allowed, false);
    const anonymous = ctxWith("session", { sessionId: undefined });
    await policy.check(DANGEROUS, anonymous.ctx);
    assert.equal((await policy.check(DANGEROUS, ctxWith("deny", { sessionId: undefined }).ctx)).allowed, true);
  });

  test("clearSession with an id forgets only that session", async () => {
    const policy = new ApprovalPolicy();
    const a = ctxWith("session", { sessionId: "a" });
    const b = ctxWith("session", { sessionId: "b" });
    await policy.check(DANGEROUS, a.ctx);
    await policy.check(DANGEROUS, b.ctx);
    policy.clearSession("a");
    await policy.check(DANGEROUS, a.ctx);
    await policy.check(DANGEROUS, b.ctx);
    assert.deepEqual([a.asked.length, b.asked.length], [2, 1]);
    policy.clearSession();
    await policy.check(DANGEROUS, b.ctx);
    assert.equal(b.asked.length, 2);
  });

  test("always saves the exact command, once, and a failing save still allows it", async () => {
    const saved: string[] = [];
    const policy = new ApprovalPolicy({ persistAllowlist: (entry) => void saved.push(entry) });
    const { ctx, asked } = ctxWith("always");
    assert.deepEqual(await policy.check("  rm  -r ./build ", ctx), {
      allowed: true,
      via: "user",
      key: KEY,
      answer: "always",
    });
    assert.deepEqual(await policy.check(DANGEROUS, ctx), { allowed: true, via: "allowlist", key: KEY });
    assert.deepEqual(saved, ["cmd:rm -r ./build"]);
    assert.deepEqual(policy.allowlisted(), ["cmd:rm -r ./build"]);
    assert.equal(asked.length, 1);
    for (const persistAllowlist of [
      () => {
        throw new Error("disk full");
      },
      async () => {
        throw new Error("disk full");
      },
    ]) {
      const failing = new ApprovalPolicy({ persistAllowlist });
      assert.equal((await failing.check(DANGEROUS, ctxWith("always").ctx)).allowed, true);
      assert.deepEqual(failing.allowlisted(), ["cmd:rm -r ./build"]);
    }
  });

  test("two prompts for one command answered always save it once", async () => {
    const saved: string[] = [];
    const policy = new ApprovalPolicy({ persistAllowlist: (entry) => void saved.push(entry) });
    const { ctx, asked } = ctxWith("always");
    const verdicts = await Promise.all([policy.check(DANGEROUS, ctx), policy.check(DANGEROUS, ctx)]);
    assert.deepEqual(
      verdicts.map((verdict) => verdict.allowed),
      [true, true],
    );
    assert.equal(asked.length, 2);
    assert.deepEqual(saved, ["cmd:rm -r ./build"]);
    assert.deepEqual(policy.allowlisted(), ["cmd:rm -r ./build"]);
  });

  test("the wait for an answer lasts approvals.timeout seconds, 60 by default", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    for (const [policy, seconds] of [
      [new ApprovalPolicy(), 60],
      [new ApprovalPolicy({ timeoutSeconds: 5 }), 5],
      [approvalPolicyFromConfig({ approvals: { timeout: 2 } }), 2],
      [approvalPolicyFromConfig({ approvals: { timeout: 0 } }), 60],
      [approvalPolicyFromConfig({ approvals: { timeout: -3 } }), 60],
      [approvalPolicyFromConfig({ approvals: { timeout: "5" } }), 60],
    ] as const) {
      const { ctx } = ctxWith("never");
      let verdict: unknown;
      void policy.check(DANGEROUS, ctx).then((v) => {
        verdict = v;
      });
      await settle();
      t.mock.timers.tick(seconds * 1000 - 1);
      await settle();
      assert.equal(verdict, undefined, `still waiting before ${seconds}s`);
      t.mock.timers.tick(1);
      await settle();
      assert.deepEqual(verdict, {
        allowed: false,
        by: "timeout",
        key: KEY,
        message: `Command refused: no answer to the approval request within ${seconds}s (${DESCRIPTION}).`,
      });
    }
  });

  test("an answer in time clears the timer and the abort listener", async () => {
    const controller = new AbortController();
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === "Timeout").length;
    const before = timers();
    const { ctx } = ctxWith("once", { signal: controller.signal });
    assert.equal((await new ApprovalPolicy({ timeoutSeconds: 30 }).check(DANGEROUS, ctx)).allowed, true);
    assert.equal(getEventListeners(controller.signal, "abort").length, 0);
    assert.equal(timers(), before);
  });

  test("an interrupt while the prompt is open cancels the command at once", async (t) => {
    t.mock.timers.enable({ apis: ["setTimeout"] });
    const controller = new AbortController();
    const { ctx, asked } = ctxWith("never", { signal: controller.signal });
    let verdict: unknown;
    void new ApprovalPolicy().check(DANGEROUS, ctx).then((v) => {
      verdict = v;
    });
    await settle();
    assert.equal(asked.length, 1);
    assert.equal(getEventListeners(controller.signal, "abort").length, 1);
    controller.abort();
    await settle();
    assert.deepEqual(verdict, {
      allowed: false,
      by: "interrupted",
      key: KEY,
      message: "Command cancelled: the turn was interrupted.",
    });
    assert.equal(getEventListeners(controller.signal, "abort").length, 0);
  });

  test("a turn interrupted before the prompt settles is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { ctx } = ctxWith("once", { signal: controller.signal });
    assert.deepEqual(await new ApprovalPolicy().check(DANGEROUS, ctx), {
      allowed: false,
      by: "interrupted",
      key: KEY,
      message: "Command cancelled: the turn was interrupted.",
    });
  });
});

describe("smart mode", () => {
  test("the judge sees the command, its description and key, and its verdict stands", async () => {
    const approve = judging("approve");
    const { ctx, asked } = ctxWith("deny");
    assert.deepEqual(
      await new ApprovalPolicy({ mode: "smart", smartJudge: approve.smartJudge }).check(DANGEROUS, ctx),
      {
        allowed: true,
        via: "smart",
        key: KEY,
      },
    );
    assert.deepEqual(approve.seen, [{ command: DANGEROUS, description: DESCRIPTION, key: KEY }]);
    const deny = judging("deny");
    assert.deepEqual(await new ApprovalPolicy({ mode: "smart", smartJudge: deny.smartJudge }).check(DANGEROUS, ctx), {
      allowed: false,
      by: "smart",
      key: KEY,
      message: `Command refused by the automatic risk check: ${DESCRIPTION}. Choose a safer approach.`,
    });
    assert.equal(asked.length, 0);
  });

  test("a judge is not consulted outside smart mode", async () => {
    const approve = judging("approve");
    const { ctx, asked } = ctxWith("deny");
    const verdict = await new ApprovalPolicy({ mode: "manual", smartJudge: approve.smartJudge }).check(DANGEROUS, ctx);
    assert.equal(verdict.allowed, false);
    assert.deepEqual(approve.seen, []);
    assert.equal(asked.length, 1);
  });
});

describe("actions other than commands", () => {
  test("a file write is asked about with the path in its description, and always holds for the session", async () => {
    const policy = new ApprovalPolicy();
    const saved: string[] = [];
    const { ctx, asked } = ctxWith("always");
    const target = { key: "shell_rc_write", description: "write to a shell start-up file" };
    assert.deepEqual(await policy.checkFileWrite("/home/me/.bashrc", target, ctx), {
      allowed: true,
      via: "user",
      key: "shell_rc_write",
      answer: "always",
    });
    assert.deepEqual(asked, [
      {
        command: "write /home/me/.bashrc",
        reason: "write to a shell start-up file (/home/me/.bashrc)",
        key: "shell_rc_write",
      },
    ]);
    assert.deepEqual(await policy.checkAction("write /home/me/.zshrc", target, ctx), {
      allowed: true,
      via: "session",
      key: "shell_rc_write",
    });
    assert.deepEqual(policy.allowlisted(), []);
    assert.deepEqual(saved, []);
  });

  test("an action answered once is asked about again", async () => {
    const policy = new ApprovalPolicy();
    const { ctx, asked } = ctxWith("once");
    const target = { key: "script", description: "run a script" };
    assert.deepEqual(await policy.checkAction("run a.py", target, ctx), {
      allowed: true,
      via: "user",
      key: "script",
      answer: "once",
    });
    await policy.checkAction("run a.py", target, ctx);
    assert.equal(asked.length, 2);
  });

  test("unattended, an action is refused with its own message", async () => {
    const { ctx } = ctxWith("once", { platform: "cron" });
    const verdict = await new ApprovalPolicy().checkAction("run cleanup.py", { key: "script", description: "d" }, ctx);
    assert.deepEqual(verdict, {
      allowed: false,
      by: "unattended",
      key: "script",
      message: "Refused: d. Nobody is available to approve it here (cron); leave it for the user.",
    });
  });
});

describe("approvalPolicyFromConfig", () => {
  test("reads each setting, and falls back to the default for a malformed one", async () => {
    assert.equal(approvalPolicyFromConfig({ approvals: { mode: "smart" } }).mode, "smart");
    assert.equal(approvalPolicyFromConfig({ approvals: { mode: "manual" } }).mode, "manual");
    assert.equal(approvalPolicyFromConfig({ approvals: { mode: true } }).mode, "manual");
    assert.equal(approvalPolicyFromConfig({ approvals: ["off"] }).mode, "manual");
    assert.equal(approvalPolicyFromConfig({ approvals: null }).mode, "manual");
    const { ctx } = ctxWith("once", { platform: "webhook" });
    const approving = approvalPolicyFromConfig({ approvals: { unattended_mode: "approve", cron_mode: "sometimes" } });
    assert.deepEqual(await approving.check(DANGEROUS, ctx), { allowed: true, via: "unattended", key: KEY });
    const cron = ctxWith("once", { platform: "cron" }).ctx;
    assert.equal((await approving.check(DANGEROUS, cron)).allowed, false);
    assert.equal(
      (await approvalPolicyFromConfig({ approvals: { unattended_mode: "yes" } }).check(DANGEROUS, ctx)).allowed,
      false,
    );
  });

  test("the deny list and both allowlists keep only strings", async () => {
    const policy = approvalPolicyFromConfig({
      approvals: { deny: ["echo no*", 3], command_allowlist: ["git_force_push", null] },
      command_allowlist: [KEY, {}],
    });
    assert.deepEqual(policy.allowlisted(), [KEY, "git_force_push"]);
    const { ctx } = ctxWith("deny");
    assert.equal((await policy.check("echo nope", ctx)).allowed, false);
    assert.deepEqual(approvalPolicyFromConfig({ command_allowlist: KEY, approvals: { deny: "x" } }).allowlisted(), []);
  });

  test("yolo, the saver and the judge are passed through", async () => {
    const saved: string[] = [];
    const { smartJudge } = judging("deny");
    const policy = approvalPolicyFromConfig(
      { approvals: { mode: "smart" } },
      { persistAllowlist: (entry) => void saved.push(entry), smartJudge },
    );
    assert.equal(policy.smartJudge, smartJudge);
    assert.equal((await policy.check(DANGEROUS, ctxWith("always").ctx)).allowed, false);
    const saving = approvalPolicyFromConfig({}, { persistAllowlist: (entry) => void saved.push(entry) });
    await saving.check(DANGEROUS, ctxWith("always").ctx);
    assert.deepEqual(saved, ["cmd:rm -r ./build"]);
    assert.equal(approvalPolicyFromConfig({}, { yolo: true }).yolo, true);
    assert.equal(approvalPolicyFromConfig({}).yolo, false);
  });
});
