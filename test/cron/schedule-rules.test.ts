import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseCronExpression } from "../../src/cron/cron-expression.js";
import { computeNextRun, isSilentResponse, parseDuration, parseSchedule } from "../../src/cron/schedule.js";
import { nextRunAfter } from "../../src/cron/timing.js";

describe("parseDuration takes whole numbers only", () => {
  test("decimal amounts are refused", () => {
    for (const text of ["1.5h", "0.5d", "2.0m", "every 1.5h"]) {
      assert.throws(() => (text.startsWith("every") ? parseSchedule(text) : parseDuration(text)), text);
    }
  });
  test("whole amounts still convert", () => {
    assert.equal(parseDuration("15h"), 900);
    assert.equal(parseDuration("3 days"), 4320);
  });
});

describe("computeNextRun: jobs that cannot run give null", () => {
  const now = "2026-03-01T12:00:00Z";
  test("a one-shot job that ran once is done, whatever its runAt", () => {
    const schedule = { kind: "once", runAt: "2026-03-01T13:00:00Z" };
    assert.equal(computeNextRun({ schedule, lastRunAt: "2026-03-01T11:00:00Z" }, now), null);
    assert.equal(computeNextRun({ schedule, lastRunAt: "2026-03-01T14:00:00Z" }, now), null);
    assert.equal(computeNextRun({ schedule }, now), "2026-03-01T13:00:00Z");
  });
  test("an unknown kind or a missing runAt, minutes or expr", () => {
    assert.equal(computeNextRun({ schedule: { kind: "hourly" } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "once" } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "once", runAt: "soon" } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "interval" } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "interval", minutes: null } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "interval", minutes: 0 } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "cron" } }, now), null);
    assert.equal(computeNextRun({ schedule: { kind: "cron", expr: "" } }, now), null);
  });
  test("a malformed expression is still an error", () => {
    assert.throws(() => computeNextRun({ schedule: { kind: "cron", expr: "61 * * * *" } }, now));
  });
});

describe("computeNextRun for cron jobs", () => {
  const casablancaNow = "2026-04-10T22:00:00+01:00";
  const lastRunAt = "2026-04-06T14:10:00+01:00";

  test("counts from the last run when there is one", () => {
    const schedule = { kind: "cron", expr: "0 */6 * * *" };
    assert.equal(computeNextRun({ schedule, lastRunAt }, casablancaNow), "2026-04-06T18:00:00+01:00");
    assert.equal(
      computeNextRun({ schedule: { ...schedule, tz: "Africa/Casablanca" }, lastRunAt }, casablancaNow),
      "2026-04-06T18:00:00+01:00",
    );
  });
  test("counts from now when the job has not run", () => {
    assert.equal(
      computeNextRun({ schedule: { kind: "cron", expr: "0 */6 * * *" }, lastRunAt: null }, casablancaNow),
      "2026-04-11T00:00:00+01:00",
    );
  });
  test("without a zone of its own, the expression is read at the UTC offset of now", () => {
    const daily = { kind: "cron", expr: "0 9 * * *" };
    assert.equal(computeNextRun({ schedule: daily }, "2026-04-10T10:00:00+05:30"), "2026-04-11T09:00:00+05:30");
    assert.equal(computeNextRun({ schedule: daily }, "2026-04-10T08:59:00+05:30"), "2026-04-10T09:00:00+05:30");
    assert.equal(computeNextRun({ schedule: daily }, "2026-04-10T08:00:00-07:00"), "2026-04-10T09:00:00-07:00");
    assert.equal(computeNextRun({ schedule: daily }, "2026-04-10T08:00:00Z"), "2026-04-10T09:00:00+00:00");
  });
  test("a zone on the job wins over the offset of now", () => {
    assert.equal(
      computeNextRun({ schedule: { kind: "cron", expr: "0 9 * * *", tz: "Asia/Tokyo" } }, "2026-04-10T10:00:00+05:30"),
      "2026-04-11T09:00:00+09:00",
    );
  });
});

