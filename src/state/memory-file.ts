/**
 * Reading MEMORY.md / USER.md: decoding, splitting into entries, and telling a file the store
 * can safely rewrite from one it must leave alone.
 */
import { readFileSync } from "node:fs";

export const MEMORY_ENTRY_SEPARATOR = "\n§\n";
/** A line holding only `§` (spaces around it allowed) separates two entries. */
export const SEPARATOR_LINE = /^[ \t]*§[ \t]*$/m;

/** The entries of a memory file in file order, duplicates included. */
export function splitEntries(text: string): string[] {
  return text
    .split(SEPARATOR_LINE)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** The entries of a memory file; a repeated entry is kept once, at its first position. */
export function parseMemoryFile(text: string): string[] {
  return [...new Set(splitEntries(text))];
}

export type MemoryFileRead =
  | { readable: true; text: string; entries: string[] }
  /** `entries` is a best-effort reading for display; the file must not be rewritten. */
  | { readable: false; reason: string; entries: string[] };

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const lenientUtf8 = new TextDecoder("utf-8");

/** A missing file reads as empty; a leading byte-order mark is dropped. */
export function readMemoryFile(path: string): MemoryFileRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { readable: true, text: "", entries: [] };
    return { readable: false, reason: code ?? String(error), entries: [] };
  }
  try {
    const text = strictUtf8.decode(bytes);
    return { readable: true, text, entries: parseMemoryFile(text) };
  } catch {
    return { readable: false, reason: "not valid UTF-8", entries: parseMemoryFile(lenientUtf8.decode(bytes)) };
  }
}

/**
 * Why rewriting `text` from its parsed entries could lose something the store did not write,
 * or null when the file has the shape the store itself writes. Two signs: the file is not the
 * store's own serialisation of its entries (stray separators, padding, blank entries), or one
 * entry is longer than the whole file may be, which only happens when text was appended to
 * the file without a separator.
 */
export function findDrift(text: string, limit: number): string | null {
  const entries = splitEntries(text);
  const longest = entries.reduce((max, entry) => Math.max(max, entry.length), 0);
  if (longest > limit) {
    return `one entry is ${longest} characters, more than the whole file's ${limit}-character limit`;
  }
  const canonical = entries.join(MEMORY_ENTRY_SEPARATOR);
  if (text.replace(/\r\n/g, "\n").trim() !== canonical.replace(/\r\n/g, "\n")) {
    return "the file is not a plain §-separated list of entries";
  }
  return null;
}
