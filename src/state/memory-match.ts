/** Finding the entry a replace or remove names. */
import { previewEntries } from "./memory-display.js";

export type EntryMatch = { index: number } | { error: string; matches?: string[] };

/**
 * The entry `oldText` (trimmed) names: an entry equal to it, else the single entry containing
 * it. Identical entries count as one match.
 */
export function findOne(entries: string[], oldText: string): { index: number } | { error: string; matches?: string[] } {
  const needle = oldText.trim();
  const exact = entries.indexOf(needle);
  if (exact >= 0) return { index: exact };
  const hits = entries.flatMap((entry, index) => (entry.includes(needle) ? [index] : []));
  const first = hits[0];
  if (first === undefined) return { error: `No entry matched "${needle}".` };
  const distinct = [...new Set(hits.map((index) => entries[index]!))];
  if (distinct.length > 1) {
    return {
      error: `Multiple entries (${hits.length}) matched "${needle}": use a longer part of the one you mean.`,
      matches: previewEntries(distinct),
    };
  }
  return { index: first };
}
