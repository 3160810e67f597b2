import assert from "node:assert/strict";
import { test } from "node:test";
import { formatKiB, formatRatio, formatSample, formatTable, percentile, summarize } from "../../bench/stats.js";

test("summarize gives the median of odd and even samples with min and max", () => {
  assert.deepEqual(summarize([5, 1, 3]), { median: 3, min: 1, max: 5 });
  assert.deepEqual(summarize([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4 });
});

test("summarize refuses an empty sample instead of reporting undefined figures", () => {
  assert.throws(() => summarize([]), /no values/);
});

test("percentile picks the nearest-rank value", () => {
  const values = Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(values, 50), 50);
  assert.equal(percentile(values, 95), 95);
  assert.equal(percentile([7], 95), 7);
});

test("formatSample, formatRatio and formatKiB render medians with their spread", () => {
  assert.equal(formatSample({ median: 1.234, min: 1, max: 2 }, "ms"), "1.2 ms (min 1.0, max 2.0)");
  assert.equal(formatRatio(3, 2), "1.50x");
  assert.equal(formatRatio(3, 0), "");
  assert.equal(formatKiB({ median: 2048, min: 1024, max: 3072 }), "2.0 MiB (min 1.0, max 3.0)");
});

test("formatTable pads every column and labels it with the given header", () => {
  const table = formatTable([{ figure: "wall", value: "1 ms", baseline: "2 ms", ratio: "0.50x" }], {
    value: "hermes",
    baseline: "pi",
    ratio: "hermes/pi",
  });
  const lines = table.split("\n");
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^\| figure \| hermes \| pi {3}\| hermes\/pi \|$/);
  assert.match(lines[1]!, /^\|-+\|-+\|-+\|-+\|$/);
  assert.equal(new Set(lines.map((l) => l.length)).size, 1);
});
