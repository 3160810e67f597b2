/** The fact store in one SQLite file (`facts.db` beside MEMORY.md), searched with FTS5. */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import {
  cosineSimilarity,
  DUPLICATE_SIMILARITY,
  type Fact,
  type FactHit,
  type FactStore,
  type FactWrite,
  factSimilarity,
  type NewFact,
  normalizeFact,
} from "./fact-store.js";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite-driver.js";

const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL,
  norm TEXT NOT NULL,
  subject TEXT NOT NULL DEFAULT '',
  source TEXT NOT NULL,
  session_id TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  mentions INTEGER NOT NULL DEFAULT 1,
  embedding BLOB
);
CREATE INDEX IF NOT EXISTS facts_norm ON facts(norm);
CREATE INDEX IF NOT EXISTS facts_subject ON facts(subject) WHERE subject <> '';
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(text, content='facts', content_rowid='id', tokenize='porter unicode61');
CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE OF text ON facts BEGIN
  INSERT INTO facts_fts(facts_fts, rowid, text) VALUES ('delete', old.id, old.text);
  INSERT INTO facts_fts(rowid, text) VALUES (new.id, new.text);
END;
`;

/** Words too common to say anything about relevance. */
const STOPWORDS = new Set(
  (
    "the a an and or but if then of to in on at by for with from as is are was were be been am do does did " +
    "have has had i me my mine you your yours we our it its this that these those what which who whom how why " +
    "when where can could would should will shall may might must not no yes so just also about into over than " +
    "there here some any all more most very too please tell know think let get got want need like use"
  ).split(" "),
);

/** An FTS5 query that matches any of the meaningful words of `text` (each quoted). */
export function relevanceQuery(text: string): string | null {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}_-]*/gu) ?? []) {
    if (word.length >= 2 && !STOPWORDS.has(word)) words.add(word.replace(/"/g, ""));
  }
  if (words.size === 0) return null;
  return [...words]
    .slice(0, 32)
    .map((word) => `"${word}"`)
    .join(" OR ");
}

interface FactRow {
  id: number;
  text: string;
  subject: string;
  source: string;
  session_id: string;
  created_at: number;
  updated_at: number;
  mentions: number;
}

function toFact(row: FactRow): Fact {
  return {
    id: row.id,
    text: row.text,
    subject: row.subject,
    source: row.source,
    sessionId: row.session_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    mentions: row.mentions,
  };
}

const COLUMNS = "id, text, subject, source, session_id, created_at, updated_at, mentions";
/** Reciprocal-rank fusion constant: how much the first places outweigh later ones. */
const FUSION_K = 60;
/** Vector matches below this cosine similarity are not recalled. */
const MIN_VECTOR_SIMILARITY = 0.5;
/** Facts compared by vector per search, newest first. */
const VECTOR_SCAN_LIMIT = 5000;

function blobOf(embedding: Float32Array | undefined): Buffer | null {
  return embedding ? Buffer.from(embedding.buffer, embedding.byteOffset, embedding.byteLength) : null;
}

function vectorOf(blob: Buffer): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

export class SqliteFactStore implements FactStore {
  readonly path: string;
  private readonly db: SqliteDatabase;

  constructor(path: string) {
    this.path = path;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = openSqliteDatabase(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 5000");
    const version = this.db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      this.db.close();
      throw new Error(
        `${path} was written by a newer hermes (fact schema ${version}, this one knows ${SCHEMA_VERSION}); upgrade hermes or move the file aside`,
      );
    }
    this.db.exec(SCHEMA);
    this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }

  add(fact: NewFact, now = Date.now()): FactWrite {
    const text = fact.text.trim();
    const norm = normalizeFact(text);
    const subject = fact.subject ?? "";
    return this.db.transaction((): FactWrite => {
      const same =
        (subject ? this.row("WHERE subject = ? ORDER BY updated_at DESC LIMIT 1", subject) : undefined) ??
        this.row("WHERE norm = ? LIMIT 1", norm) ??
        this.nearDuplicate(text);
      if (same) {
        this.db
          .prepare(
            "UPDATE facts SET text = ?, norm = ?, subject = CASE WHEN ? <> '' THEN ? ELSE subject END, updated_at = ?, " +
              "mentions = mentions + 1, embedding = COALESCE(?, embedding) WHERE id = ?",
          )
          .run(text, norm, subject, subject, now, blobOf(fact.embedding), same.id);
        return { action: "merged", fact: toFact(this.row("WHERE id = ?", same.id)!), previous: same.text };
      }
      const info = this.db
        .prepare(
          "INSERT INTO facts (text, norm, subject, source, session_id, created_at, updated_at, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(text, norm, subject, fact.source, fact.sessionId ?? "", now, now, blobOf(fact.embedding));
      return { action: "added", fact: toFact(this.row("WHERE id = ?", Number(info.lastInsertRowid))!) };
    })();
  }

  search(query: string, options: { limit?: number; embedding?: Float32Array } = {}): FactHit[] {
    const limit = Math.max(1, options.limit ?? 6);
    const scores = new Map<number, number>();
    const match = relevanceQuery(query);
    if (match) {
      const ids = this.db
        .prepare("SELECT rowid AS id FROM facts_fts WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts) LIMIT ?")
        .all(match, limit * 4) as { id: number }[];
      for (const [rank, { id }] of ids.entries()) scores.set(id, 1 / (FUSION_K + rank));
    }
    if (options.embedding) {
      const rows = this.db
        .prepare("SELECT id, embedding FROM facts WHERE embedding IS NOT NULL ORDER BY updated_at DESC LIMIT ?")
        .all(VECTOR_SCAN_LIMIT) as { id: number; embedding: Buffer }[];
      const query = options.embedding;
      const similar = rows
        .map((row) => ({ id: row.id, similarity: cosineSimilarity(query, vectorOf(row.embedding)) }))
        .filter((hit) => hit.similarity >= MIN_VECTOR_SIMILARITY)
        .sort((a, b) => b.similarity - a.similarity)
        .slice(0, limit * 4);
      for (const [rank, { id }] of similar.entries()) scores.set(id, (scores.get(id) ?? 0) + 1 / (FUSION_K + rank));
    }
    const best = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit);
    return best.flatMap(([id, score]) => {
      const row = this.row("WHERE id = ?", id);
      return row ? [{ fact: toFact(row), score }] : [];
    });
  }

  forget(target: { id: number } | { text: string }): number {
    if ("id" in target) return this.db.prepare("DELETE FROM facts WHERE id = ?").run(target.id).changes;
    const needle = normalizeFact(target.text);
    if (!needle) return 0;
    return this.db.prepare("DELETE FROM facts WHERE instr(norm, ?) > 0").run(needle).changes;
  }

  list(options: { limit?: number } = {}): Fact[] {
    const rows = this.db
      .prepare(`SELECT ${COLUMNS} FROM facts ORDER BY updated_at DESC, id DESC LIMIT ?`)
      .all(options.limit ?? -1) as FactRow[];
    return rows.map(toFact);
  }

  count(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM facts").get() as { n: number }).n;
  }

  reset(): number {
    const removed = this.db.prepare("DELETE FROM facts").run().changes;
    this.db.exec("INSERT INTO facts_fts(facts_fts) VALUES ('rebuild')");
    return removed;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private row(where: string, ...params: unknown[]): FactRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM facts ${where}`).get(...params) as FactRow | undefined;
  }

  /** An existing fact that says nearly the same thing, found among the best text matches. */
  private nearDuplicate(text: string): FactRow | undefined {
    const match = relevanceQuery(text);
    if (!match) return undefined;
    const candidates = this.db
      .prepare(
        `SELECT ${COLUMNS.split(", ")
          .map((c) => `facts.${c}`)
          .join(", ")} FROM facts_fts JOIN facts ON facts.id = facts_fts.rowid ` +
          "WHERE facts_fts MATCH ? ORDER BY bm25(facts_fts) LIMIT 10",
      )
      .all(match) as FactRow[];
    return candidates.find((row) => factSimilarity(row.text, text) >= DUPLICATE_SIMILARITY);
  }
}

export function openFactStore(path: string): FactStore {
  return new SqliteFactStore(path);
}
