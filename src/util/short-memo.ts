/**
 * The last answer for one key, kept for `ttlMs`: for facts about the machine (what is on PATH,
 * which Python is installed) that a long-running server would otherwise look up again for every
 * new session, dozens of stat calls each. A different key, or an older answer, is computed afresh.
 */
export function shortMemo<T>(ttlMs: number, now: () => number = Date.now) {
  let last: { key: string; value: T; at: number } | undefined;
  return (key: string, compute: () => T): T => {
    const time = now();
    if (last && last.key === key && time - last.at < ttlMs) return last.value;
    const value = compute();
    last = { key, value, at: time };
    return value;
  };
}
