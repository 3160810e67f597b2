import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ApprovalPolicy, approvalPolicyFromConfig, type SmartVerdict } from "../../src/tools/approval/policy.js";
import type { ApprovalAnswer, ApprovalRequest, ToolContext } from "../../src/tools/registry.js";

const DANGEROUS = "rm -r ./build";

function ctxWith(answer: ApprovalAnswer | (() => Promise<ApprovalAnswer>), extra: Partial<ToolContext> = {}) {
  const asked: ApprovalRequest[] = [];
  const ctx: ToolContext = {
    cwd: "/",
    signal: new AbortController().signal,
    sessionId: "s",
    requestApproval: async (request) => {
      asked.push(request);
      return typeof answer === "function" ? answer() : answer;
    },
    ...extra,
  };
  return { ctx, asked };
}

function judge(verdict: SmartVerdict | Error) {
  const seen: string[] = [];
  const fn = async (request: { command: string }) => {
    seen.push(request.command);
    if (verdict instanceof Error) throw verdict;
    return verdict;
  };
  return { fn, seen };
}

describe("ApprovalPolicy", () => {
  test("smart mode approves or denies on the judge's word without asking", async () => {
    for (const [verdict, allowed] of [
      ["approve", true],
      ["deny", false],
    ] as const) {
      const j = judge(verdict);
      const { ctx, asked } = ctxWith("deny");
      const result = await new ApprovalPolicy({ mode: "smart", smartJudge: j.fn }).check(DANGEROUS, ctx);
      assert.equal(result.allowed, allowed);
      assert.deepEqual(j.seen, [DANGEROUS]);
      assert.equal(asked.length, 0);
    }
  });

  test("smart mode asks the user when the judge escalates or fails", async () => {
    for (const verdict of ["escalate", new Error("judge down")] as const) {
      const { ctx, asked } = ctxWith("once");
      const result = await new ApprovalPolicy({ mode: "smart", smartJudge: judge(verdict).fn }).check(DANGEROUS, ctx);
      assert.equal(result.allowed, true);
      assert.equal(asked.length, 1);
    }
  });

  test("smart mode without an auxiliary model behaves like manual", async () => {
    const { ctx, asked } = ctxWith("deny");
    const result = await new ApprovalPolicy({ mode: "smart" }).check(DANGEROUS, ctx);
    assert.equal(result.allowed, false);
    assert.equal(asked.length, 1);
  });

  test("no answer within the timeout denies", async () => {
    const { ctx } = ctxWith(() => new Promise<ApprovalAnswer>(() => {}));
    const result = await new ApprovalPolicy({ timeoutSeconds: 0.05 }).check(DANGEROUS, ctx);
    assert.deepEqual(result.allowed ? null : result.by, "timeout");
  });

  test("an interrupt while waiting for an answer cancels the command", async () => {
    const controller = new AbortController();
    const { ctx } = ctxWith(
      () => {
        controller.abort();
        return new Promise<ApprovalAnswer>(() => {});
      },
      { signal: controller.signal },
    );
    const result = await new ApprovalPolicy().check(DANGEROUS, ctx);
    assert.deepEqual(result.allowed ? null : result.by, "interrupted");
  });

  test("a failing approval prompt counts as a denial", async () => {
    const { ctx } = ctxWith(() => Promise.reject(new Error("ui closed")));
    const result = await new ApprovalPolicy().check(DANGEROUS, ctx);
    assert.deepEqual(result.allowed ? null : result.by, "user");
  });

  test("the permanent allowlist accepts pattern keys and command globs", async () => {
    const { ctx, asked } = ctxWith("deny");
    const byGlob = await new ApprovalPolicy({ commandAllowlist: ["rm -r ./build*"] }).check(DANGEROUS, ctx);
    assert.equal(byGlob.allowed, true);
    const first = await new ApprovalPolicy().check(DANGEROUS, ctx);
    const key = first.key ?? "";
    assert.ok(key);
    const byKey = await new ApprovalPolicy({ commandAllowlist: [key] }).check(DANGEROUS, ctx);
    assert.deepEqual(byKey.allowed ? byKey.via : null, "allowlist");
    assert.equal(asked.length, 1);
  });

  test("HERMES_YOLO_MODE skips prompts but not the hardline floor", async () => {
    const { ctx, asked } = ctxWith("deny");
    process.env.HERMES_YOLO_MODE = "1";
    try {
      const policy = new ApprovalPolicy();
      assert.deepEqual(await policy.check(DANGEROUS, ctx), { allowed: true, via: "yolo", key: await keyOf() });
      const hard = await policy.check("rm -rf /", ctx);
      assert.deepEqual(hard.allowed ? null : hard.by, "hardline");
    } finally {
      delete process.env.HERMES_YOLO_MODE;
    }
    assert.equal(asked.length, 0);
  });

  test("clearSession forgets session answers", async () => {
    const policy = new ApprovalPolicy();
    const { ctx, asked } = ctxWith("session");
    await policy.check(DANGEROUS, ctx);
    await policy.check(DANGEROUS, ctx);
    assert.equal(asked.length, 1);
    policy.clearSession("s");
    await policy.check(DANGEROUS, ctx);
    assert.equal(asked.length, 2);
  });
});

async function keyOf(): Promise<string | null | undefined> {
  const { ctx } = ctxWith("deny");
  return (await new ApprovalPolicy().check(DANGEROUS, ctx)).key;
}

describe("approvalPolicyFromConfig", () => {
  test("reads the approvals section and command_allowlist", async () => {
    const policy = approvalPolicyFromConfig({
      approvals: { mode: "off", timeout: 5, deny: ["echo no*"], cron_mode: "approve", command_allowlist: ["git"] },
      command_allowlist: ["rm", 7],
    });
    assert.equal(policy.mode, "off");
    assert.deepEqual(policy.allowlisted(), ["rm", "git"]);
    const { ctx } = ctxWith("deny");
    const denied = await policy.check("echo nope", ctx);
    assert.deepEqual(denied.allowed ? null : denied.by, "deny_rule");
    const cron = await approvalPolicyFromConfig({ approvals: { cron_mode: "approve" } }).check(DANGEROUS, {
      ...ctx,
      platform: "cron",
    });
    assert.deepEqual(cron.allowed ? cron.via : null, "unattended");
  });

  test("accepts YAML's boolean spelling of off and ignores junk", () => {
    assert.equal(approvalPolicyFromConfig({ approvals: { mode: false } }).mode, "off");
    assert.equal(approvalPolicyFromConfig({ approvals: { mode: "sometimes", deny: "x" } }).mode, "manual");
    assert.equal(approvalPolicyFromConfig(undefined).mode, "manual");
  });
});

test("always allows exactly that command; glob characters in it are not patterns, and hand-written kinds still work", async () => {
  const saved: string[] = [];
  const policy = new ApprovalPolicy({ persistAllowlist: (entry) => void saved.push(entry) });
  const { ctx } = ctxWith("always");
  assert.equal((await policy.check("rm -rf build/*", ctx)).allowed, true);
  assert.deepEqual(saved, ["cmd:rm -rf build/*"]);
  const { ctx: denying } = ctxWith("deny");
  assert.equal((await policy.check("rm -rf build/*", denying)).allowed, true);
  assert.equal((await policy.check("rm -rf build/../..", denying)).allowed, false);
  const byKind = new ApprovalPolicy({ commandAllowlist: ["recursive_delete"] });
  assert.equal((await byKind.check("rm -rf ./anything", denying)).allowed, true, "a kind the user wrote by hand");
});
