/**
 * Whether this process has finished a chat turn. The CLI keeps a V8 code cache per kind of run
 * (src/cli/bundle-loader.ts) and writes it from the first run of that kind that succeeds; a
 * chat run that only printed its help, or was left before its first turn, compiled little of
 * what later runs need, and a cache written from it would be kept and reused by every later
 * run. So chat runs mark their first completed turn, and only a marked run writes the cache.
 * The mark lives on globalThis: the CLI's entry and its bundle each hold a copy of this module.
 */
const MARK = "__hermesTurnCompleted";

export function markTurnCompleted(): void {
  (globalThis as Record<string, unknown>)[MARK] = true;
}

export function turnCompleted(): boolean {
  return (globalThis as Record<string, unknown>)[MARK] === true;
}
