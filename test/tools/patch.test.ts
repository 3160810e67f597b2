import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerFileTools } from "../../src/tools/builtin/files.js";
import { PatchParseError, parseV4aPatch } from "../../src/tools/builtin/v4a-patch.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { callTool, makeContext, tempDir } from "./tool-harness.js";

const dir = tempDir("patch");
const home = tempDir("patch-home");
process.env.HOME = home;
process.env.HERMES_HOME = join(home, ".hermes");
const registry = new ToolRegistry();
registerFileTools(registry);
const ctx = makeContext(dir);

const SOURCE = ["def greet(name):", "    message = 'hello ' + name", "    return message", ""].join("\n");

test("replaces a unique snippet and returns a unified diff", async () => {
  writeFileSync(join(dir, "greet.py"), SOURCE);
  const result = await callTool(
    registry,
    "patch",
    { path: "greet.py", old_string: "message = 'hello ' + name", new_string: "message = f'hi {name}'" },
    ctx,
  );
  assert.equal(result.success, true);
  assert.equal(result.replacements, 1);
  assert.equal(readFileSync(join(dir, "greet.py"), "utf8"), SOURCE.replace("'hello ' + name", "f'hi {name}'"));
  const diff = String(result.diff);
  assert.match(diff, /^--- a\/greet\.py\n\+\+\+ b\/greet\.py/);
  assert.match(diff, /^- {4}message = 'hello ' \+ name$/m);
  assert.match(diff, /^\+ {4}message = f'hi \{name\}'$/m);
});

test("matches despite wrong indentation (fuzzy) and names the strategy", async () => {
  writeFileSync(join(dir, "indent.py"), SOURCE);
  const result = await callTool(
    registry,
    "patch",
    {
      path: "indent.py",
      old_string: "message = 'hello ' + name\nreturn message",
      new_string: "return 'hello ' + name",
    },
    ctx,
  );
  assert.equal(result.success, true);
  assert.notEqual(result.strategy, "exact");
  assert.equal(readFileSync(join(dir, "indent.py"), "utf8"), "def greet(name):\n    return 'hello ' + name\n");
});

test("no match is an error result that leaves the file alone and suggests re-reading", async () => {
  writeFileSync(join(dir, "same.py"), SOURCE);
  const result = await callTool(registry, "patch", { path: "same.py", old_string: "nowhere", new_string: "x" }, ctx);
  assert.equal(result.success, false);
  assert.equal(typeof result.error, "string");
  assert.match(String(result.hint), /read_file/);
  assert.equal(readFileSync(join(dir, "same.py"), "utf8"), SOURCE);
});

test("several matches need replace_all", async () => {
  writeFileSync(join(dir, "many.txt"), "a x\nb x\n");
  const refused = await callTool(registry, "patch", { path: "many.txt", old_string: "x", new_string: "y" }, ctx);
  assert.match(String(refused.error), /Found 2 matches/);
  const all = await callTool(
    registry,
    "patch",
    { path: "many.txt", old_string: "x", new_string: "y", replace_all: true },
    ctx,
  );
  assert.equal(all.replacements, 2);
  assert.equal(readFileSync(join(dir, "many.txt"), "utf8"), "a y\nb y\n");
});

test("refuses to patch a sensitive file", async () => {
  const result = await callTool(registry, "patch", { path: "~/.bashrc", old_string: "a", new_string: "b" }, ctx);
  assert.match(String(result.error), /Refusing/);
});

test("a missing file is an error", async () => {
  const result = await callTool(registry, "patch", { path: "absent.txt", old_string: "a", new_string: "b" }, ctx);
  assert.match(String(result.error), /not found/);
});

