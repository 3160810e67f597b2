import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { checkWritePath, realLocation } from "../../src/tools/builtin/file-paths.js";
import { registerWriteFileTool } from "../../src/tools/builtin/write-file.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const dir = tempDir("write");
const home = tempDir("write-home");
process.env.HOME = home;
process.env.HERMES_HOME = join(home, ".hermes");
const registry = new ToolRegistry();
registerWriteFileTool(registry);
const ctx = makeContext(dir);

test("writes a file, creating missing parent directories, and reports the bytes", async () => {
  const result = await callTool(registry, "write_file", { path: "a/b/c.txt", content: "héllo\n" }, ctx);
  assert.equal(result.success, true);
  assert.equal(result.bytes_written, Buffer.byteLength("héllo\n"));
  assert.equal(result.created, true);
  assert.equal(result.dirs_created, true);
  assert.equal(readFileSync(join(dir, "a/b/c.txt"), "utf8"), "héllo\n");
});

test("replaces a file atomically: no temporary file is left and the mode is kept", async () => {
  const path = join(dir, "script.sh");
  writeFileSync(path, "old");
  chmodSync(path, 0o751);
  const result = await callTool(registry, "write_file", { path: "script.sh", content: "new" }, ctx);
  assert.equal(result.created, false);
  assert.equal(readFileSync(path, "utf8"), "new");
  assert.equal(statSync(path).mode & 0o777, 0o751);
  assert.deepEqual(
    readdirSync(dir).filter((name) => name.endsWith(".tmp")),
    [],
  );
});

test("writing through a symlink updates the file it points to", async () => {
  writeFileSync(join(dir, "real.txt"), "before");
  symlinkSync(join(dir, "real.txt"), join(dir, "link.txt"));
  await callTool(registry, "write_file", { path: "link.txt", content: "after" }, ctx);
  assert.equal(readFileSync(join(dir, "real.txt"), "utf8"), "after");
});

test("refuses a path that climbs out of the working directory into /etc", async () => {
  const name = `hermes-should-not-exist-${process.pid}`;
  const climbing = `${"../".repeat(20)}etc/${name}`;
  try {
    const result = await callTool(registry, "write_file", { path: climbing, content: "x" }, ctx);
    assert.match(String(result.error), new RegExp(`Refusing to write /etc/${name}`));
    assert.equal(existsSync(`/etc/${name}`), false);
  } finally {
    // A broken check (a mutant under `npm run mutate`) must not leave the file behind.
    rmSync(`/etc/${name}`, { force: true });
  }
});

test("refuses ~/.ssh, login scripts and the agent's own .env and auth.json", async () => {
  for (const path of ["~/.ssh/authorized_keys", "~/.bashrc", join(home, ".hermes/.env"), "~/.hermes/auth.json"]) {
    const result = await callTool(registry, "write_file", { path, content: "x" }, ctx);
    assert.match(String(result.error), /Refusing to write/, path);
  }
  assert.equal(existsSync(join(home, ".ssh")), false);
});

test("refuses a symlink that leads into a sensitive location, judged on its real path", async () => {
  mkdirSync(join(home, ".ssh"), { recursive: true });
  symlinkSync(join(home, ".ssh"), join(dir, "innocent-dir"));
  symlinkSync(join(home, ".ssh", "authorized_keys"), join(dir, "innocent-file"));
  const viaDir = await callTool(registry, "write_file", { path: "innocent-dir/authorized_keys", content: "x" }, ctx);
  assert.match(String(viaDir.error), /resolves to .*\.ssh/);
  // A dangling link to a file that does not exist yet is followed too.
  const viaFile = await callTool(registry, "write_file", { path: "innocent-file", content: "x" }, ctx);
  assert.match(String(viaFile.error), /Refusing/);
  assert.equal(existsSync(join(home, ".ssh", "authorized_keys")), false);
});

test("realLocation follows links in parent directories of a file that does not exist", () => {
  mkdirSync(join(dir, "target-dir"));
  symlinkSync(join(dir, "target-dir"), join(dir, "alias-dir"));
  assert.equal(
    realLocation(join(dir, "alias-dir", "new", "file.txt")),
    join(realLocation(dir), "target-dir/new/file.txt"),
  );
});

test("checkWritePath allows ordinary paths and resolves them against cwd", () => {
  const check = checkWritePath("src/x.ts", dir);
  assert.equal(check.ok, true);
  assert.equal(check.ok && check.path, join(dir, "src/x.ts"));
});

test("a directory path is an error", async () => {
  mkdirSync(join(dir, "folder"));
  const result = await callTool(registry, "write_file", { path: "folder", content: "x" }, ctx);
  assert.match(String(result.error), /directory/);
});

test("is registered as not parallel-safe with a path argument", () => {
  const spec = registry.get("write_file");
  assert.equal(spec?.parallelSafe, false);
  assert.deepEqual(spec?.pathArgs, ["path"]);
});

test("every credential directory and login file under home is refused, each with its own reason", () => {
  const dirs = [".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gh", ".config/gcloud"];
  for (const name of dirs) {
    const check = checkWritePath(`~/${name}/inner/file`, dir);
    assert.equal(check.ok, false, name);
    assert.match(check.ok ? "" : check.error, new RegExp(`~/${name.replace(".", "\\.")} holds keys or credentials`));
  }
  const files = [
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".netrc",
    ".pgpass",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
  ];
  for (const name of files) {
    const check = checkWritePath(`~/${name}`, dir);
    assert.equal(check.ok, false, name);
    assert.match(
      check.ok ? "" : check.error,
      new RegExp(`~/${name.replace(".", "\\.")} runs at login or holds passwords`),
    );
  }
  // Neighbours of protected names are ordinary files.
  for (const name of ["~/.sshrc-notes", "~/notes/.ssh-list", "~/.profile.d-backup/x", "~/projects/a.txt"]) {
    assert.equal(checkWritePath(name, dir).ok, true, name);
  }
});

test("~ and surrounding spaces in a path are understood; a symlink loop ends", () => {
  const check = checkWritePath("  ~/projects/new.txt  ", dir);
  assert.equal(check.ok && check.path, join(home, "projects/new.txt"));
  assert.equal(checkWritePath("~", dir).ok && (checkWritePath("~", dir) as { path: string }).path, home);
  symlinkSync(join(dir, "loop-b"), join(dir, "loop-a"));
  symlinkSync(join(dir, "loop-a"), join(dir, "loop-b"));
  assert.equal(typeof realLocation(join(dir, "loop-a", "x")), "string");
});

test("HERMES_HOME with stray spaces still protects the agent's files; without it, ~/.hermes does", () => {
  const saved = process.env.HERMES_HOME;
  try {
    process.env.HERMES_HOME = `  ${join(home, ".hermes")}  `;
    assert.equal(checkWritePath(join(home, ".hermes", "config.yaml"), dir).ok, false);
    delete process.env.HERMES_HOME;
    assert.equal(checkWritePath("~/.hermes/config.yaml", dir).ok, false);
    assert.equal(checkWritePath("~/config.yaml", dir).ok, true);
  } finally {
    process.env.HERMES_HOME = saved;
  }
});
