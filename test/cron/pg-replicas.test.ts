import assert from "node:assert/strict";
import { test } from "node:test";
import { CronTicker } from "../../src/cron/ticker.js";
import { openCronStore } from "../../src/state/cron-store.js";
import { startGateway } from "../gateway/harness.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { hourly, T0 } from "./world.js";

const pg = postgresOrSkip();

if (pg) {
  test("postgres: two replicas ticking together over 20 simulated minutes fire each due time of a job once", async () => {
    const url = await pg.database();
    const gw = await startGateway({ provider: { fallback: { text: "done" } } });
    // Each replica has its own pool on the one database, as separate processes would.
    const stores = [
      await openCronStore(`${url}?application_name=replica-a`),
      await openCronStore(`${url}?application_name=replica-b`),
    ];
    const clock = { now: T0 };
    const tickers = stores.map(
      (cron) =>
        new CronTicker(
          { runtime: gw.runtime, cron, gateway: gw.store, home: gw.home, timeoutMs: 600_000, now: () => clock.now },
          // A lease shorter than a tick: the leader changes between ticks, so both replicas fire.
          { leaseMs: 1_000 },
        ),
    );
    try {
      const job = await stores[0]!.createJob(
        hourly({ schedule: { kind: "interval", minutes: 2 }, scheduleDisplay: "every 2m" }),
      );
      const leaders = new Set<number>();
      for (let minute = 0; minute < 20; minute++) {
        clock.now = T0 + minute * 60_000 + 5_000;
        if (minute % 6 === 4) {
          // Both at once at a due time: whichever takes the lease fires, the other does not.
          await Promise.all(tickers.map((ticker) => ticker.tick()));
          continue;
        }
        // In turns, the first taking the lease that expired since the last minute; who goes first
        // changes every due time (every second minute).
        for (const i of Math.floor(minute / 2) % 2 ? [1, 0] : [0, 1]) {
          if ((await tickers[i]!.tick()).fired.length) leaders.add(i);
        }
      }
      const runs = await stores[1]!.runs(job.id, 100);
      const dueTimes = runs.map((run) => run.scheduledFor).sort((a, b) => (a ?? 0) - (b ?? 0));
      assert.deepEqual(
        dueTimes,
        Array.from({ length: 10 }, (_, i) => T0 + i * 120_000),
        "one run per due time, none missed",
      );
      assert.ok(runs.every((run) => run.status === "ok"));
      assert.equal(leaders.size, 2, "both replicas fired some of them");
    } finally {
      for (const store of stores) store.close();
      await gw.close();
    }
  });
}
