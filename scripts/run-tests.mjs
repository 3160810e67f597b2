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
  stdio: ["inherit", "pipe", "inherit"],
  env: { ...process.env, HERMES_TEST: "1" },
  detached: bail,
});
// The TAP report names a failure where it happens, among thousands of lines; whoever reads only
// the end of a long log (a CI summary) needs them repeated there.
const failures = [];
let capture;
let bailed = false;
let partial = "";
function readLine(line) {
  if (capture) {
    capture.lines.push(line);
    if (line === `${capture.indent}  ...` || capture.lines.length >= 40) {
      failures.push(capture.lines.join("\n"));
      capture = undefined;
    }
    return;
  }
  const failed = /^(\s*)not ok \d+/.exec(line);
  if (failed) capture = { indent: failed[1], lines: [line] };
}
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  const lines = (partial + chunk.toString("utf8")).split("\n");
  partial = lines.pop() ?? "";
  for (const line of lines) readLine(line);
  if (bail && !bailed && failures.length + (capture ? 1 : 0) > 0) {
    bailed = true;
    process.kill(-child.pid, "SIGKILL");
  }
});
child.on("exit", (code, signal) => {
  if (partial) readLine(partial);
  if (capture) failures.push(capture.lines.join("\n"));
  if (failures.length > 0 && !bail) {
    const shown = failures.slice(0, 20);
    process.stdout.write(`\n# ${failures.length} failing (a suite that fails is listed with its test):\n`);
    for (const block of shown) process.stdout.write(`${block}\n`);
    if (failures.length > shown.length)
      process.stdout.write(`# ... and ${failures.length - shown.length} more above\n`);
  }
  process.exit(bailed || signal ? 1 : (code ?? 1));
});
