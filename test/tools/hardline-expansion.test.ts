import assert from "node:assert/strict";
import { test } from "node:test";
import { detectHardlineCommand } from "../../src/tools/approval/dangerous.js";
import { expandAssignments } from "../../src/tools/approval/hardline.js";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import { makeCtx } from "./process-helpers.js";

const BLOCKED = [
  "D=~; rm -rf $D",
  'T=/; rm -rf "$T"',
  "export X=/etc; rm -rf $X",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
  "H=$HOME; rm -rf ${H}",
  "cd ~ && rm -rf *",
  "cd / && rm -rf -- *",
  "cd $HOME; rm -rf .",
  "cd; rm -rf ./*",
  "cd /usr && find . -delete",
  "pushd / && rm -r .*",
];

const ALLOWED_BY_HARDLINE = [
  "cd /tmp/build && rm -rf *",
  "cd ~/project && rm -rf node_modules",
  "D=./build; rm -rf $D",
  "cd src && rm -rf dist",
  "cd ~ && ls",
  "cd / && ls -la",
];

test("variables assigned in the command and cd targets are followed before the hardline check", () => {
  for (const command of BLOCKED) assert.equal(detectHardlineCommand(command).blocked, true, command);
  for (const command of ALLOWED_BY_HARDLINE) assert.equal(detectHardlineCommand(command).blocked, false, command);
});

test("yolo does not let an expanded hardline command through", async () => {
  const policy = new ApprovalPolicy({ yolo: true, mode: "off" });
  for (const command of BLOCKED) {
    const verdict = await policy.check(command, makeCtx());
    assert.equal(verdict.allowed, false, command);
    assert.ok(!verdict.allowed && verdict.by === "hardline", command);
  }
});

test("assignments are expanded with their quotes removed, and unknown variables are left alone", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal shell parameter expansion
  assert.equal(expandAssignments("A=\"/\"; B='x y'; echo $A ${B} $C"), "A=\"/\"; B='x y'; echo / x y $C");
  assert.equal(expandAssignments("echo $HOME"), null);
});
