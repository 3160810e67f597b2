import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import {
  computeNextRun,
  isSilentResponse,
  parseCronExpression,
  parseDuration,
  parseSchedule,
} from "../../src/cron/schedule.js";

interface Expect {
  returns?: unknown;
  throws?: boolean;
  fields?: Record<string, unknown>;
  fieldContains?: Record<string, string[]>;
  isoBetween?: { field: string; after: string; before: string };
  sameInstant?: string;
  isNull?: boolean;
}
interface Case {
  id: string;
  input: { call: string; args: unknown[] };
  expect: Expect;
}

const fixture = JSON.parse(readFileSync(new URL("../fixtures/hermes-cases/cron.json", import.meta.url), "utf8")) as {
  cases: Case[];
};

const functions: Record<string, (...args: never[]) => unknown> = {
  parseDuration,
  parseSchedule,
  computeNextRun,
  isSilentResponse,
};

const instant = (iso: string) => {
  const ms = Date.parse(iso);
  assert.ok(!Number.isNaN(ms), `not an ISO instant: ${iso}`);
  return ms;
};

describe("cron acceptance cases", () => {
  for (const c of fixture.cases) {
    test(c.id, () => {
      const fn = functions[c.input.call] as ((...a: unknown[]) => unknown) | undefined;
      assert.ok(fn, `unknown function ${c.input.call}`);
      const { expect } = c;
      if (expect.throws) {
        assert.throws(() => fn(...c.input.args));
        return;
      }
      const result = fn(...c.input.args);
      if ("returns" in expect) assert.deepEqual(result, expect.returns);
      if (expect.isNull) assert.equal(result, null);
      if (expect.sameInstant) assert.equal(instant(String(result)), instant(expect.sameInstant));
      const record = result as Record<string, unknown>;
      for (const [key, value] of Object.entries(expect.fields ?? {})) assert.deepEqual(record[key], value, key);
      for (const [key, parts] of Object.entries(expect.fieldContains ?? {})) {
        for (const part of parts) assert.ok(String(record[key]).includes(part), `${key}=${record[key]} lacks ${part}`);
      }
      if (expect.isoBetween) {
        const value = instant(String(record[expect.isoBetween.field]));
        assert.ok(value > instant(expect.isoBetween.after) && value < instant(expect.isoBetween.before));
      }
    });
  }
});

describe("parseDuration and parseSchedule", () => {
  test("units are case-insensitive and padding is allowed", () => {
    assert.equal(parseDuration(" 45 MIN "), 45);
    assert.equal(parseDuration("3hrs"), 180);
  });
  test("rejects empty text, a bare number and unknown units", () => {
    for (const bad of ["", "30", "2 weeks", "h", "-5m"]) assert.throws(() => parseDuration(bad), bad);
  });
  test("every is case-insensitive and a zero interval is refused", () => {
    assert.deepEqual(parseSchedule("EVERY 30m"), { kind: "interval", minutes: 30 });
    assert.throws(() => parseSchedule("every 0m"));
  });
  test("a one-shot delay keeps the offset of now", () => {
    assert.deepEqual(parseSchedule("90m", { now: "2026-01-01T23:00:00-08:00" }), {
      kind: "once",
      runAt: "2026-01-02T00:30:00-08:00",
    });
  });
  test("a timestamp with its own offset keeps it", () => {
    const schedule = parseSchedule("2026-05-01T08:00:00Z", { now: "2026-01-01T00:00:00+02:00" });
    assert.deepEqual(schedule, { kind: "once", runAt: "2026-05-01T08:00:00+00:00" });
  });
  test("cron expressions are validated field by field", () => {
    assert.deepEqual(parseSchedule("*/15  9-17 * JAN-MAR mon-fri"), {
      kind: "cron",
      expr: "*/15 9-17 * JAN-MAR mon-fri",
    });
    for (const bad of [
      "60 * * * *",
      "* 24 * * *",
      "* * 0 * *",
      "* * * 13 *",
      "* * * * 8",
      "*/0 * * * *",
      "5-1 * * * *",
    ]) {
      assert.throws(() => parseSchedule(bad), bad);
    }
  });
  test("invalid calendar dates are not timestamps", () => {
    assert.throws(() => parseSchedule("2026-02-30T10:00:00"));
  });
});

