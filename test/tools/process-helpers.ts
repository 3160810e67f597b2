/** Shared helpers for tests that run real child processes. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolContext } from "../../src/tools/registry.js";

export function tempDir(prefix = "hermes-tools-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** True while `pid` is a live process (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Poll `condition` until it holds, failing after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function makeCtx(overrides: Partial<ToolContext> = {}): ToolContext {
  return { cwd: overrides.cwd ?? tempDir(), signal: new AbortController().signal, ...overrides };
}
