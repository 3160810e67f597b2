/** Table tests for the dangerous-command analyser: each row pins the whole result of one command. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { detectDangerousCommand } from "../../src/tools/approval/dangerous.js";

/** The key and description a command needing approval gets, or null for one that does not. */
export type Expected = [key: string, description: string] | null;

export function check(rows: Array<[string, Expected]>): void {
  for (const [command, expected] of rows) {
    test(JSON.stringify(command), () => {
      const want = expected
        ? { dangerous: true, key: expected[0], description: expected[1] }
        : { dangerous: false, key: null, description: null };
      assert.deepEqual(detectDangerousCommand(command), want);
    });
  }
}
