/**
 * Child process of the long-lived agent figure: `node --expose-gc --import tsx
 * bench/long-lived-child.ts <fake-url> <turns> <checkpoints>`. Measures a baseline before
 * loading the agent, then runs text-only turns on one Agent (recording to a SQLite session
 * store) and prints one JSON line: RSS and heap after a full GC at each checkpoint.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Snapshot {
  turn: number;
  rss: number;
  heapUsed: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const collect = gc;

function snapshot(turn: number): Snapshot {
  collect();
  collect();
  const { rss, heapUsed } = process.memoryUsage();
  return { turn, rss, heapUsed };
}

const [url, turnsArg, checkpointsArg] = process.argv.slice(2);
if (!url) throw new Error("usage: long-lived-child.ts <fake-url> [turns] [checkpoints]");
const turns = Number(turnsArg ?? 1000);
const checkpoints = new Set((checkpointsArg ?? "0,500,1000").split(",").map(Number));

const baseline = snapshot(-1);
const { Agent } = await import("../src/agent/agent.js");
const { SqliteSessionStore } = await import("../src/state/sqlite-session-store.js");

const dir = mkdtempSync(join(tmpdir(), "hermes-bench-long-"));
const store = await SqliteSessionStore.open(join(dir, "state.db"));
try {
  const agent = new Agent({
    model: "m",
    provider: "custom",
    baseUrl: `${url}/v1`,
    apiKey: "bench",
    cwd: dir,
    home: dir,
    sessionStore: store,
    retry: { baseMs: 1, capMs: 1 },
    maxIterations: turns + 1, // enough for every turn, whether the budget is per turn or per agent
  });
  const snapshots: Snapshot[] = [];
  for (let turn = 0; turn <= turns; turn++) {
    if (checkpoints.has(turn)) snapshots.push(snapshot(turn));
    if (turn === turns) break;
    const result = await agent.runConversation(`Message ${turn + 1}: tell me one more thing about the harbour.`);
    if (!result.completed) throw new Error(`turn ${turn + 1} failed: ${result.error ?? "incomplete"}`);
  }
  process.stdout.write(`${JSON.stringify({ baseline, snapshots, messages: agent.messages.length })}\n`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
