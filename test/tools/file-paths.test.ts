import assert from "node:assert/strict";
import { linkSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ApprovalPolicy } from "../../src/tools/approval/policy.js";
import {
  approvePersistentWrite,
  checkWritePath,
  displayPath,
  HERMES_UNREADABLE,
  HOME_SECRET_DIRS,
  readRefusal,
  realLocation,
  resolveToolPath,
  secretFileFilter,
} from "../../src/tools/builtin/file-paths.js";
import { makeContext, tempDir } from "./tool-harness.js";

// A home of our own, its agent home reached through a link (as a dotfiles setup might do).
const base = realpathSync(tempDir("file-paths"));
const home = join(base, "home");
const realAgentHome = join(base, "agent-home");
mkdirSync(home);
mkdirSync(realAgentHome);
symlinkSync(realAgentHome, join(home, ".hermes"));
process.env.HOME = home;
process.env.HERMES_HOME = join(home, ".hermes");
mkdirSync(join(realAgentHome, "cache"));
for (const name of HERMES_UNREADABLE) writeFileSync(join(realAgentHome, name), "secret");
writeFileSync(join(realAgentHome, "config.yaml"), "model: m\n");
const project = join(base, "project");
mkdirSync(project);
writeFileSync(join(project, "notes.md"), "notes\n");

test("paths resolve against the working directory, with ~ for the home directory and stray spaces trimmed", () => {
  assert.equal(resolveToolPath("notes.md", project), join(project, "notes.md"));
  assert.equal(resolveToolPath("  notes.md \n", project), join(project, "notes.md"));
  assert.equal(resolveToolPath("~", project), home);
  assert.equal(resolveToolPath(" ~/x.txt", project), join(home, "x.txt"));
  assert.equal(resolveToolPath("~other/x", project), join(project, "~other", "x"), "only the user's own ~");
  assert.equal(resolveToolPath("/tmp/../etc/./hosts", project), "/etc/hosts");
  assert.equal(resolveToolPath("../project/notes.md", project), join(project, "notes.md"));
});

test("the real location follows links in the file and in its parents, also where nothing exists yet", () => {
  const dir = join(base, "links");
  mkdirSync(dir);
  symlinkSync(project, join(dir, "to-project"));
  symlinkSync("to-project/notes.md", join(dir, "relative-link"));
  symlinkSync(join(dir, "to-project", "later.md"), join(dir, "dangling"));
  symlinkSync("dangling", join(dir, "to-dangling"));
  assert.equal(realLocation(join(dir, "to-project", "notes.md")), join(project, "notes.md"));
  assert.equal(realLocation(join(dir, "relative-link")), join(project, "notes.md"), "relative to the link");
  assert.equal(realLocation(join(dir, "dangling")), join(project, "later.md"));
  assert.equal(realLocation(join(dir, "to-dangling")), join(project, "later.md"), "a chain of links");
  assert.equal(realLocation(join(dir, "to-project", "new", "deep.md")), join(project, "new", "deep.md"));
  assert.equal(realLocation("/"), "/");
});

test("a loop of links ends instead of recursing forever", () => {
  const dir = join(base, "loop");
  mkdirSync(dir);
  symlinkSync(join(dir, "b"), join(dir, "a"));
  symlinkSync(join(dir, "a"), join(dir, "b"));
  const real = realLocation(join(dir, "a"));
  assert.ok(real === join(dir, "a") || real === join(dir, "b"), real);
  const under = realLocation(join(dir, "a", "file.txt"));
  assert.ok(under.startsWith(dir), under);
});

