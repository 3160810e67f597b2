import assert from "node:assert/strict";
import { test } from "node:test";
import { ContextCompressor, computeThresholdTokens } from "../../src/agent/compressor.js";

test("the verbatim tail budget is the summary ratio of the threshold", () => {
  const cases: Array<[ConstructorParameters<typeof ContextCompressor>[0], number, number]> = [
    [{ contextLength: 200_000, thresholdPercent: 0.85, summaryTargetRatio: 0.4 }, 170_000, 68_000],
    [{ contextLength: 1_000_000, thresholdPercent: 0.85, summaryTargetRatio: 0.4 }, 850_000, 340_000],
    [{ contextLength: 200_000, summaryTargetRatio: 0.4 }, 100_000, 40_000],
    // The threshold is raised to the 64,000 minimum, so the tail grows with it.
    [{ contextLength: 100_000 }, 64_000, 12_800],
    [{ contextLength: 200_000, maxTokens: 65_536 }, 67_232, 13_446],
    [{ contextLength: 64_000 }, 54_400, 10_880],
  ];
  for (const [options, threshold, tail] of cases) {
    const compressor = new ContextCompressor(options);
    assert.equal(compressor.thresholdTokens, threshold, JSON.stringify(options));
    assert.equal(compressor.tailTokenBudget, tail, JSON.stringify(options));
  }
});

test("recalibrating to a new window moves the tail budget with the threshold", () => {
  const compressor = new ContextCompressor({ contextLength: 200_000 });
  assert.equal(compressor.tailTokenBudget, 20_000);
  compressor.recalibrate(64_000);
  assert.equal(compressor.tailTokenBudget, 10_880);
});

test("a tiny window still has a threshold of at least one token", () => {
  assert.equal(computeThresholdTokens(1, 0.5), 1);
  assert.equal(computeThresholdTokens(0, 0.5), 1);
  assert.equal(computeThresholdTokens(2, 0.5), 1);
  assert.equal(computeThresholdTokens(10, 0.5), 8);
});
