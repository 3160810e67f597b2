// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${IFS...} is a literal shell expansion in a command
/**
 * Hardline facts carried over from the original's tests: an `${IFS...}` expansion with an
 * operator still reads as a space, and a recursive chown/chmod is only a hardline block when it
 * targets the filesystem root itself (a top-level directory such as /srv stays approvable).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { detectDangerousCommand, detectHardlineCommand } from "../../src/tools/approval/dangerous.js";

const ROOT_DELETE = "recursive delete of the filesystem root, a top-level system directory or the home directory";
const ROOT_PERMISSIONS = "recursive permission or ownership change of the filesystem root";
const FORMAT = "format a filesystem (mkfs)";

describe("IFS expansions with an operator", () => {
  const rows: Array<[string, string]> = [
    ["rm${IFS:0:1}-rf /", ROOT_DELETE],
    ["rm${IFS:0:1}-rf${IFS:0:1}/", ROOT_DELETE],
    ["rm${IFS%?}-rf /", ROOT_DELETE],
    ["mkfs${IFS:0:1}.ext4 /dev/sda", FORMAT],
  ];
  for (const [command, description] of rows) {
    test(command, () => {
      assert.deepEqual(detectHardlineCommand(command), { blocked: true, description });
    });
  }

  test("a variable whose name only starts with IFS is not a space", () => {
    assert.deepEqual(detectHardlineCommand("rm${IFSX:0:1}-rf /"), { blocked: false, description: null });
  });
});

describe("recursive ownership and permission changes", () => {
  const blocked = [
    "chown -R me /",
    "chown -R me //",
    "chown -R me /.",
    "chown -R me /*",
    "chown -R me /tmp/..",
    'chmod -R 777 "/"',
  ];
  for (const command of blocked) {
    test(`${command} is blocked`, () => {
      assert.deepEqual(detectHardlineCommand(command), { blocked: true, description: ROOT_PERMISSIONS });
    });
  }

  const approvable: Array<[string, string, string]> = [
    ["chown -R root:root /srv", "chown_root_recursive", "recursive chown to root"],
    ["chown -R me /etc", "recursive_permission_change", "recursive ownership change or permission wipe"],
    ["chgrp -R staff /usr", "recursive_permission_change", "recursive ownership change or permission wipe"],
    ["chown -R me ~", "recursive_permission_change", "recursive ownership change or permission wipe"],
  ];
  for (const [command, key, description] of approvable) {
    test(`${command} is not a hardline block but needs approval`, () => {
      assert.deepEqual(detectHardlineCommand(command), { blocked: false, description: null });
      assert.deepEqual(detectDangerousCommand(command), { dangerous: true, key, description });
    });
  }

  test("a non-recursive chown of the root is not a hardline block", () => {
    assert.deepEqual(detectHardlineCommand("chown me /"), { blocked: false, description: null });
  });
});
