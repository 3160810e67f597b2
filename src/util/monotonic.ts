/**
 * Milliseconds on a clock that never steps back, for measuring durations. The global
 * `performance` loads node:perf_hooks on first touch (a few ms of start-up on Node 24); the
 * process's own high-resolution clock is already there.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
