/**
 * Session store figures: append throughput (one message per transaction, and 1,000 per
 * transaction), FTS search latency p50/p95 at 100k messages (and, unless `large` is false, at 1M
 * when the larger load fits the time budget), and bytes on disk per 1,000 messages. Runs in a
 * temp directory.
 * Run alone with: node --import tsx bench/session-store.ts [--full]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionStore, StoredMessage } from "../src/state/session-store.js";
import { SqliteSessionStore } from "../src/state/sqlite-session-store.js";
import { percentile, printTable } from "./stats.js";

/** Deterministic pseudo-random numbers, so every run indexes the same text. */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "del", "mar", "sen", "tor", "pha", "lu", "gre", "ost"];

function vocabulary(size: number, random: () => number): string[] {
  const words = new Set<string>();
  while (words.size < size) {
    const n = 2 + Math.floor(random() * 3);
    let word = "";
    for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

/** Zipf-like word choice: a few common words, a long tail of rare ones, like real text. */
export function messageMaker(seed: number) {
  const random = rng(seed);
  const words = vocabulary(20_000, random);
  const pick = () => words[Math.floor(words.length * random() ** 3)]!;
  const roles: StoredMessage["role"][] = ["user", "assistant", "tool", "assistant"];
  let n = 0;
  return {
    words,
    next(): StoredMessage {
      const length = 12 + Math.floor(random() * 48);
      const text = Array.from({ length }, pick).join(" ");
      return { role: roles[n++ % roles.length]!, content: text };
    },
  };
}

/** Append `count` messages in batches of 1,000 (50k per session). Returns ms spent appending. */
export async function fill(store: SessionStore, count: number, maker: ReturnType<typeof messageMaker>) {
  let spent = 0;
  let session = await store.createSession();
  for (let done = 0; done < count; done += 1000) {
    if (done > 0 && done % 50_000 === 0) session = await store.createSession();
    const batch = Array.from({ length: Math.min(1000, count - done) }, () => maker.next());
    const started = performance.now();
    await store.appendMessages(session.id, batch);
    spent += performance.now() - started;
  }
  return spent;
}

export async function searchLatency(store: SessionStore, words: string[], queries = 300) {
  const random = rng(7);
  const times: number[] = [];
  for (let i = 0; i < queries; i++) {
    // Mix common and rare terms, one- and two-word queries.
    const a = words[Math.floor(words.length * random() ** 2)]!;
    const b = words[Math.floor(words.length * random())]!;
    const query = i % 2 === 0 ? a : `${a} ${b}`;
    const started = performance.now();
    await store.search(query, { limit: 20 });
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

function dbBytes(path: string): number {
  return statSync(path).size + (statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0);
}

/** Load 1M messages and time searches, unless a 100k probe says the load would overrun the budget. */
async function benchMillion(dir: string, budgetMs: number): Promise<Array<{ figure: string; value: string }>> {
  const path = join(dir, "1m.db");
  const store = await SqliteSessionStore.open(path);
  try {
    const maker = messageMaker(3);
    const probeMs = await fill(store, 100_000, maker);
    if (probeMs * 10 > budgetMs) {
      return [
        { figure: "FTS search, 1M messages", value: `skipped: loading would take ~${Math.round(probeMs / 100)} s` },
      ];
    }
    const loadMs = probeMs + (await fill(store, 900_000, maker));
    const latency = await searchLatency(store, maker.words);
    store.close();
    return [
      {
        figure: "FTS search, 1M messages (limit 20)",
        value: `p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms (load took ${(loadMs / 1000).toFixed(0)} s)`,
      },
      { figure: "DB size, 1M messages", value: `${(dbBytes(path) / 1024 / 1024).toFixed(0)} MiB` },
    ];
  } finally {
    store.close();
  }
}

export async function benchSessionStore(
  options: { large?: boolean; largeBudgetMs?: number } = {},
): Promise<Array<{ figure: string; value: string }>> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-store-"));
  const rows: Array<{ figure: string; value: string }> = [];
  try {
    // One message per transaction, as the agent appends during a turn.
    const single = await SqliteSessionStore.open(join(dir, "single.db"));
    const maker = messageMaker(1);
    const session = await single.createSession();
    const singleCount = 3000;
    const messages = Array.from({ length: singleCount }, () => maker.next());
    const started = performance.now();
    for (const message of messages) await single.appendMessage(session.id, message);
    const singleMs = performance.now() - started;
    rows.push({
      figure: "append, 1 message per transaction",
      value: `${Math.round(singleCount / (singleMs / 1000)).toLocaleString("en-US")} msg/s (${((singleMs / singleCount) * 1000).toFixed(0)} µs each)`,
    });
    single.close();

    // 100k messages, 1,000 per transaction.
    const path100k = join(dir, "100k.db");
    const store = await SqliteSessionStore.open(path100k);
    const maker100k = messageMaker(2);
    const batchMs = await fill(store, 100_000, maker100k);
    rows.push({
      figure: "append, 1,000 messages per transaction",
      value: `${Math.round(100_000 / (batchMs / 1000)).toLocaleString("en-US")} msg/s`,
    });
    const latency = await searchLatency(store, maker100k.words);
    rows.push({
      figure: "FTS search, 100k messages (limit 20)",
      value: `p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms`,
    });
    store.close(); // the last close checkpoints the WAL into the file
    const bytes = dbBytes(path100k);
    rows.push({
      figure: "disk per 1,000 messages (avg 36 words)",
      value: `${(bytes / 100 / 1024).toFixed(1)} KiB (${(bytes / 1024 / 1024).toFixed(1)} MiB for 100k)`,
    });

    if (options.large ?? true) rows.push(...(await benchMillion(dir, options.largeBudgetMs ?? 120_000)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable("Session store", await benchSessionStore({ large: process.argv.includes("--full") }));
}
