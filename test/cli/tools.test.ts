import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerToolsCommand } from "../../src/cli/commands/tools.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const tools = (home: string, ...args: string[]) => run(registerToolsCommand, home, ["tools", ...args]);

test("tools --summary gives one line per toolset with available/total counts and marks enabled ones", async () => {
  const home = tempHome();
  const { out } = await tools(home, "--summary");
  assert.match(out, /^ {2}file +4\/4 available +Read, write, patch and search files$/m);
  assert.match(out, /^ {2}terminal +2\/2 available /m);
  assert.match(out, /^\* hermes-cli +\d+\/\d+ available +Interactive terminal/m);
  assert.doesNotMatch(out, /hermes-telegram/, "platform bundles not in use are left out");
  assert.match(out, /\* enabled in config\.yaml \(toolsets: hermes-cli\)/);
});

test("tools lists every tool with ✓ available, ✗ unavailable or · not in this version", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "toolsets: [file, todo]\n");
  const { out } = await tools(home);
  assert.match(out, /^\* file — Read, write, patch and search files\n {4}✓ read_file\n {4}✓ write_file/m);
  assert.match(out, /^\* todo — /m);
  assert.match(out, /^ {4}· cronjob \(not in this version yet\)$/m);
  // Available where Chromium is installed, unavailable (with the reason) where it is not.
  assert.match(
    out,
    /^ {4}(✓ browser_navigate|✗ browser_navigate \(unavailable: a key or program it needs is missing\))$/m,
  );
  assert.doesNotMatch(out, /^\* hermes-cli/m);
  assert.match(out, /^ {4}✓ skill_manage$/m, "skills tools are listed as a chat session has them");
  assert.match(out, /^ {4}✓ delegate_task$/m);
});
