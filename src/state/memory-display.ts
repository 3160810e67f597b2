/**
 * How memory entries are shown to the model: usage lines, short previews, and placeholders
 * for entries on disk that carry a threat pattern (so a poisoned file cannot reach the prompt).
 */
import { scanForThreats, THREAT_SCAN_LIMIT } from "../util/threats.js";

/** Scope used both for new content and for entries already on disk. */
export const MEMORY_THREAT_SCOPE = "strict" as const;
const BLOCKED_PREFIX = "[BLOCKED:";
const PREVIEW_WIDTH = 80;

export function groupThousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** `"3% — 19/500 chars"`: the percentage is rounded down. */
export function formatUsage(used: number, limit: number): string {
  const percent = limit > 0 ? Math.floor((used / limit) * 100) : 100;
  return `${percent}% — ${groupThousands(used)}/${groupThousands(limit)} chars`;
}

/** The first 80 characters of each entry, with "..." when cut. */
export function previewEntries(entries: readonly string[]): string[] {
  return entries.map((entry) => (entry.length > PREVIEW_WIDTH ? `${entry.slice(0, PREVIEW_WIDTH)}...` : entry));
}

/**
 * `entries` with every entry that matches a threat pattern replaced by a `[BLOCKED: ...]`
 * placeholder. The live file keeps the raw text so the entry can still be found and removed.
 */
export function entriesForDisplay(entries: readonly string[], fileName: string): string[] {
  return entries.map((entry) => {
    if (entry.startsWith(BLOCKED_PREFIX)) return entry;
    // The scanner reads only a prefix; a longer entry would carry an unread tail into the prompt.
    if (entry.length > THREAT_SCAN_LIMIT) {
      return `${BLOCKED_PREFIX} ${fileName} entry of ${groupThousands(entry.length)} chars is too long to check; remove it with memory(action=remove)]`;
    }
    const threats = scanForThreats(entry, MEMORY_THREAT_SCOPE);
    if (threats.length === 0) return entry;
    return `${BLOCKED_PREFIX} ${fileName} entry contained threat pattern(s): ${threats.join(", ")}; left out of the prompt, remove it with memory(action=remove)]`;
  });
}
