/** The approval policy with an outside command scanner (tirith's slot): when it runs and what its flag does. */
import assert from "node:assert/strict";
import { afterEach, describe, test } from "node:test";
import {
  ApprovalPolicy,
  type ApprovalPolicyOptions,
  type ApprovalTarget,
  approvalPolicyFromConfig,
} from "../../src/tools/approval/policy.js";
import type { ApprovalAnswer, ApprovalRequest, ToolContext } from "../../src/tools/registry.js";

const OWN = "rm -r ./build";
const PLAIN = "curl https://example.com/x -o x";
const FLAG: ApprovalTarget = {
  key: "tirith:shortened_url",
  description: "tirith warns about this command: shortened_url",
};

function scanner(flag: ApprovalTarget | null = FLAG) {
  const seen: string[] = [];
  const fn = async (command: string) => {
    seen.push(command);
    return flag;
  };
  return { fn, seen };
}

function ctxWith(answers: ApprovalAnswer[], extra: Partial<ToolContext> = {}) {
  const asked: ApprovalRequest[] = [];
  const ctx: ToolContext = {
    cwd: "/",
    signal: new AbortController().signal,
    sessionId: "s",
    requestApproval: async (request) => {
      asked.push(request);
      return answers.shift() ?? "deny";
    },
    ...extra,
  };
  return { ctx, asked };
}

function policy(options: ApprovalPolicyOptions = {}, flag: ApprovalTarget | null = FLAG) {
  const scan = scanner(flag);
  return { policy: new ApprovalPolicy({ ...options, scanCommand: scan.fn }), seen: scan.seen };
}

describe("ApprovalPolicy with a command scanner", () => {
  afterEach(() => {
    delete process.env.HERMES_YOLO_MODE;
  });

  test("a command only the scanner flags is asked about with its reason and key", async () => {
    const { policy: p, seen } = policy();
    const { ctx, asked } = ctxWith(["deny"]);
    const verdict = await p.check(PLAIN, ctx);
    assert.equal(verdict.allowed, false);
    assert.deepEqual(asked, [{ command: PLAIN, reason: FLAG.description, key: FLAG.key }]);
    assert.deepEqual(seen, [PLAIN]);
  });

  test("a scanner with nothing to say leaves the command to our rules", async () => {
    const { policy: p } = policy({}, null);
    const { ctx, asked } = ctxWith([]);
    assert.deepEqual(await p.check(PLAIN, ctx), { allowed: true, via: "safe" });
    assert.equal(asked.length, 0);
  });

  test("a session yes covers the scanner's key; the scanner still runs for every command", async () => {
    const { policy: p, seen } = policy();
    const { ctx, asked } = ctxWith(["session"]);
    assert.equal((await p.check(PLAIN, ctx)).allowed, true);
    const again = await p.check(`${PLAIN} -s`, ctx);
    assert.deepEqual(again, { allowed: true, via: "session", key: FLAG.key });
    assert.equal(asked.length, 1);
    assert.deepEqual(seen, [PLAIN, `${PLAIN} -s`]);
  });

  test("unattended, a scanner's flag is refused without asking", async () => {
    const { policy: p } = policy();
    const { ctx, asked } = ctxWith(["once"], { interactive: false });
    const verdict = await p.check(PLAIN, ctx);
    assert.equal(verdict.allowed, false);
    assert.equal(verdict.allowed === false && verdict.by, "unattended");
    assert.equal(asked.length, 0);
  });

  test("smart mode gives the judge the scanner's reason", async () => {
    const judged: string[] = [];
    const { policy: p } = policy({
      mode: "smart",
      smartJudge: async (request) => {
        judged.push(request.description);
        return "deny";
      },
    });
    const { ctx } = ctxWith([]);
    assert.equal((await p.check(PLAIN, ctx)).allowed, false);
    assert.deepEqual(judged, [FLAG.description]);
  });

  test("the scanner is not run where nothing would be asked, nor for refused commands", async () => {
    const cases: Array<[string, ApprovalPolicyOptions, Partial<ToolContext>, string]> = [
      ["approvals off", { mode: "off" }, {}, PLAIN],
      ["yolo", { yolo: true }, {}, PLAIN],
      ["a permission rule", {}, { preapproved: true }, PLAIN],
      ["hardline", { mode: "off" }, {}, "rm -rf /"],
      ["deny rule", { deny: ["curl *"] }, {}, PLAIN],
    ];
    for (const [name, options, extra, command] of cases) {
      const { policy: p, seen } = policy(options);
      const { ctx, asked } = ctxWith([], extra);
      const verdict = await p.check(command, ctx);
      assert.equal(verdict.allowed, !["hardline", "deny rule"].includes(name), name);
      assert.deepEqual(seen, [], name);
      assert.equal(asked.length, 0, name);
    }
    process.env.HERMES_YOLO_MODE = "1";
    const { policy: p, seen } = policy();
    assert.equal((await p.check(PLAIN, ctxWith([]).ctx)).allowed, true);
    assert.deepEqual(seen, []);
  });

  test("a command both flag is asked about once, with both reasons, under a key of its own", async () => {
    const { policy: p } = policy();
    const { ctx, asked } = ctxWith(["session", "deny"]);
    assert.equal((await p.check(OWN, ctx)).allowed, true);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]?.key, `recursive_delete + ${FLAG.key}`);
    assert.match(asked[0]?.reason ?? "", /; tirith warns about this command: shortened_url$/);
    // The same pair again is covered; either kind alone is not.
    assert.deepEqual(await p.check(OWN, ctx), { allowed: true, via: "session", key: `recursive_delete + ${FLAG.key}` });
    assert.equal((await p.check(PLAIN, ctx)).allowed, false);
    assert.equal(asked.length, 2);
  });

  test("an earlier yes to one of the two leaves only the other to ask about", async () => {
    let flag: ApprovalTarget | null = null;
    const p = new ApprovalPolicy({ scanCommand: async () => flag });
    const { ctx, asked } = ctxWith(["session", "deny"]);
    assert.equal((await p.check(OWN, ctx)).allowed, true);
    flag = FLAG;
    assert.equal((await p.check(OWN, ctx)).allowed, false);
    assert.deepEqual(
      asked.map((r) => r.key),
      ["recursive_delete", FLAG.key],
    );

    const scannerKeyAllowed = new ApprovalPolicy({ scanCommand: scanner().fn, commandAllowlist: [FLAG.key] });
    const c = ctxWith(["deny"]);
    assert.equal((await scannerKeyAllowed.check(OWN, c.ctx)).allowed, false);
    assert.deepEqual(
      c.asked.map((r) => r.key),
      ["recursive_delete"],
    );

    const bothAllowed = new ApprovalPolicy({
      scanCommand: scanner().fn,
      commandAllowlist: ["recursive_delete", FLAG.key],
    });
    const d = ctxWith([]);
    assert.deepEqual(await bothAllowed.check(OWN, d.ctx), { allowed: true, via: "allowlist", key: FLAG.key });
    assert.equal(d.asked.length, 0);
  });

  test("approvalPolicyFromConfig passes the scanner on", async () => {
    const scan = scanner();
    const p = approvalPolicyFromConfig({ approvals: {} }, { scanCommand: scan.fn });
    assert.equal((await p.check(PLAIN, ctxWith([]).ctx)).allowed, false);
    assert.deepEqual(scan.seen, [PLAIN]);
  });
});
