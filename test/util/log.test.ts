import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { configureLog, flushLog, formatLogLine, log, logEnabled, stopLog } from "../../src/util/log.js";
import { tempDir } from "../state/temp-dir.js";

afterEach(() => stopLog());

test("a line has the time, level, component, message and key=value fields, quoted where needed", () => {
  const line = formatLogLine("info", "llm", "reply", {
    provider: "custom",
    ms: 812,
    note: "two words",
    none: undefined,
  });
  assert.match(
    line,
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}llm reply provider=custom ms=812 note="two words"$/,
  );
  assert.doesNotMatch(formatLogLine("warn", "x", "multi\nline"), /\n/);
});

test("lines are redacted, files are private, and errors.log gets only warnings and errors", () => {
  const dir = join(tempDir("hermes-log-"), "logs");
  configureLog(dir, { level: "info" });
  log("debug", "agent", "not at this level");
  log("info", "agent", "run start", { session: "s1" });
  log("warn", "llm", "call failed", { message: "bad key sk-proj-abcdefghijklmnopqrstuvwxyz0123456789" });
  flushLog();
  const all = readFileSync(join(dir, "agent.log"), "utf8");
  const errors = readFileSync(join(dir, "errors.log"), "utf8");
  assert.match(all, /run start session=s1/);
  assert.doesNotMatch(all, /not at this level/);
  assert.doesNotMatch(all, /abcdefghijklmnopqrstuvwxyz0123456789/);
  assert.doesNotMatch(errors, /run start/);
  assert.match(errors, /call failed/);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dir, "agent.log")).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, "errors.log")).mode & 0o777, 0o600);
});

test("files rotate by size, keep the configured number of backups, and lose no line", () => {
  const dir = join(tempDir("hermes-log-"), "logs");
  configureLog(dir, { maxBytes: 2048, backups: 2 });
  for (let i = 0; i < 200; i++) {
    log("info", "test", `line ${i}`, { padding: "x".repeat(40) });
    if (i % 10 === 9) flushLog();
  }
  flushLog();
  assert.ok(existsSync(join(dir, "agent.log.1")));
  assert.ok(existsSync(join(dir, "agent.log.2")));
  assert.equal(existsSync(join(dir, "agent.log.3")), false, "only two backups are kept");
  for (const file of ["agent.log", "agent.log.1", "agent.log.2"]) {
    assert.ok(statSync(join(dir, file)).size <= 2048 + 1024, `${file} stays near the limit`);
  }
  const newest = readFileSync(join(dir, "agent.log"), "utf8");
  assert.match(newest, /line 199 /);
  const kept = ["agent.log.2", "agent.log.1", "agent.log"].map((f) => readFileSync(join(dir, f), "utf8")).join("");
  const numbers = [...kept.matchAll(/line (\d+) /g)].map((m) => Number(m[1]));
  assert.deepEqual(
    numbers,
    Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i),
    "no gaps",
  );
});

test("once stopped, logging is off: nothing more is written", () => {
  const dir = join(tempDir("hermes-log-"), "logs");
  configureLog(dir);
  log("info", "x", "kept");
  stopLog();
  assert.equal(logEnabled(), false);
  log("error", "x", "dropped");
  flushLog();
  const text = readFileSync(join(dir, "agent.log"), "utf8");
  assert.match(text, /kept/);
  assert.doesNotMatch(text, /dropped/);
});
