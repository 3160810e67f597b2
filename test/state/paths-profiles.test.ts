import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { hermesHome, hermesPaths, hermesRoot } from "../../src/state/paths.js";
import {
  applyProfile,
  applyStickyProfile,
  createProfile,
  deleteProfile,
  listProfiles,
  ProfileError,
  profileFromArgv,
  stickyProfile,
  useProfile,
} from "../../src/state/profiles.js";
import { tempDir } from "./temp-dir.js";

const saved = process.env.HERMES_HOME;
let root = "";
beforeEach(() => {
  root = tempDir();
  process.env.HERMES_HOME = root;
});
afterEach(() => {
  if (saved === undefined) delete process.env.HERMES_HOME;
  else process.env.HERMES_HOME = saved;
});

test("hermesHome is HERMES_HOME when set, else ~/.hermes, read on every call", () => {
  assert.equal(hermesHome(), root);
  delete process.env.HERMES_HOME;
  assert.equal(hermesHome(), join(homedir(), ".hermes"));
  process.env.HERMES_HOME = root;
  assert.equal(hermesHome(), root);
});

test("every state path is computed from the home", () => {
  const p = hermesPaths();
  assert.equal(p.config, join(root, "config.yaml"));
  assert.equal(p.env, join(root, ".env"));
  assert.equal(p.auth, join(root, "auth.json"));
  assert.equal(p.stateDb, join(root, "state.db"));
  assert.equal(p.memory, join(root, "memories", "MEMORY.md"));
  assert.equal(p.user, join(root, "memories", "USER.md"));
  assert.equal(p.soul, join(root, "SOUL.md"));
  assert.equal(p.skillsDir, join(root, "skills"));
  assert.equal(p.logsDir, join(root, "logs"));
});

test("applyProfile points HERMES_HOME at profiles/NAME; the root stays the same", () => {
  createProfile("work");
  assert.equal(applyProfile("work"), join(root, "profiles", "work"));
  assert.equal(hermesHome(), join(root, "profiles", "work"));
  assert.equal(hermesRoot(), root);
  assert.equal(hermesPaths().config, join(root, "profiles", "work", "config.yaml"));
  assert.equal(applyProfile("default"), root);
  assert.throws(
    () => applyProfile("missing"),
    /profile "missing" does not exist; create it with: hermes profile create missing/,
  );
  assert.throws(() => applyProfile("../escape"), ProfileError);
});

test("create --clone copies config, secrets, persona and memories but not sessions", () => {
  writeFileSync(join(root, "config.yaml"), "agent:\n  max_turns: 12\n");
  writeFileSync(join(root, ".env"), "X_API_KEY=1\n", { mode: 0o600 });
  writeFileSync(join(root, "SOUL.md"), "be kind");
  mkdirSync(join(root, "memories"));
  writeFileSync(join(root, "memories", "MEMORY.md"), "remember");
  writeFileSync(join(root, "state.db"), "");
  const home = createProfile("copy", { cloneFrom: root });
  assert.equal(readFileSync(join(home, "config.yaml"), "utf8"), "agent:\n  max_turns: 12\n");
  assert.equal(readFileSync(join(home, ".env"), "utf8"), "X_API_KEY=1\n");
  assert.equal(statSync(join(home, ".env")).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(home, "SOUL.md"), "utf8"), "be kind");
  assert.equal(readFileSync(join(home, "memories", "MEMORY.md"), "utf8"), "remember");
  assert.equal(existsSync(join(home, "state.db")), false);
  const plain = createProfile("plain");
  assert.equal(existsSync(join(plain, "config.yaml")), false);
  assert.ok(existsSync(join(plain, "memories")));
  assert.throws(() => createProfile("plain"), /already exists/);
  assert.throws(() => createProfile("default"), /already exists/);
});

test("use writes the sticky default to active_profile and applyStickyProfile honours it", () => {
  createProfile("work");
  assert.equal(stickyProfile(), "default");
  useProfile("work");
  assert.equal(readFileSync(join(root, "active_profile"), "utf8").trim(), "work");
  assert.equal(applyStickyProfile(), "work");
  assert.equal(hermesHome(), join(root, "profiles", "work"));
  // Already inside a profile: nothing changes.
  assert.equal(applyStickyProfile(), "work");
  process.env.HERMES_HOME = root;
  useProfile("default");
  assert.equal(existsSync(join(root, "active_profile")), false);
  assert.equal(applyStickyProfile(), "default");
  assert.equal(hermesHome(), root);
  assert.throws(() => useProfile("nope"), /does not exist/);
});

test("list shows default first, marks sticky and current; delete removes and resets sticky", () => {
  createProfile("b");
  createProfile("a");
  useProfile("b");
  const list = listProfiles();
  assert.deepEqual(
    list.map((p) => p.name),
    ["default", "a", "b"],
  );
  assert.equal(list.find((p) => p.name === "b")?.sticky, true);
  assert.equal(list.find((p) => p.name === "default")?.current, true);
  deleteProfile("b");
  assert.equal(existsSync(join(root, "profiles", "b")), false);
  assert.equal(stickyProfile(), "default");
  assert.throws(() => deleteProfile("default"), /cannot be deleted/);
  assert.throws(() => deleteProfile("zzz"), /does not exist/);
  applyProfile("a");
  assert.throws(() => deleteProfile("a"), /in use/);
});

test("profileFromArgv finds -p / --profile before any --", () => {
  assert.equal(profileFromArgv(["-p", "work", "chat"]), "work");
  assert.equal(profileFromArgv(["chat", "--profile", "x"]), "x");
  assert.equal(profileFromArgv(["--profile=y"]), "y");
  assert.equal(profileFromArgv(["chat", "--", "-p", "z"]), undefined);
  assert.equal(profileFromArgv(["chat"]), undefined);
});
