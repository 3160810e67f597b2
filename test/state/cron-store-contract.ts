/** The behaviour every CronStore backend must have; each backend's test file registers it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { CronStore } from "../../src/state/cron-store.js";

export interface CronStoreFixture {
  store: CronStore;
  /** The same store opened again (after `store` was closed). */
  reopen(): Promise<CronStore>;
  /** Another store on the same database with a connection of its own, as another process has. */
  other(): Promise<CronStore>;
}

export const job = (name: string, nextRunAt: number | null, extra = {}) => ({
  name,
  prompt: `do ${name}`,
  schedule: { kind: "interval" as const, minutes: 60 },
  scheduleDisplay: "every hour",
  nextRunAt,
  ...extra,
});

export function cronStoreContract(backend: string, fresh: () => Promise<CronStoreFixture>): void {
  test(`${backend}: jobs are created with 12-hex ids and the original's defaults, updated, listed and deleted`, async () => {
    const { store, reopen } = await fresh();
    const created = await store.createJob(job("digest", 5000, { deliver: "telegram", skills: ["inbox"] }), 1000);
    assert.match(created.id, /^[0-9a-f]{12}$/);
    assert.equal(created.createdAt, 1000);
    assert.deepEqual(created.repeat, { times: null, completed: 0 });
    assert.equal(created.state, "scheduled");
    assert.equal(created.enabled, true);
    assert.deepEqual(created.skills, ["inbox"]);
    assert.equal(created.deliver, "telegram");
    assert.deepEqual(await store.getJob(created.id), created, "a job reads back as it was created");
    await assert.rejects(store.createJob({ ...job("again", 1), id: created.id }), /already exists/);
    await assert.rejects(store.createJob({ ...job("bad", 1), id: "XYZ" }), /12 hex/);

    const paused = await store.updateJob(
      created.id,
      { state: "paused", pausedAt: 2000, pausedReason: "holiday" },
      2000,
    );
    assert.equal(paused.state, "paused");
    assert.equal(paused.createdAt, 1000, "an update never rewrites the creation time");
    store.close();
    const reopened = await reopen();
    assert.equal((await reopened.getJob(created.id))?.pausedReason, "holiday");
    await reopened.updateJob(created.id, { state: "completed" });
    assert.deepEqual(await reopened.listJobs(), [], "completed jobs are listed only with all");
    assert.equal((await reopened.listJobs({ all: true })).length, 1);
    assert.equal(await reopened.deleteJob(created.id), true);
    assert.equal(await reopened.deleteJob(created.id), false);
    assert.equal(await reopened.getJob(created.id), null);
    await assert.rejects(reopened.updateJob("000000000000", {}), /no job/);
    reopened.close();
  });

  test(`${backend}: jobs are listed by creation time, then id; text with U+0000 round-trips`, async () => {
    const { store } = await fresh();
    const b = await store.createJob({ ...job("b", 1), id: "bbbbbbbbbbbb" }, 2000);
    const a2 = await store.createJob({ ...job("a2", 1), id: "aaaaaaaaaaa2" }, 1000);
    const a1 = await store.createJob({ ...job("nul\u0000name", 1), id: "aaaaaaaaaaa1" }, 1000);
    assert.deepEqual(
      (await store.listJobs()).map((j) => j.id),
      [a1.id, a2.id, b.id],
    );
    assert.equal((await store.getJob(a1.id))?.name, "nul\u0000name");
    const run = await store.claimFire(a1.id, null, null, 3000);
    const ended = await store.finishRun(
      run!.id,
      { status: "error", reason: "bad\u0000byte", outputPath: "/o/1.md" },
      3001,
    );
    assert.equal(ended.reason, "bad\u0000byte");
    assert.deepEqual(await store.getRun(run!.id), ended);
    assert.equal(await store.getRun(run!.id + 1000), null);
    assert.equal((await store.getJob(a1.id))?.lastError, "bad\u0000byte");
    store.close();
  });

  test(`${backend}: due jobs: enabled, scheduled, next run at or before now, soonest first`, async () => {
    const { store } = await fresh();
    const late = await store.createJob(job("late", 300));
    const early = await store.createJob(job("early", 100));
    const edge = await store.createJob(job("edge", 500));
    await store.createJob(job("future", 10_000));
    await store.createJob(job("disabled", 50, { enabled: false }));
    await store.createJob(job("paused", 50, { state: "paused" }));
    await store.createJob(job("never", null));
    assert.deepEqual(
      (await store.dueJobs(500)).map((j) => j.id),
      [early.id, late.id, edge.id],
    );
    store.close();
  });

  test(`${backend}: a fire is claimed once: the next run moves on with the run record, and a second claim gets nothing`, async () => {
    const { store } = await fresh();
    const { id } = await store.createJob(job("digest", 1000));
    const run = await store.claimFire(id, 1000, 4600, 1005);
    assert.ok(run);
    assert.equal(run.status, "running");
    assert.equal(run.scheduledFor, 1000);
    assert.deepEqual(await store.getRun(run.id), run, "the claim returns the record as stored");
    assert.equal(await store.claimFire(id, 1000, 4600, 1006), null, "the same fire again");
    const after = await store.getJob(id);
    assert.equal(after?.nextRunAt, 4600);
    assert.equal(after?.lastRunAt, 1005);
    // `hermes cron run` (no scheduled time) runs now and leaves the schedule alone.
    const manual = await store.claimFire(id, null, null, 2000);
    assert.ok(manual);
    assert.equal((await store.getJob(id))?.nextRunAt, 4600);
    const again = await store.claimFire(id, null, null, 2001);
    assert.ok(again, "manual runs are not limited to one");
    assert.deepEqual(
      (await store.unfinishedRuns()).map((r) => r.id),
      [run.id, manual.id, again.id],
    );
    await assert.rejects(store.claimFire("000000000000", 1000, 2000), /no job/);
    await assert.rejects(store.recordSkip("000000000000", 1000, "x", 2000), /no job/);
    store.close();
  });

  test(`${backend}: finishing a run records its outcome on the job; repeat counts fires and completes the job`, async () => {
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
    await assert.rejects(store.finishRun(first!.id + 1000, { status: "ok" }), /no run/);

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
    assert.deepEqual(
      (await store.runs(id, 1)).map((r) => r.id),
      [second!.id],
    );
    assert.deepEqual(await store.unfinishedRuns(), []);
    store.close();
  });

  test(`${backend}: a one-shot job completes when its fire leaves no next run`, async () => {
    const { store } = await fresh();
    const { id } = await store.createJob(job("once", 1000));
    const run = await store.claimFire(id, 1000, null, 1000);
    await store.finishRun(run!.id, { status: "timed_out", reason: "took too long" }, 1500);
    const state = await store.getJob(id);
    assert.equal(state?.state, "completed");
    assert.equal(state?.lastError, "took too long");
    assert.deepEqual(await store.listJobs(), []);
    store.close();
  });

  test(`${backend}: a missed fire is recorded as skipped with its reason, and only once`, async () => {
    const { store } = await fresh();
    const { id } = await store.createJob(job("missed", 1000));
    const skip = await store.recordSkip(id, 1000, "missed by 3 h (grace 120 s); fast-forwarded", 20_000, 11_000);
    assert.equal(skip?.status, "skipped");
    assert.equal(skip?.finishedAt, 11_000);
    assert.deepEqual(await store.getRun(skip!.id), skip);
    assert.equal(await store.recordSkip(id, 1000, "again", 20_000, 11_001), null);
    const state = await store.getJob(id);
    assert.equal(state?.nextRunAt, 20_000);
    assert.equal(state?.lastRunAt, 11_000);
    assert.equal(state?.lastStatus, "skipped");
    assert.match(state?.lastError ?? "", /missed by 3 h/);
    store.close();
  });

  test(`${backend}: the ticker lease: one holder at a time until it expires or is released`, async () => {
    const { store } = await fresh();
    assert.equal(await store.acquireLease("ticker", "a", 60_000, 0), true);
    assert.equal(await store.acquireLease("ticker", "b", 60_000, 1000), false);
    assert.equal(await store.acquireLease("ticker", "a", 60_000, 30_000), true, "the holder renews");
    assert.equal(await store.acquireLease("ticker", "b", 60_000, 60_000), false, "renewed until 90 s");
    assert.equal(await store.acquireLease("other", "b", 60_000, 60_000), true, "leases are per name");
    assert.equal(await store.acquireLease("ticker", "b", 60_000, 90_000), true, "an expired lease can be taken");
    await store.releaseLease("ticker", "a");
    assert.equal(
      await store.acquireLease("ticker", "a", 60_000, 90_001),
      false,
      "release by a non-holder does nothing",
    );
    await store.releaseLease("ticker", "b");
    assert.equal(await store.acquireLease("ticker", "a", 60_000, 90_002), true);
    store.close();
  });

  test(`${backend}: two stores claiming the same fires at once fire each exactly once, with one run record`, async () => {
    const { store, other } = await fresh();
    const second = await other();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await store.createJob(job(`j${i}`, 1000))).id);
    // Every claim of both stores is in flight at once, half of them as skips.
    const attempts = ids.flatMap((id, i) =>
      [store, second].map(async (s) => {
        const run = i % 2 ? await s.claimFire(id, 1000, 5000, 1001) : await s.recordSkip(id, 1000, "late", 5000, 1001);
        return run ? id : null;
      }),
    );
    const won = (await Promise.all(attempts)).filter((id) => id !== null);
    assert.deepEqual(won.sort(), [...ids].sort(), "each fire won exactly once");
    for (const id of ids) {
      assert.equal((await second.runs(id)).length, 1, "one run record per fire");
      assert.equal((await store.getJob(id))?.nextRunAt, 5000);
    }
    assert.equal((await store.unfinishedRuns()).length, 10);
    second.close();
    store.close();
  });

  test(`${backend}: two stores taking the same lease at once: one holder`, async () => {
    const { store, other } = await fresh();
    const second = await other();
    const takes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 2 ? store : second).acquireLease("ticker", `h${i}`, 60_000, 1000)),
    );
    const holders = takes.flatMap((took, i) => (took ? [`h${i}`] : []));
    assert.equal(holders.length, 1, "exactly one taker holds it");
    for (let i = 0; i < 12; i++) {
      const renewed = await (i % 2 ? second : store).acquireLease("ticker", `h${i}`, 60_000, 2000);
      assert.equal(renewed, `h${i}` === holders[0], "only the holder can renew");
    }
    second.close();
    store.close();
  });
}
