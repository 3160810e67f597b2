import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { MemoryStore } from "../../src/state/memory-store.js";

const STORE_MODULE = pathToFileURL(join(process.cwd(), "src/state/memory-store.ts")).href;

/** A child process that adds `count` entries named after `writer` to MEMORY.md in `dir`. */
function writer(dir: string, name: string, count: number): Promise<number | null> {
  const script = `
    const { MemoryStore } = await import(${JSON.stringify(STORE_MODULE)});
    const store = new MemoryStore({ dir: ${JSON.stringify(dir)}, memoryCharLimit: 100000 });
    for (let i = 0; i < ${count}; i++) {
      const result = store.add("memory", "${name} remembers fact number " + i);
      if (!result.success) { console.error(result.error); process.exit(1); }
    }`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return new Promise((resolve) => child.on("close", resolve));
}

test("processes adding memory entries at the same time lose none of them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-memory-procs-"));
  try {
    const names = ["alpha", "bravo", "charlie", "delta"];
    const codes = await Promise.all(names.map((name) => writer(dir, name, 15)));
    assert.deepEqual(codes, [0, 0, 0, 0]);
    const entries = new MemoryStore({ dir, memoryCharLimit: 100_000 }).entries("memory");
    assert.equal(entries.length, 60);
    for (const name of names) assert.equal(entries.filter((e) => e.startsWith(name)).length, 15);
    assert.equal(existsSync(join(dir, "MEMORY.md.lock")), false, "no lock is left behind");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a change that cannot get the lock fails with a message the model can act on", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-memory-lock-"));
  try {
    const store = new MemoryStore({ dir, lockTimeoutMs: 100 });
    const lock = join(dir, "MEMORY.md.lock");
    writeFileSync(lock, JSON.stringify({ pid: 1, token: "another writer" }));
    const blocked = store.add("memory", "waits for the other writer");
    assert.equal(blocked.success, false);
    assert.match(blocked.error ?? "", /being changed by another process; try again/);
    rmSync(lock);
    assert.equal(store.add("memory", "waits for the other writer").success, true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
