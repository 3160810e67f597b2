import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { importOriginalJobs } from "../../src/cron/import-original-jobs.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { tempDir } from "../state/temp-dir.js";
import { T0, world } from "./world.js";

function writeJobs(home: string, jobs: unknown[]): string {
  mkdirSync(join(home, "cron"), { recursive: true });
  const path = join(home, "cron", "jobs.json");
  writeFileSync(path, JSON.stringify({ jobs, updated_at: "2026-11-20T08:00:00" }, null, 2));
  return path;
}

const ORIGINAL_JOBS = [
  {
    id: "a1b2c3d4e5f6",
    name: "Morning inbox",
    prompt: "Summarise my inbox",
    skills: ["inbox-triage"],
    model: "claude-x",
    provider: "anthropic",
    schedule: { kind: "cron", expr: "0 9 * * *", display: "0 9 * * *" },
    schedule_display: "0 9 * * *",
    repeat: { times: null, completed: 12 },
    enabled: true,
    state: "scheduled",
    created_at: "2026-10-01T08:00:00+00:00",
    next_run_at: "2026-11-25T09:00:00+00:00",
    last_run_at: "2026-11-24T09:00:03+00:00",
    last_status: "ok",
    deliver: "telegram",
    origin: { platform: "telegram", chat_id: -100123, chat_name: "me", thread_id: null },
    context_from: ["0f0f0f0f0f0f"],
    workdir: "/srv/project",
  },
  {
    id: "0f0f0f0f0f0f",
    name: "Disk check",
    prompt: "",
    script: "disk.sh",
    no_agent: true,
    schedule: { kind: "interval", minutes: 30, display: "every 30m" },
    repeat: { times: null, completed: 0 },
    enabled: false,
    paused_reason: "paused by the user",
    next_run_at: "2026-11-24T10:30:00+00:00",
    deliver: ["local", "discord:42"],
  },
  { id: "../../etc", prompt: "x", schedule: { kind: "interval", minutes: 5 } },
  { id: "abcabcabcabc", prompt: "x", schedule: { kind: "weekly" } },
];

test("the original's cron/jobs.json comes over with ids, schedules, skills, model, delivery and state; the file is not changed", async () => {
  const home = tempDir("hermes-jobs-import-");
  const path = writeJobs(home, ORIGINAL_JOBS);
  const before = readFileSync(path, "utf8");
  const store = await openCronStore(join(home, "state.db"));
  try {
    const report = await importOriginalJobs(home, store);
    assert.deepEqual(report.added, ["a1b2c3d4e5f6", "0f0f0f0f0f0f"]);
    assert.equal(report.refused.length, 2);
    assert.match(report.refused[0] ?? "", /job \.\.\/\.\.\/etc: its id is not 12 hex characters/);
    assert.match(report.refused[1] ?? "", /abcabcabcabc: its schedule .* is not one this version runs/);
    const inbox = await store.getJob("a1b2c3d4e5f6");
    assert.deepEqual(inbox?.schedule, { kind: "cron", expr: "0 9 * * *" });
    assert.deepEqual(
      [inbox?.skills, inbox?.model, inbox?.provider, inbox?.deliver, inbox?.workdir, inbox?.contextFrom],
      [["inbox-triage"], "claude-x", "anthropic", "telegram", "/srv/project", ["0f0f0f0f0f0f"]],
    );
    assert.deepEqual(inbox?.origin, { platform: "telegram", chatId: "-100123", threadId: null, userId: null });
    assert.deepEqual(inbox?.repeat, { times: null, completed: 12 });
    assert.equal(inbox?.nextRunAt, Date.parse("2026-11-25T09:00:00Z"));
    assert.equal(inbox?.createdAt, Date.parse("2026-10-01T08:00:00Z"));
    assert.equal(inbox?.state, "scheduled");
    const disk = await store.getJob("0f0f0f0f0f0f");
    assert.deepEqual([disk?.state, disk?.enabled, disk?.pausedReason], ["paused", false, "paused by the user"]);
    assert.deepEqual([disk?.script, disk?.noAgent, disk?.deliver], ["disk.sh", true, "local,discord:42"]);

    const again = await importOriginalJobs(home, store);
    assert.deepEqual([again.added, again.alreadyHere], [[], ["a1b2c3d4e5f6", "0f0f0f0f0f0f"]]);
    assert.equal(readFileSync(path, "utf8"), before);
  } finally {
    store.close();
  }
});

test("an imported job is fired by the ticker like one made here", async () => {
  const w = await world({ fallback: { text: "imported and fired" } });
  try {
    writeJobs(w.gw.home, [
      {
        id: "123456abcdef",
        name: "imported",
        prompt: "say hello",
        schedule: { kind: "interval", minutes: 60 },
        repeat: { times: null, completed: 0 },
        enabled: true,
        next_run_at: new Date(T0).toISOString(),
        deliver: "test",
      },
    ]);
    await importOriginalJobs(w.gw.home, w.cron);
    w.clock.now = T0 + 1000;
    const report = await w.ticker().tick();
    assert.deepEqual(report.fired, ["123456abcdef"]);
    assert.equal((await w.cron.runs("123456abcdef"))[0]?.status, "ok");
  } finally {
    await w.close();
  }
});

test("a jobs.json that is not JSON is reported and nothing is imported", async () => {
  const home = tempDir("hermes-jobs-import-");
  mkdirSync(join(home, "cron"));
  writeFileSync(join(home, "cron", "jobs.json"), "{ not json");
  const store = await openCronStore(join(home, "state.db"));
  try {
    await assert.rejects(importOriginalJobs(home, store), /jobs\.json is not valid JSON .*nothing was imported/);
    assert.deepEqual(await store.listJobs({ all: true }), []);
  } finally {
    store.close();
  }
});

test("a recurring job the original had not scheduled yet gets its next time from now; a spent one-shot is completed", async () => {
  const { jobFromOriginal } = await import("../../src/cron/import-original-jobs.js");
  const now = Date.parse("2026-11-24T10:00:00Z");
  const fresh = jobFromOriginal({ id: "aaaaaaaaaaaa", prompt: "p", schedule: { kind: "interval", minutes: 30 } }, now);
  assert.deepEqual([fresh.state, fresh.nextRunAt], ["scheduled", now + 30 * 60_000]);
  const spent = jobFromOriginal(
    { id: "bbbbbbbbbbbb", prompt: "p", schedule: { kind: "once", run_at: "2026-11-01T09:00:00+00:00" } },
    now,
  );
  assert.deepEqual([spent.state, spent.nextRunAt], ["completed", null]);
});
