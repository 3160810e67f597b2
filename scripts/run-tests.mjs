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
const child = spawn(process.execPath, testArgs, {
  stdio: "inherit",
  env: { ...process.env, HERMES_TEST: "1" },
});
child.on("exit", (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
