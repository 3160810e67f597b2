/** Levenshtein distance, and the candidates closest to a mistyped name. */

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/**
 * Up to `count` candidates closest to `typed` (case-insensitive), nearest first, leaving out
 * those too far to be a typo: more than a third of the longer name's length away.
 */
export function nearestNames(typed: string, candidates: Iterable<string>, count = 3): string[] {
  const wanted = typed.toLowerCase();
  const scored: Array<{ name: string; distance: number }> = [];
  for (const name of new Set(candidates)) {
    const distance = editDistance(wanted, name.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(wanted.length, name.length) / 3));
    if (distance <= limit) scored.push({ name, distance });
  }
  return scored
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, count)
    .map((s) => s.name);
}
