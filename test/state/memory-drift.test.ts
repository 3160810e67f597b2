import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { findDrift, readMemoryFile } from "../../src/state/memory-file.js";
import { MemoryStore } from "../../src/state/memory-store.js";
import { tempDir } from "./temp-dir.js";

const APPENDED = `\n\n## Vendor Master\n${"x".repeat(800)}`;

function drifted(target: "memory" | "user" = "memory") {
  const dir = tempDir("hermes-memory-drift-");
  const store = new MemoryStore({ dir, memoryCharLimit: 500, userCharLimit: 300 });
  store.add(target, "User likes brevity.");
  const path = store.path(target);
  writeFileSync(path, `${readFileSync(path, "utf8")}${APPENDED}`);
  return { dir, store, path, before: readFileSync(path) };
}

function backups(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.includes(".bak."));
}

test("a replace that would drop text appended by hand is refused, and the file is copied", () => {
  const { dir, store, path, before } = drifted();
  const from = Math.floor(Date.now() / 1000);
  const result = store.replace("memory", "User likes", "User prefers concise answers.");
  const to = Math.floor(Date.now() / 1000);
  assert.equal(result.success, false);
  assert.deepEqual(readFileSync(path), before);
  const stamp = Number(result.driftBackup?.slice(`${path}.bak.`.length));
  assert.ok(stamp >= from && stamp <= to, String(result.driftBackup));
  assert.equal(result.driftBackup, `${path}.bak.${stamp}`);
  assert.deepEqual(readFileSync(result.driftBackup!), before);
  assert.deepEqual(backups(dir), [`MEMORY.md.bak.${stamp}`]);
  assert.equal(
    result.error,
    "Refusing to rewrite MEMORY.md: one entry is 839 characters, more than the whole file's 500-character limit, " +
      "so rewriting it could drop text that was not saved through the memory tool (a hand edit, a shell append or " +
      `another program). A copy was saved to ${path}.bak.${stamp}. Move the extra text out of the file or turn it ` +
      "into §-separated entries (memory(action=add) can re-save its facts one by one), then retry.",
  );
  assert.deepEqual(result.currentEntries, [`User likes brevity.\n\n\n## Vendor Master\n${"x".repeat(800)}`]);
});

test("remove is guarded the same way, for USER.md too", () => {
  const { store, path, before } = drifted("user");
  const result = store.remove("user", "User likes");
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /^Refusing to rewrite USER\.md: one entry is 839 characters, more than the whole file's 300-character limit,/,
  );
  assert.deepEqual(readFileSync(path), before);
  assert.deepEqual(readFileSync(result.driftBackup!), before);
});

test("an add still succeeds under drift and keeps the appended text", () => {
  const dir = tempDir("hermes-memory-drift-add-");
  const store = new MemoryStore({ dir, memoryCharLimit: 500 });
  store.add("memory", "Existing entry.");
  writeFileSync(join(dir, "MEMORY.md"), "Existing entry.\n\nextra content no delimiter");
  const result = store.add("memory", "New entry.");
  assert.equal(result.success, true);
  assert.equal(
    readFileSync(join(dir, "MEMORY.md"), "utf8"),
    "Existing entry.\n\nextra content no delimiter\n§\nNew entry.\n",
  );
  assert.deepEqual(backups(dir), []);
});

test("a file that is not the store's own §-list is left alone by replace and remove", () => {
  const dir = tempDir("hermes-memory-drift-shape-");
  const store = new MemoryStore({ dir });
  writeFileSync(join(dir, "MEMORY.md"), "alpha\n\n§\n\nbeta\n");
  const result = store.remove("memory", "alpha");
  assert.equal(result.success, false);
  assert.match(
    String(result.error),
    /^Refusing to rewrite MEMORY\.md: the file is not a plain §-separated list of entries, so/,
  );
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "alpha\n\n§\n\nbeta\n");
  assert.equal(backups(dir).length, 1);
});

