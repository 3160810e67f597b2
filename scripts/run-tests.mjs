#!/usr/bin/env node
// Runs every test/**/*.test.ts file with node:test through tsx. Node 20 does not expand
// globs itself, so the list is gathered here. Extra arguments filter files by substring.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";

function collect(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "fixtures" && entry.name !== "node_modules") found.push(...collect(path));
    } else if (entry.name.endsWith(".test.ts")) {
      found.push(relative(process.cwd(), path));
    }
  }
  return found;
}

const filters = process.argv.slice(2);
const files = collect("test")
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(" ")}`);
  process.exit(1);
}
// A test that hangs fails by name after two minutes instead of holding the whole run.
const testArgs = ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=120000", ...files];
// HERMES_TEST_BAIL=1 (set by npm run mutate) stops at the first failing test: a mutant is killed
// as soon as one test notices it, and the rest of the run would only cost time.
const bail = process.env.HERMES_TEST_BAIL === "1";
const child = spawn(process.execPath, testArgs, {
  stdio: ["inherit", bail ? "pipe" : "inherit", "inherit"],
  env: { ...process.env, HERMES_TEST: "1" },
  detached: bail,
});
let bailed = false;
if (bail) {
  let tail = "";
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    const text = tail + chunk.toString("utf8");
    if (!bailed && /^\s*not ok \d+/m.test(text)) {
      bailed = true;
      process.kill(-child.pid, "SIGKILL");
    }
    tail = text.slice(text.lastIndexOf("\n") + 1);
  });
}
child.on("exit", (code, signal) => process.exit(bailed || signal ? 1 : (code ?? 1)));
