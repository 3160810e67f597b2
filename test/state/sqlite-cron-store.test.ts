import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { type CronStore, openCronStore } from "../../src/state/cron-store.js";
import { runModuleWorker } from "./module-worker.js";
import { tempDir } from "./temp-dir.js";

const STORE_MODULE = pathToFileURL(join(import.meta.dirname, "..", "..", "src", "state", "cron-store.ts")).href;

async function fresh(): Promise<{ store: CronStore; path: string }> {
  const path = join(tempDir(), "state.db");
  return { store: await openCronStore(path), path };
}

const job = (name: string, nextRunAt: number | null, extra = {}) => ({
  name,
  prompt: `do ${name}`,
  schedule: { kind: "interval" as const, minutes: 60 },
  scheduleDisplay: "every hour",
  nextRunAt,
  ...extra,
});

test("jobs are created with 12-hex ids and the original's defaults, updated, listed and deleted", async () => {
  const { store, path } = await fresh();
  const created = await store.createJob(job("digest", 5000, { deliver: "telegram", skills: ["inbox"] }), 1000);
  assert.match(created.id, /^[0-9a-f]{12}$/);
  assert.equal(created.createdAt, 1000);
  assert.deepEqual(created.repeat, { times: null, completed: 0 });
  assert.equal(created.state, "scheduled");
  assert.equal(created.enabled, true);
  assert.deepEqual(created.skills, ["inbox"]);
  assert.equal(created.deliver, "telegram");
  await assert.rejects(store.createJob({ ...job("again", 1), id: created.id }), /already exists/);
  await assert.rejects(store.createJob({ ...job("bad", 1), id: "XYZ" }), /12 hex/);

  const paused = await store.updateJob(created.id, { state: "paused", pausedAt: 2000, pausedReason: "holiday" }, 2000);
  assert.equal(paused.state, "paused");
  assert.equal(paused.createdAt, 1000, "an update never rewrites the creation time");
  store.close();
  const reopened = await openCronStore(path);
  assert.equal((await reopened.getJob(created.id))?.pausedReason, "holiday");
  await reopened.updateJob(created.id, { state: "completed" });
  assert.deepEqual(await reopened.listJobs(), [], "completed jobs are listed only with all");
  assert.equal((await reopened.listJobs({ all: true })).length, 1);
  assert.equal(await reopened.deleteJob(created.id), true);
  assert.equal(await reopened.deleteJob(created.id), false);
  await assert.rejects(reopened.updateJob("000000000000", {}), /no job/);
  reopened.close();
});

test("due jobs: enabled, scheduled, next run at or before now, soonest first", async () => {
  const { store } = await fresh();
  const late = await store.createJob(job("late", 300));
  const early = await store.createJob(job("early", 100));
  await store.createJob(job("future", 10_000));
  await store.createJob(job("disabled", 50, { enabled: false }));
  await store.createJob(job("paused", 50, { state: "paused" }));
  await store.createJob(job("never", null));
  assert.deepEqual(
    (await store.dueJobs(500)).map((j) => j.id),
    [early.id, late.id],
  );
  store.close();
});

test("a fire is claimed once: the next run moves on with the run record, and a second claim gets nothing", async () => {
  const { store } = await fresh();
  const { id } = await store.createJob(job("digest", 1000));
  const run = await store.claimFire(id, 1000, 4600, 1005);
  assert.ok(run);
  assert.equal(run.status, "running");
  assert.equal(run.scheduledFor, 1000);
  assert.equal(await store.claimFire(id, 1000, 4600, 1006), null, "the same fire again");
  const after = await store.getJob(id);
  assert.equal(after?.nextRunAt, 4600);
  assert.equal(after?.lastRunAt, 1005);
  // `hermes cron run` (no scheduled time) runs now and leaves the schedule alone.
  const manual = await store.claimFire(id, null, null, 2000);
  assert.ok(manual);
  assert.equal((await store.getJob(id))?.nextRunAt, 4600);
  assert.deepEqual(
    (await store.unfinishedRuns()).map((r) => r.id),
    [run.id, manual.id],
  );
  store.close();
});

