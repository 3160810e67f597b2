import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerProfileCommands } from "../../../src/cli/commands/profile.js";
import { run, tempHome } from "./state-command-harness.js";

const profile = (home: string, ...args: string[]) => run(registerProfileCommands, home, ["profile", ...args]);

test("profile create, list, use and delete", async () => {
  const root = tempHome();
  writeFileSync(join(root, "config.yaml"), "agent:\n  max_turns: 5\n");
  const created = await profile(root, "create", "work", "--clone");
  assert.match(created.out, /Created profile "work" at .*profiles\/work \(cloned from /);
  assert.equal(readFileSync(join(root, "profiles", "work", "config.yaml"), "utf8"), "agent:\n  max_turns: 5\n");
  await profile(root, "create", "scratch");
  await profile(root, "create", "copy", "--clone", "work");
  assert.ok(existsSync(join(root, "profiles", "copy", "config.yaml")));
  await assert.rejects(profile(root, "create", "bad/name"), /not a valid profile name/);

  assert.match((await profile(root, "use", "work")).out, /Now using profile "work"/);
  const list = (await profile(root, "list")).out;
  assert.match(list, /^> {2}default /m);
  assert.match(list, /^ \* work /m);
  assert.match(list, /^ {3}scratch /m);

  await assert.rejects(profile(root, "delete", "scratch"), /re-run with --yes/);
  assert.ok(existsSync(join(root, "profiles", "scratch")));
  assert.match((await profile(root, "delete", "scratch", "--yes")).out, /Deleted profile "scratch"/);
  assert.equal(existsSync(join(root, "profiles", "scratch")), false);
  await profile(root, "use", "default");
  assert.equal(existsSync(join(root, "active_profile")), false);
});