test("files the store wrote, Windows line endings and repeated entries are not drift", () => {
  const dir = tempDir("hermes-memory-no-drift-");
  const store = new MemoryStore({ dir, memoryCharLimit: 10 });
  store.add("memory", "a");
  store.add("memory", "b");
  assert.deepEqual(store.remove("memory", "a").entries, ["b"]);
  writeFileSync(join(dir, "MEMORY.md"), "a\r\n§\r\nb\r\n");
  assert.deepEqual(store.remove("memory", "a").entries, ["b"]);
  writeFileSync(join(dir, "MEMORY.md"), "c\n§\nc\n§\nd");
  assert.deepEqual(store.remove("memory", "c").entries, ["d"]);
  writeFileSync(join(dir, "MEMORY.md"), "y".repeat(10));
  assert.deepEqual(store.replace("memory", "y", "z").entries, ["z"]);
  assert.deepEqual(backups(dir), []);
});

test("findDrift names the reason, or null for a clean file", () => {
  assert.equal(findDrift("", 5), null);
  assert.equal(findDrift("abcde\n§\nabcde\n", 5), null);
  assert.equal(findDrift("abcdef", 5), "one entry is 6 characters, more than the whole file's 5-character limit");
  assert.equal(findDrift("a\n§\n§\nb", 5), "the file is not a plain §-separated list of entries");
  assert.equal(findDrift("a\n §\nb", 5), "the file is not a plain §-separated list of entries");
  assert.equal(findDrift("  a\n§\nb\n\n", 5), null);
});

test("a failed backup is reported and the file is still left alone", () => {
  const { store, path, before } = drifted();
  const now = Math.floor(Date.now() / 1000);
  for (let s = now; s <= now + 2; s++) mkdirSync(`${path}.bak.${s}`);
  const result = store.remove("memory", "User likes");
  assert.equal(result.success, false);
  assert.match(String(result.driftBackup), /\.bak\.\d+ \(not written\)$/);
  assert.match(String(result.error), /\. Saving a copy failed; the file itself is unchanged\. Move the extra text/);
  assert.deepEqual(readFileSync(path), before);
});

test("drift refusals count as failures like any other", () => {
  const { store } = drifted();
  for (let i = 0; i < 3; i++) assert.ok(store.remove("memory", "User").currentEntries);
  const fourth = store.remove("memory", "User");
  assert.equal(fourth.done, true);
  assert.equal(fourth.currentEntries, undefined);
});

const NOT_UTF8 = Buffer.from([0xff, 0xfe, ...Buffer.from(" invalid "), 0x80, ...Buffer.from(" memory content")]);

test("a file that is not valid UTF-8 is never rewritten", () => {
  const dir = tempDir("hermes-memory-bytes-");
  const store = new MemoryStore({ dir });
  const path = join(dir, "MEMORY.md");
  writeFileSync(path, NOT_UTF8);
  const error =
    "MEMORY.md could not be read (not valid UTF-8), so it was left unchanged. Repair or move the file by hand, then retry.";
  const calls = [
    () => store.add("memory", "New entry."),
    () => store.replace("memory", "memory", "New entry."),
    () => store.remove("memory", "memory"),
  ];
  for (const call of calls) {
    const result = call();
    assert.equal(result.success, false);
    assert.equal(result.error, error);
    assert.deepEqual(result.currentEntries, ["\ufffd\ufffd invalid \ufffd memory content"]);
  }
  assert.deepEqual(readFileSync(path), NOT_UTF8);
  assert.deepEqual(store.entries("memory"), ["\ufffd\ufffd invalid \ufffd memory content"]);
});

test("a memory path that cannot be read as a file is not replaced", () => {
  const dir = tempDir("hermes-memory-dir-");
  mkdirSync(join(dir, "USER.md"));
  const store = new MemoryStore({ dir });
  const result = store.add("user", "likes tea");
  assert.equal(
    result.error,
    "USER.md could not be read (EISDIR), so it was left unchanged. Repair or move the file by hand, then retry.",
  );
  assert.deepEqual(store.entries("user"), []);
});

test("reading drops a byte-order mark and treats a missing file as empty", () => {
  const dir = tempDir("hermes-memory-bom-");
  const path = join(dir, "MEMORY.md");
  assert.deepEqual(readMemoryFile(path), { readable: true, text: "", entries: [] });
  writeFileSync(path, Buffer.from("\ufeffFirst fact.\n§\nSecond.", "utf8"));
  assert.deepEqual(readMemoryFile(path), {
    readable: true,
    text: "First fact.\n§\nSecond.",
    entries: ["First fact.", "Second."],
  });
  const store = new MemoryStore({ dir });
  assert.equal(store.remove("memory", "Second").success, true);
  assert.equal(readFileSync(path, "utf8"), "First fact.\n");
});
