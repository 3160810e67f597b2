import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerStatusCommand, statusLines } from "../../src/cli/commands/status.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { SqliteSessionStore } from "../../src/state/sqlite-session-store.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const HOUR_MS = 3_600_000;

const job = (name: string, extra = {}) => ({
  name,
  prompt: `do ${name}`,
  schedule: { kind: "interval" as const, minutes: 60 },
  scheduleDisplay: "every hour",
  ...extra,
});

async function populatedHome(): Promise<string> {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "model:\n  provider: openrouter\n  default: test/model-1\n");
  mkdirSync(join(home, "skills", "demo"), { recursive: true });
  writeFileSync(join(home, "skills", "demo", "SKILL.md"), "x".repeat(5000));
  const store = await SqliteSessionStore.open(join(home, "state.db"));
  await store.createSession({ id: "s1" });
  await store.appendMessages("s1", [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello" },
  ]);
  await store.createSession({ id: "s2" });
  await store.appendMessage("s2", { role: "user", content: "again" });
  store.close();
  const cron = await openCronStore(join(home, "state.db"));
  const now = Date.now();
  await cron.createJob(job("later digest", { nextRunAt: now + 5 * HOUR_MS }));
  await cron.createJob(job("morning news", { nextRunAt: now + HOUR_MS }));
  await cron.createJob(job("on hold", { nextRunAt: now + HOUR_MS, state: "paused", enabled: false }));
  const failing = await cron.createJob(job("flaky check", { nextRunAt: now + 2 * HOUR_MS }));
  await cron.updateJob(failing.id, { lastStatus: "error", lastError: "provider timed out", lastRunAt: now - HOUR_MS });
  cron.close();
  mkdirSync(join(home, "gateway"));
  const state = {
    pid: process.pid,
    startedAt: now - HOUR_MS,
    updatedAt: now,
    apiServer: "http://127.0.0.1:8642",
    platforms: {
      telegram: { state: "connected", since: now - HOUR_MS },
      discord: { state: "reconnecting", attempt: 3, lastError: "HTTP 401" },
    },
  };
  writeFileSync(join(home, "gateway", "state.json"), JSON.stringify(state));
  return home;
}

test("status shows the model, sessions, gateway, cron and disk use of a home on one screen", async () => {
  const home = await populatedHome();
  const text = (await run(registerStatusCommand, home, ["status"])).out;
  assert.match(text, new RegExp(`^Home {8}${home}$`, "m"));
  assert.match(text, /^Model {7}openrouter \/ test\/model-1 \(from config\.yaml\)$/m);
  assert.match(text, /^Sessions {4}2 sessions, 3 messages$/m);
  assert.match(text, new RegExp(`store ${join(home, "state.db")} \\(\\d+(\\.\\d)? KiB\\)`));
  assert.match(text, /^Gateway {5}running, pid \d+, since /m);
  assert.match(text, /API server http:\/\/127\.0\.0\.1:8642/);
  assert.match(text, /telegram connected, discord reconnecting \(attempt 3: HTTP 401\)/);
  assert.match(text, /^Cron {8}4 jobs \(1 paused or blocked\)$/m);
  assert.match(text, /next fire: morning news at \d{4}-\d\d-\d\d \d\d:\d\d/);
  assert.match(text, /last failure: flaky check at .*: provider timed out/);
  assert.match(text, /^Disk {8}\d+(\.\d)? (KiB|MiB) in all$/m);
  assert.match(text, /^ {12}skills\/ +4\.9 KiB$/m);
  assert.match(text, /^ {12}state\.db +\d/m);
  assert.match(text, /^ {12}config\.yaml +\d+ B$/m);
});

test("status of a fresh home says what is missing, without creating a session store", async () => {
  const home = tempHome();
  const lines = (await statusLines(home, {})).join("\n");
  assert.match(lines, /^Model {7}.*no provider configured \(run hermes setup\)$/m);
  assert.match(lines, /^Sessions {4}none yet \(no session store\)$/m);
  assert.match(lines, /^Gateway {5}not running/m);
  assert.match(lines, /^Cron {8}no jobs$/m);
  assert.match(lines, /^Disk {8}0 B in all$/m);
  const missing = join(home, "nowhere");
  assert.match((await statusLines(missing, {})).join("\n"), /does not exist yet: run hermes setup/);
  assert.deepEqual(readdirSync(home), [], "status wrote nothing");
});

test("status reports a broken config.yaml in its own line and still shows the rest", async () => {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), "agent:\n  max_turns: lots\n");
  const lines = (await statusLines(home, {})).join("\n");
  assert.match(lines, /^Model {7}config\.yaml cannot be read: .*max_turns.* \(hermes config check\)$/m);
  assert.match(lines, /^Sessions {4}none yet/m);
});