test("V4A patch mode adds, updates, moves and deletes files in one call", async () => {
  writeFileSync(join(dir, "v4a-edit.py"), SOURCE);
  writeFileSync(join(dir, "v4a-old.txt"), "bye\n");
  writeFileSync(join(dir, "v4a-move.txt"), "keep\nchange me\n");
  const patch = [
    "*** Begin Patch",
    "*** Add File: v4a-new/hello.txt",
    "+hello",
    "+world",
    "*** Update File: v4a-edit.py",
    "@@ def greet(name):",
    "-    message = 'hello ' + name",
    "+    message = 'hey ' + name",
    "     return message",
    "*** Delete File: v4a-old.txt",
    "*** Update File: v4a-move.txt",
    "*** Move to: v4a-moved.txt",
    "@@",
    " keep",
    "-change me",
    "+changed",
    "*** End Patch",
  ].join("\n");
  const result = await callTool(registry, "patch", { mode: "patch", patch }, ctx);
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(readFileSync(join(dir, "v4a-new/hello.txt"), "utf8"), "hello\nworld\n");
  assert.equal(readFileSync(join(dir, "v4a-edit.py"), "utf8"), SOURCE.replace("'hello '", "'hey '"));
  assert.equal(existsSync(join(dir, "v4a-old.txt")), false);
  assert.equal(existsSync(join(dir, "v4a-move.txt")), false);
  assert.equal(readFileSync(join(dir, "v4a-moved.txt"), "utf8"), "keep\nchanged\n");
  assert.deepEqual(result.files_created, ["v4a-new/hello.txt", "v4a-moved.txt"]);
  assert.deepEqual(result.files_deleted, ["v4a-old.txt", "v4a-move.txt"]);
  assert.match(String(result.diff), /\+\+\+ b\/v4a-edit\.py/);
});

test("a V4A hunk that does not apply changes no file at all", async () => {
  writeFileSync(join(dir, "atomic-a.txt"), "one\n");
  writeFileSync(join(dir, "atomic-b.txt"), "two\n");
  const patch = [
    "*** Begin Patch",
    "*** Update File: atomic-a.txt",
    "-one",
    "+ONE",
    "*** Update File: atomic-b.txt",
    "-missing line",
    "+whatever",
    "*** End Patch",
  ].join("\n");
  const result = await callTool(registry, "patch", { mode: "patch", patch }, ctx);
  assert.equal(result.success, false);
  assert.match(String(result.error), /Hunk 1 of atomic-b\.txt/);
  assert.equal(readFileSync(join(dir, "atomic-a.txt"), "utf8"), "one\n");
});

test("the anchor after @@ picks the right one of repeated blocks", async () => {
  writeFileSync(join(dir, "anchor.py"), "def a():\n    return 1\n\ndef b():\n    return 1\n");
  const patch = [
    "*** Begin Patch",
    "*** Update File: anchor.py",
    "@@ def b():",
    "-    return 1",
    "+    return 2",
    "*** End Patch",
  ].join("\n");
  const result = await callTool(registry, "patch", { mode: "patch", patch }, ctx);
  assert.equal(result.success, true, JSON.stringify(result));
  assert.equal(readFileSync(join(dir, "anchor.py"), "utf8"), "def a():\n    return 1\n\ndef b():\n    return 2\n");
});

test("malformed V4A patches are rejected with a reason", () => {
  assert.throws(() => parseV4aPatch("*** Update File: x\n"), PatchParseError);
  assert.throws(
    () => parseV4aPatch("*** Begin Patch\n*** Add File: x\nno plus\n*** End Patch"),
    /must start with "\+"/,
  );
  assert.throws(() => parseV4aPatch("*** Begin Patch\n*** Add File: x\n+a\n"), /End Patch/);
});

test("an invalid patch is an error result, not an exception", async () => {
  const result = await callTool(registry, "patch", { mode: "patch", patch: "garbage" }, ctx);
  assert.match(String(result.error), /Invalid patch/);
});

test("patch is not parallel-safe and declares its path argument", () => {
  const spec = registry.get("patch");
  assert.equal(spec?.parallelSafe, false);
  assert.deepEqual(spec?.pathArgs, ["path"]);
});