describe("cron jobs when clocks fall back (America/Toronto, 2026-11-01)", () => {
  const tz = "America/Toronto";
  const after = (expr: string, at: string) =>
    computeNextRun({ schedule: { kind: "cron", expr, tz }, lastRunAt: at }, at);

  test("the next run is the earliest matching instant, not the next wall time", () => {
    assert.equal(after("*/30 * * * *", "2026-11-01T01:00:00-04:00"), "2026-11-01T01:30:00-04:00");
    assert.equal(after("*/30 * * * *", "2026-11-01T01:30:00-04:00"), "2026-11-01T01:00:00-05:00");
    assert.equal(after("*/30 * * * *", "2026-11-01T01:00:00-05:00"), "2026-11-01T01:30:00-05:00");
    assert.equal(after("*/30 * * * *", "2026-11-01T01:30:00-05:00"), "2026-11-01T02:00:00-05:00");
  });
  test("a job at fixed minutes and hours runs once, on the first pass", () => {
    assert.equal(after("30 1 * * *", "2026-11-01T00:00:00-04:00"), "2026-11-01T01:30:00-04:00");
    assert.equal(after("30 1 * * *", "2026-11-01T01:30:00-04:00"), "2026-11-02T01:30:00-05:00");
    assert.equal(after("30 1 * * *", "2026-11-01T01:15:00-05:00"), "2026-11-02T01:30:00-05:00");
  });
  test("a star in the hour field repeats the hour", () => {
    assert.equal(after("0 * * * *", "2026-11-01T01:00:00-04:00"), "2026-11-01T01:00:00-05:00");
    assert.equal(after("@hourly", "2026-11-01T01:00:00-04:00"), "2026-11-01T01:00:00-05:00");
  });

  const runsInRepeatedHour = (expr: string) => {
    const runs: string[] = [];
    let at = "2026-11-01T00:00:00-04:00";
    const end = Date.parse("2026-11-01T03:00:00-05:00");
    for (let guard = 0; guard < 100; guard++) {
      const next = after(expr, at)!;
      assert.ok(Date.parse(next) > Date.parse(at), `${expr} went backwards from ${at}`);
      if (Date.parse(next) >= end) break;
      if (next.slice(11, 13) === "01") runs.push(next.slice(11));
      at = next;
    }
    return runs;
  };

  test("runs inside the repeated hour, per expression", () => {
    assert.deepEqual(runsInRepeatedHour("*/30 * * * *"), [
      "01:00:00-04:00",
      "01:30:00-04:00",
      "01:00:00-05:00",
      "01:30:00-05:00",
    ]);
    assert.deepEqual(runsInRepeatedHour("0 * * * *"), ["01:00:00-04:00", "01:00:00-05:00"]);
    assert.deepEqual(runsInRepeatedHour("@hourly"), ["01:00:00-04:00", "01:00:00-05:00"]);
    assert.equal(runsInRepeatedHour("*/15 1 * * *").length, 8);
    assert.deepEqual(runsInRepeatedHour("30 1 * * *"), ["01:30:00-04:00"]);
    assert.deepEqual(runsInRepeatedHour("@daily"), []);
  });

  test("which expressions repeat", () => {
    assert.equal(parseCronExpression("*/15 1 * * *").repeatsInFallBack, true);
    assert.equal(parseCronExpression("0 * * * *").repeatsInFallBack, true);
    assert.equal(parseCronExpression("? 1 * * *").repeatsInFallBack, true);
    assert.equal(parseCronExpression("0-59/15 1 * * *").repeatsInFallBack, false);
    assert.equal(parseCronExpression("30 1 * * *").repeatsInFallBack, false);
    assert.equal(parseCronExpression("@daily").repeatsInFallBack, false);
  });
});

describe("the scheduler's timing", () => {
  test("reads a cron job without a zone in the machine's zone", () => {
    const saved = process.env.TZ;
    process.env.TZ = "Asia/Kolkata";
    try {
      const next = nextRunAfter({ schedule: { kind: "cron", expr: "0 9 * * *" } }, Date.parse("2026-03-01T00:00:00Z"));
      assert.equal(next, Date.parse("2026-03-01T09:00:00+05:30"));
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });
  test("a job's own zone is kept", () => {
    const schedule = { kind: "cron" as const, expr: "0 9 * * *", tz: "America/New_York" };
    assert.equal(
      nextRunAfter({ schedule }, Date.parse("2026-03-01T00:00:00Z")),
      Date.parse("2026-03-01T09:00:00-05:00"),
    );
  });
  test("a one-shot job does not come back after its fire", () => {
    const schedule = { kind: "once" as const, runAt: "2026-03-01T09:00:00Z" };
    const at = Date.parse("2026-03-01T09:00:00Z");
    assert.equal(nextRunAfter({ schedule }, at - 60_000), at);
    assert.equal(nextRunAfter({ schedule }, at, at), null);
  });
});

describe("isSilentResponse: first and last lines", () => {
  test("a marker alone on the first or last non-blank line", () => {
    for (const text of [
      "no_reply\nduplicate inbound, already handled",
      "Checked everything.\n\nNO REPLY",
      "SILENT\nnothing changed",
      "Checked.\r\n  [silent]  \r\n\r\n",
      "  \n NO   REPLY \nrest",
    ]) {
      assert.equal(isSilentResponse(text), true, JSON.stringify(text));
    }
  });
  test("[SILENT] as a prefix counts, bare words as a prefix do not", () => {
    assert.equal(isSilentResponse("[Silent] nothing new"), true);
    assert.equal(isSilentResponse("SILENT nothing new"), false);
    assert.equal(isSilentResponse("NO_REPLY needed here\nmore"), false);
  });
  test("[SILENT] ending the reply counts, even after other text on its line", () => {
    assert.equal(isSilentResponse("All done, nothing to report [SILENT]"), true);
    assert.equal(isSilentResponse("Summary\nAll done [silent]  "), true);
    assert.equal(isSilentResponse("All done, nothing to report SILENT"), false);
  });
  test("a marker in the middle does not count", () => {
    for (const text of ["All done [SILENT] then more", "first\nSILENT\nlast", "Silently retried", "   \n\t "]) {
      assert.equal(isSilentResponse(text), false, JSON.stringify(text));
    }
  });
});
