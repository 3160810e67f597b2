/**
 * Drop-in import: messages per second copied from a state.db in the original's layout (schema
 * 17) into our store, FTS index included, for 100k messages in 100 sessions.
 * Run alone with: node --import tsx bench/import.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { importHermesPython } from "../src/state/import-hermes-python.js";
import { type OriginalSession, writeOriginalStateDb } from "../test/state/original-state-db.js";
import { printTable, type Row } from "./stats.js";

const SESSIONS = 100;
const PER_SESSION = 1000;

export async function benchImport(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-import-"));
  try {
    const sessions: OriginalSession[] = Array.from({ length: SESSIONS }, (_, s) => ({
      id: `20250101_000000_${String(s).padStart(6, "0")}`,
      title: `session ${s}`,
      startedAt: 1_735_689_600 + s * 3600,
      messages: Array.from({ length: PER_SESSION }, (_, m) => ({
        role: m % 2 ? "assistant" : "user",
        content: `message ${m} of session ${s}: the quick brown fox jumps over the lazy dog, again and again`,
      })),
    }));
    const source = join(dir, "original.db");
    writeOriginalStateDb(source, sessions);
    const started = performance.now();
    const report = await importHermesPython(source, join(dir, "state.db"));
    const seconds = (performance.now() - started) / 1000;
    const rate = report.messages.added / seconds;
    return [
      {
        figure: `import of the original's state.db (${report.messages.added} messages, ${SESSIONS} sessions)`,
        value: `${Math.round(rate).toLocaleString("en")} messages/s (${seconds.toFixed(2)} s)`,
        baseline: "target ≥ 20,000/s",
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Drop-in import", await benchImport());
}