test("devices that never end are refused, and so are the agent's secret files under any name", () => {
  for (const device of ["/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/tty", "/dev/full"]) {
    assert.match(readRefusal(device) ?? "", /never ends/, device);
  }
  assert.match(readRefusal("/proc/self/fd/0") ?? "", /never ends/);
  assert.match(readRefusal("/dev/fd/3") ?? "", /never ends/);
  assert.equal(readRefusal("/dev/null"), null);
  assert.equal(readRefusal(join(project, "notes.md")), null);
  for (const name of HERMES_UNREADABLE) {
    assert.match(readRefusal(join(realAgentHome, name)) ?? "", /agent's own secrets/, `${name} by its real path`);
    assert.match(readRefusal(join(home, ".hermes", name)) ?? "", /agent's own secrets/, `${name} through the link`);
  }
  linkSync(join(realAgentHome, "auth.json"), join(project, "copy.json"));
  assert.match(readRefusal(join(project, "copy.json")) ?? "", /agent's own secrets/, "a hard link");
  assert.equal(readRefusal(join(realAgentHome, "config.yaml")), null, "settings are readable");
});

test("a search filter drops the agent's secret files by path, through links and as hard links", () => {
  const readable = secretFileFilter();
  linkSync(join(realAgentHome, ".env"), join(project, "env-copy"));
  symlinkSync(join(realAgentHome, "state.db"), join(project, "db-link"));
  assert.equal(readable(join(project, "notes.md")), true);
  assert.equal(readable(join(project, "notes.md")), true, "judged again from memory");
  assert.equal(readable(join(realAgentHome, ".env")), false);
  assert.equal(readable(join(project, "env-copy")), false);
  assert.equal(readable(join(project, "db-link")), false);
  assert.equal(readable(join(realAgentHome, "config.yaml")), true);
});

test("writes are refused in system directories, credential folders, login files and the agent's own files", () => {
  const refused = (path: string, why: RegExp) => {
    const check = checkWritePath(path, project);
    assert.equal(check.ok, false, path);
    assert.match(check.ok ? "" : check.error, why, path);
  };
  refused("/etc/hosts", /\/etc is a system directory/);
  refused("/etc", /system directory/);
  refused("/dev/sda", /system directory/);
  refused("/proc/1/mem", /system directory/);
  refused("/sys/kernel/x", /system directory/);
  refused("/boot/grub.cfg", /system directory/);
  for (const dir of HOME_SECRET_DIRS) refused(`~/${dir}/key`, /holds keys or credentials/);
  for (const file of [".bashrc", ".zshrc", ".profile", ".netrc", ".npmrc", ".git-credentials", ".pgpass"]) {
    refused(`~/${file}`, /runs at login or holds passwords/);
  }
  for (const name of ["config.yaml", "SOUL.md", ".env", "auth.json", "state.db", join("cache", "skill-scans.json")]) {
    refused(join(home, ".hermes", name), /agent's own secrets or settings/);
    refused(join(realAgentHome, name), /agent's own secrets or settings/);
  }
  refused("   ", /path is empty/);
  refused("", /path is empty/);
});

test("a refused write names the link and where it resolves to; allowed writes report both paths", () => {
  symlinkSync(join(home, ".ssh"), join(project, "keys"));
  const check = checkWritePath("keys/authorized_keys", project);
  assert.equal(check.ok, false);
  assert.match(check.ok ? "" : check.error, /keys\/authorized_keys \(resolves to .*\.ssh\/authorized_keys\)/);
  assert.match(check.ok ? "" : check.error, /Ask the user to make this change themselves/);
  const direct = checkWritePath("~/.ssh/config", project);
  assert.doesNotMatch(direct.ok ? "" : direct.error, /resolves to/);
  symlinkSync(project, join(base, "project-link"));
  const allowed = checkWritePath(join(base, "project-link", "out.md"), project);
  assert.deepEqual(allowed, {
    ok: true,
    path: join(base, "project-link", "out.md"),
    real: join(project, "out.md"),
  });
  assert.equal(checkWritePath(join(home, ".sshfoo", "x"), project).ok, true, "a name that only starts like .ssh");
  assert.equal(checkWritePath("/etcetera/x", project).ok, true, "a directory that only starts like /etc");
});

test("paths are shown relative to the working directory when inside it", () => {
  assert.equal(displayPath(join(project, "notes.md"), project), "notes.md");
  assert.equal(displayPath(join(project, "a", "b.md"), `${project}/`), join("a", "b.md"));
  assert.equal(displayPath(project, project), project, "the directory itself");
  assert.equal(
    displayPath(`${project}-other/x.md`, project),
    `${project}-other/x.md`,
    "a sibling with the same prefix",
  );
  assert.equal(displayPath("/etc/hosts", project), "/etc/hosts");
});

test("writes where files run later ask the approval policy; elsewhere they go ahead", async () => {
  const hook = join(project, ".git", "hooks", "pre-commit");
  const unattended = makeContext(project, { platform: "cron", interactive: false });
  assert.equal(await approvePersistentWrite(join(project, "notes.md"), unattended), undefined);
  assert.equal(
    await approvePersistentWrite(hook, unattended),
    `Refusing to write a git hook (runs on git commands) (${hook}) without an approval policy to ask.`,
  );
  const denied = await approvePersistentWrite(hook, {
    ...unattended,
    services: { approvals: new ApprovalPolicy() },
  });
  assert.match(denied ?? "", /git hook/, "unattended, nobody can approve: refused with the reason");
  const allowed = await approvePersistentWrite(hook, {
    ...unattended,
    services: { approvals: new ApprovalPolicy({ yolo: true }) },
  });
  assert.equal(allowed, undefined, "a policy that allows it lets the write go ahead");
});
