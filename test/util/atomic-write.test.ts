import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { atomicWriteFile } from "../../src/util/atomic-write.js";

function withDir(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "hermes-atomic-write-"));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const modeOf = (path: string) => statSync(path).mode & 0o777;
/** The mode this process gives a new file, 0o666 less its umask. */
function defaultMode(dir: string): number {
  const probe = join(dir, "probe");
  writeFileSync(probe, "");
  const mode = modeOf(probe);
  rmSync(probe);
  return mode;
}

test("the content arrives by rename, with the exact mode asked for (0644 unless told), and parents are made", () => {
  withDir((dir) => {
    const path = join(dir, "a", "b", "state.json");
    atomicWriteFile(path, "one");
    assert.equal(readFileSync(path, "utf8"), "one");
    assert.equal(modeOf(path), 0o644);
    const before = statSync(path).ino;
    atomicWriteFile(path, new Uint8Array([116, 119, 111]), { mode: 0o600 });
    assert.equal(readFileSync(path, "utf8"), "two");
    assert.equal(modeOf(path), 0o600, "exactly, whatever the umask");
    assert.notEqual(statSync(path).ino, before);
    assert.deepEqual(readdirSync(join(dir, "a", "b")), ["state.json"]);
  });
});

test("keepMode keeps the replaced file's mode, and gives a new file the process's default", () => {
  withDir((dir) => {
    const script = join(dir, "run.sh");
    writeFileSync(script, "#!/bin/sh\n");
    chmodSync(script, 0o750);
    atomicWriteFile(script, "#!/bin/sh\necho hi\n", { keepMode: true, durable: false });
    assert.equal(modeOf(script), 0o750);
    const fresh = join(dir, "new.txt");
    atomicWriteFile(fresh, "x", { keepMode: true });
    assert.equal(modeOf(fresh), defaultMode(dir));
  });
});

test("without createDirectories a missing directory is an error, and nothing is left behind", () => {
  withDir((dir) => {
    assert.throws(
      () => atomicWriteFile(join(dir, "missing", "f.txt"), "x", { createDirectories: false }),
      (error: NodeJS.ErrnoException) => error.code === "ENOENT",
    );
    assert.deepEqual(readdirSync(dir), []);
  });
});

test("a write that fails leaves the target as it was and no temporary file", () => {
  withDir((dir) => {
    const target = join(dir, "target");
    // A directory where the file should go: the rename fails after the content was written.
    mkdirSync(target);
    writeFileSync(join(target, "inside"), "kept");
    assert.throws(() => atomicWriteFile(target, "new"));
    assert.deepEqual(readdirSync(dir), ["target"]);
    assert.equal(readFileSync(join(target, "inside"), "utf8"), "kept");
  });
});