describe("cron expressions", () => {
  test("names, lists, ranges and steps expand to the right values", () => {
    const fields = parseCronExpression("0,30 */6 1-3,15 FEB-APR/2 SUN,SAT");
    assert.deepEqual([...fields.minutes], [0, 30]);
    assert.deepEqual([...fields.hours], [0, 6, 12, 18]);
    assert.deepEqual([...fields.daysOfMonth], [1, 2, 3, 15]);
    assert.deepEqual([...fields.months], [2, 4]);
    assert.deepEqual([...fields.daysOfWeek].sort(), [0, 6]);
    assert.deepEqual([...parseCronExpression("* * * * 7").daysOfWeek], [0]);
  });

  const next = (expr: string, now: string, tz = "UTC") => computeNextRun({ schedule: { kind: "cron", expr, tz } }, now);

  test("daily at 09:00 in UTC", () => {
    assert.equal(next("0 9 * * *", "2026-03-01T12:00:00Z"), "2026-03-02T09:00:00+00:00");
    assert.equal(next("0 9 * * *", "2026-03-01T08:59:30Z"), "2026-03-01T09:00:00+00:00");
  });
  test("the current minute is never returned again", () => {
    assert.equal(next("* * * * *", "2026-03-01T12:00:00Z"), "2026-03-01T12:01:00+00:00");
  });
  test("weekdays skip the weekend", () => {
    // 2026-03-06 is a Friday.
    assert.equal(next("30 8 * * MON-FRI", "2026-03-06T09:00:00Z"), "2026-03-09T08:30:00+00:00");
  });
  test("day-of-month and day-of-week both restricted match either", () => {
    // The 13th of March 2026 is a Friday; the next Monday is the 2nd.
    assert.equal(next("0 0 13 * MON", "2026-03-01T00:00:00Z"), "2026-03-02T00:00:00+00:00");
  });
  test("leap day is found years ahead", () => {
    assert.equal(next("0 0 29 2 *", "2026-03-01T00:00:00Z"), "2028-02-29T00:00:00+00:00");
  });
  test("an expression that never fires gives null", () => {
    assert.equal(next("0 0 31 2 *", "2026-03-01T00:00:00Z"), null);
  });
  test("runs in the given time zone, with its offset in the result", () => {
    assert.equal(next("0 9 * * *", "2026-03-01T12:00:00Z", "Asia/Kolkata"), "2026-03-02T09:00:00+05:30");
    // Daylight saving starts in New York on 2026-03-08.
    assert.equal(next("0 9 * * *", "2026-03-07T15:00:00Z", "America/New_York"), "2026-03-08T09:00:00-04:00");
  });
  test("a wall time skipped by daylight saving is skipped", () => {
    assert.equal(next("30 2 * * *", "2026-03-08T05:00:00Z", "America/New_York"), "2026-03-09T02:30:00-04:00");
  });
  test("an unknown time zone is an error", () => {
    assert.throws(() => next("0 9 * * *", "2026-03-01T12:00:00Z", "Mars/Olympus"));
  });
  test("macros are accepted", () => {
    assert.equal(next("@hourly", "2026-03-01T12:10:00Z"), "2026-03-01T13:00:00+00:00");
  });
});

describe("computeNextRun for once and interval jobs", () => {
  test("a once job that has a recorded run never runs again, even when its runAt is later", () => {
    const job = { schedule: { kind: "once", runAt: "2026-03-01T13:00:00Z" }, lastRunAt: "2026-02-01T00:00:00Z" };
    assert.equal(computeNextRun(job, "2026-03-01T12:00:00Z"), null);
    assert.equal(computeNextRun({ ...job, lastRunAt: null }, "2026-03-01T12:00:00Z"), "2026-03-01T13:00:00Z");
  });
  test("grace ends after 120 seconds", () => {
    const job = { schedule: { kind: "once", runAt: "2026-03-01T12:00:00Z" } };
    assert.notEqual(computeNextRun(job, "2026-03-01T12:02:00Z"), null);
    assert.equal(computeNextRun(job, "2026-03-01T12:02:01Z"), null);
  });
  test("an interval job that never ran counts from now", () => {
    const job = { schedule: { kind: "interval", minutes: 15 }, lastRunAt: null };
    assert.equal(computeNextRun(job, "2026-03-01T12:00:00+01:00"), "2026-03-01T12:15:00+01:00");
  });
  test("an unknown kind never runs", () => {
    assert.equal(computeNextRun({ schedule: { kind: "weekly" } }, "2026-03-01T12:00:00Z"), null);
  });
});

describe("isSilentResponse", () => {
  test("markers in any case and spacing", () => {
    for (const text of ["[SILENT]", "  [silent]\n", "NO_REPLY", "No   Reply", "Nothing new today.\n[SILENT]"]) {
      assert.equal(isSilentResponse(text), true, text);
    }
  });
  test("mentions and empty replies are not silent", () => {
    for (const text of ["", "Reply with [SILENT] when nothing changed, otherwise a summary.", "silently done"]) {
      assert.equal(isSilentResponse(text), false, text);
    }
  });
});
