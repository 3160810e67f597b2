import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { registerCuratorCommands } from "../../src/cli/commands/curator.js";
import { newestSessionActivity, scheduledCuratorRun } from "../../src/runtime/learning/curator-schedule.js";
import { openRuntime } from "../../src/runtime/runtime.js";
import { loadConfig } from "../../src/state/config.js";
import { hermesPaths } from "../../src/state/paths.js";
import { openSessionStore, type SessionStore } from "../../src/state/session-store.js";
import { lastCuratorRun } from "../../src/tools/skills/curator.js";
import { run } from "../cli/commands/state-command-harness.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { curatorHome, DAY, HOUR, modelConfig } from "./curator-helpers.js";

const archived = (home: string, name: string) => existsSync(join(home, "skills", ".archive", name, "SKILL.md"));

/** A home with one skill due for archiving and a real session store holding sessions last active at `active`. */
async function homeWithSessions(
  now: number,
  config: string,
  active: number[],
): Promise<{ home: string; store: SessionStore }> {
  const home = curatorHome({ "old-report": 120, "fresh-deploy": 1 }, now, config);
  const store = await openSessionStore(hermesPaths(home).stateDb);
  for (const at of active) await store.createSession({ source: "cli", startedAt: at });
  return { home, store };
}

async function scheduled(home: string, store: SessionStore, now: number) {
  return scheduledCuratorRun({
    home,
    config: loadConfig({ home }).config,
    notice: () => {},
    lastSessionActivity: () => newestSessionActivity(store),
    now,
  });
}

test("a scheduled run waits until no session has been active for curator.min_idle_hours; hermes curator run does not wait", async () => {
  const now = Date.now();
  const busy = await homeWithSessions(now, "", [now - 5 * HOUR, now - 1 * HOUR]);
  const result = await scheduled(busy.home, busy.store, now);
  assert.ok("skipped" in result);
  assert.match(result.skipped, /active less than 2 hours ago \(curator\.min_idle_hours\)/);
  assert.ok(!archived(busy.home, "old-report"), "nothing archived while the user is around");
  assert.equal(lastCuratorRun(busy.home), undefined, "a skipped run is not recorded, so the next start tries again");

  const byHand = await run(registerCuratorCommands, busy.home, ["curator", "run"]);
  assert.match(byHand.out, /^archived old-report → /m);
  assert.ok(archived(busy.home, "old-report"));
  busy.store.close();

  const idle = await homeWithSessions(now, "", [now - 3 * HOUR]);
  const ran = await scheduled(idle.home, idle.store, now);
  assert.ok(!("skipped" in ran));
  assert.deepEqual(
    ran.report.archived.map((item) => item.name),
    ["old-report"],
  );
  idle.store.close();

  const empty = await homeWithSessions(now, "", []);
  assert.ok(!("skipped" in (await scheduled(empty.home, empty.store, now))), "no session at all: idle");
  empty.store.close();
});

test("curator.min_idle_hours changes the wait: 0 runs at once, 5 still waits after 3 idle hours", async () => {
  const now = Date.now();
  const none = await homeWithSessions(now, "curator:\n  min_idle_hours: 0\n", [now - 60_000]);
  assert.ok(!("skipped" in (await scheduled(none.home, none.store, now))));
  assert.ok(archived(none.home, "old-report"));
  none.store.close();
  const long = await homeWithSessions(now, "curator:\n  min_idle_hours: 5\n", [now - 3 * HOUR]);
  const result = await scheduled(long.home, long.store, now);
  assert.ok("skipped" in result && /5 hours/.test(result.skipped));
  long.store.close();
});

test("curator.enabled, the resolved interval and learning.mode decide whether a scheduled run is due", async () => {
  const now = Date.now();
  const due = async (config: string) => {
    const { home, store } = await homeWithSessions(now, config, []);
    writeFileSync(
      join(home, "skills", ".curator.json"),
      JSON.stringify({ trackingSince: now - 365 * DAY, lastRunAt: now - 30 * HOUR }),
    );
    const result = await scheduled(home, store, now);
    store.close();
    return "skipped" in result ? result.skipped : "ran";
  };
  assert.equal(await due(""), "the last run is less than 7 days old");
  assert.equal(await due("curator:\n  interval_hours: 24\n"), "ran");
  assert.equal(await due("curator:\n  interval_hours: 48\n"), "the last run is less than 2 days old");
  assert.equal(
    await due("curator:\n  interval_hours: 48\nlearning:\n  curator:\n    interval_days: 1\n"),
    "ran",
    "learning.curator.interval_days wins",
  );
  assert.equal(await due("curator:\n  enabled: false\n  interval_hours: 24\n"), "curator.enabled is false");
  assert.equal(await due("curator:\n  interval_hours: 24\nlearning:\n  mode: off\n"), "learning.mode is off");
});

test("an interactive runtime starts the scheduled run when the user has been away, and not right after a session", async () => {
  const fake = await startFakeProvider({ fallback: { text: "ok" } });
  try {
    const now = Date.now();
    const open = async (sessionAt?: number) => {
      const home = curatorHome({ "old-report": 120 }, now, modelConfig(fake));
      if (sessionAt !== undefined) {
        const store = await openSessionStore(hermesPaths(home).stateDb);
        await store.createSession({ source: "telegram", startedAt: sessionAt });
        store.close();
      }
      const notices: string[] = [];
      const runtime = await openRuntime({
        home,
        platform: "cli",
        interactive: true,
        localServers: false,
        skipDotEnv: true,
        callbacks: { onNotice: (message) => notices.push(message) },
      });
      await runtime.close();
      return { home, notices };
    };
    const away = await open(now - 3 * HOUR);
    assert.ok(archived(away.home, "old-report"));
    assert.ok(away.notices.some((line) => /curator: archived unused skill\(s\) old-report/.test(line)));
    const recent = await open(now - 10 * 60_000);
    assert.ok(!archived(recent.home, "old-report"), "a session 10 minutes ago (any platform) holds the run back");
    assert.equal(lastCuratorRun(recent.home), undefined);
  } finally {
    await fake.close();
  }
});
