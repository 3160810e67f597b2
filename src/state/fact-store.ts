/**
 * Facts the local memory provider keeps about the user and their environment: short
 * declarative sentences, one per row, recalled by relevance. The interface is what the
 * provider and `hermes memory` use; SQLite (FTS5) implements it in sqlite-fact-store.ts.
 */

/** The local provider's file, in the memory directory beside MEMORY.md. */
export const FACTS_FILE = "facts.db";

export interface Fact {
  id: number;
  text: string;
  /** A key for facts that replace each other ("user.name", "prefers.editor"); "" when none. */
  subject: string;
  /** Where it came from: "user" (said in chat), "tool" (memory_remember), "memory" (MEMORY.md/USER.md). */
  source: string;
  sessionId: string;
  createdAt: number;
  updatedAt: number;
  /** How many times the same fact was stated (raised by consolidation). */
  mentions: number;
}

export interface NewFact {
  text: string;
  subject?: string;
  source: string;
  sessionId?: string;
  embedding?: Float32Array;
}

export type FactWrite =
  | { action: "added"; fact: Fact }
  /** The same fact again, or a newer value for the same subject: the older row is updated. */
  | { action: "merged"; fact: Fact; previous: string };

export interface FactHit {
  fact: Fact;
  /** Higher is more relevant; comparable only within one search. */
  score: number;
}

export interface FactStore {
  readonly path: string;
  add(fact: NewFact, now?: number): FactWrite;
  /** Facts relevant to `query`, best first; `embedding` adds vector similarity to the text match. */
  search(query: string, options?: { limit?: number; embedding?: Float32Array }): FactHit[];
  /** Removes facts by id, or those matching `text` (every one containing it); returns how many. */
  forget(target: { id: number } | { text: string }): number;
  list(options?: { limit?: number }): Fact[];
  count(): number;
  /** Deletes every fact. */
  reset(): number;
  close(): void;
}

const FILLER = /[\s.,;:!?'"`()[\]{}]+/g;

/** The form two facts are compared in: case, punctuation and spacing do not count. */
export function normalizeFact(text: string): string {
  return text.toLowerCase().replace(FILLER, " ").trim();
}

/** Share of words two facts have in common (Jaccard over word sets), 0..1. */
export function factSimilarity(a: string, b: string): number {
  const left = new Set(normalizeFact(a).split(" ").filter(Boolean));
  const right = new Set(normalizeFact(b).split(" ").filter(Boolean));
  if (left.size === 0 || right.size === 0) return 0;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

/** Near-duplicates at or above this similarity are consolidated into one fact. */
export const DUPLICATE_SIMILARITY = 0.8;

export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