test("finishing a run records its outcome on the job; repeat counts fires and completes the job", async () => {
  const { store } = await fresh();
  const { id } = await store.createJob(job("twice", 1000, { repeat: { times: 2, completed: 0 } }));
  const first = await store.claimFire(id, 1000, 2000, 1000);
  const ended = await store.finishRun(
    first!.id,
    {
      status: "ok",
      outputPath: "/h/cron/output/x/1.md",
      deliveries: [
        { target: "telegram", state: "queued" },
        { target: "discord:9", state: "failed", error: "discord is not configured" },
      ],
    },
    1100,
  );
  assert.equal(ended.finishedAt, 1100);
  assert.equal(ended.outputPath, "/h/cron/output/x/1.md");
  assert.equal(ended.deliveries.length, 2);
  let state = await store.getJob(id);
  assert.equal(state?.lastStatus, "ok");
  assert.equal(state?.lastDeliveryError, "discord is not configured");
  assert.equal(state?.repeat.completed, 1);
  assert.equal(state?.state, "scheduled");
  await assert.rejects(store.finishRun(first!.id, { status: "ok" }), /already ended/);

  const second = await store.claimFire(id, 2000, 3000, 2000);
  await store.finishRun(second!.id, { status: "error", reason: "the model call failed: 500" }, 2100);
  state = await store.getJob(id);
  assert.equal(state?.lastStatus, "error");
  assert.equal(state?.lastError, "the model call failed: 500");
  assert.equal(state?.state, "completed");
  assert.equal(state?.nextRunAt, null);
  assert.deepEqual(
    (await store.runs(id)).map((r) => r.status),
    ["error", "ok"],
  );
  store.close();
});

test("a missed fire is recorded as skipped with its reason, and only once", async () => {
  const { store } = await fresh();
  const { id } = await store.createJob(job("missed", 1000));
  const skip = await store.recordSkip(id, 1000, "missed by 3 h (grace 120 s); fast-forwarded", 20_000, 11_000);
  assert.equal(skip?.status, "skipped");
  assert.equal(skip?.finishedAt, 11_000);
  assert.equal(await store.recordSkip(id, 1000, "again", 20_000, 11_001), null);
  const state = await store.getJob(id);
  assert.equal(state?.nextRunAt, 20_000);
  assert.equal(state?.lastStatus, "skipped");
  assert.match(state?.lastError ?? "", /missed by 3 h/);
  store.close();
});

test("the ticker lease: one holder at a time until it expires or is released", async () => {
  const { store } = await fresh();
  assert.equal(await store.acquireLease("ticker", "a", 60_000, 0), true);
  assert.equal(await store.acquireLease("ticker", "b", 60_000, 1000), false);
  assert.equal(await store.acquireLease("ticker", "a", 60_000, 30_000), true, "the holder renews");
  assert.equal(await store.acquireLease("ticker", "b", 60_000, 60_000), false, "renewed until 90 s");
  assert.equal(await store.acquireLease("ticker", "b", 60_000, 90_000), true, "an expired lease can be taken");
  await store.releaseLease("ticker", "a");
  assert.equal(await store.acquireLease("ticker", "a", 60_000, 90_001), false, "release by a non-holder does nothing");
  await store.releaseLease("ticker", "b");
  assert.equal(await store.acquireLease("ticker", "a", 60_000, 90_002), true);
  store.close();
});

test("two processes claiming the same fires at once fire each exactly once", async () => {
  const { store, path } = await fresh();
  const ids: string[] = [];
  for (let i = 0; i < 30; i++) ids.push((await store.createJob(job(`j${i}`, 1000))).id);
  store.close();
  const worker = `
    const [moduleUrl, path, list] = process.argv.slice(1);
    const { openCronStore } = await import(moduleUrl);
    const store = await openCronStore(path);
    const won = [];
    for (const id of JSON.parse(list)) {
      if (await store.claimFire(id, 1000, 5000)) won.push(id);
    }
    store.close();
    console.log(JSON.stringify(won));
  `;
  const run = async () =>
    JSON.parse(await runModuleWorker(worker, [STORE_MODULE, path, JSON.stringify(ids)])) as string[];
  const [a, b] = await Promise.all([run(), run()]);
  assert.deepEqual([...a, ...b].sort(), [...ids].sort());
  const reopened = await openCronStore(path);
  assert.equal((await reopened.unfinishedRuns()).length, 30, "one run record per job");
  reopened.close();
});
