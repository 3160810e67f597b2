import assert from "node:assert/strict";
import { test } from "node:test";
import { backoffDelayMs, decorrelatedRandom, sleepWithSignal } from "../../src/util/backoff.js";

const noJitter = { random: () => 0 };

test("delay doubles from the 5 s base on each attempt", () => {
  assert.deepEqual(
    [1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, noJitter)),
    [5000, 10_000, 20_000, 40_000],
  );
});

test("the exponential part stops at the 120 s cap, even for absurd attempt numbers", () => {
  assert.equal(backoffDelayMs(6, noJitter), 120_000);
  assert.equal(backoffDelayMs(10_000, noJitter), 120_000);
  assert.equal(backoffDelayMs(3, { baseMs: 100, capMs: 250, random: () => 0 }), 250);
});

test("jitter adds at most jitterRatio of the delay", () => {
  assert.equal(backoffDelayMs(1, { random: () => 0.999999 }), 5000 + 0.999999 * 0.5 * 5000);
  assert.equal(backoffDelayMs(2, { jitterRatio: 0.2, random: () => 0.5 }), 10_000 + 1000);
  for (let i = 0; i < 200; i++) {
    const delay = backoffDelayMs(7);
    assert.ok(delay >= 120_000 && delay < 180_000, `${delay} out of bounds`);
  }
});

test("default jitter differs between back-to-back calls (no lockstep)", () => {
  const delays = new Set(Array.from({ length: 50 }, () => backoffDelayMs(3)));
  assert.ok(delays.size > 45, `only ${delays.size} distinct delays`);
  const draws = Array.from({ length: 1000 }, decorrelatedRandom);
  assert.ok(draws.every((d) => d >= 0 && d < 1));
  const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
  assert.ok(mean > 0.4 && mean < 0.6, `mean ${mean} is not uniform-looking`);
});

test("a server retry-after is the delay, exactly, whatever the attempt", () => {
  assert.equal(backoffDelayMs(1, { retryAfterMs: 30_000, random: () => 0.9 }), 30_000);
  assert.equal(backoffDelayMs(5, { retryAfterMs: 1000, random: () => 0.9 }), 1000, "a short hint is not stretched");
  assert.equal(backoffDelayMs(3, { retryAfterMs: 0 }), 0, "retry-after: 0 means now");
});

test("a retry-after beyond the backoff maximum is capped to it", () => {
  assert.equal(backoffDelayMs(1, { retryAfterMs: 86_400_000 }), 120_000);
  assert.equal(backoffDelayMs(1, { retryAfterMs: 86_400_000, capMs: 30_000 }), 30_000);
  assert.equal(backoffDelayMs(1, { retryAfterMs: 86_400_000, maxRetryAfterMs: 60_000 }), 60_000);
});

test("sleepWithSignal waits the given time", async () => {
  const started = performance.now();
  await sleepWithSignal(30, new AbortController().signal);
  assert.ok(performance.now() - started >= 25);
});

test("sleepWithSignal rejects with an AbortError as soon as the signal aborts", async () => {
  const controller = new AbortController();
  const started = performance.now();
  const sleeping = sleepWithSignal(60_000, controller.signal);
  setImmediate(() => controller.abort());
  await assert.rejects(sleeping, (error: Error) => error.name === "AbortError");
  assert.ok(performance.now() - started < 1000, "did not wait out the sleep");
});

test("sleepWithSignal rejects at once when the signal is already aborted", async () => {
  const controller = new AbortController();
  controller.abort(new Error("user pressed Ctrl-C"));
  await assert.rejects(sleepWithSignal(60_000, controller.signal), (error: Error) => {
    assert.equal(error.name, "AbortError");
    assert.equal((error.cause as Error).message, "user pressed Ctrl-C");
    return true;
  });
});
