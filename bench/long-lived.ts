/**
 * RSS of a long-lived agent: 1,000 text-only turns on one in-process Agent, in a child
 * `node --expose-gc --import tsx` so each checkpoint follows a full GC and the fake provider's
 * memory stays in this process. Baseline: the same child's RSS before it loads the agent.
 * Run alone with `node --import tsx bench/long-lived.ts`.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { runNodeOk } from "./child.js";
import { startBenchFake } from "./fake.js";
import { formatRatio, formatSample, printTable, type Row, summarize } from "./stats.js";

const CHILD = fileURLToPath(new URL("./long-lived-child.ts", import.meta.url));
export const LONG_LIVED_TURNS = 1000;
const CHECKPOINTS = [0, 500, 1000];
const REPLY =
  "The harbour was dredged twice in the last century; the older quay still floods at spring tides, and the ferry now docks at the north pier.";

interface Snapshot {
  turn: number;
  rss: number;
  heapUsed: number;
}

interface ChildReport {
  baseline: Snapshot;
  snapshots: Snapshot[];
  messages: number;
}

const MIB = 1024 * 1024;

export async function benchLongLived(runs = 3): Promise<Row[]> {
  const fake = await startBenchFake({
    fallback: () => {
      fake.requests.length = 0;
      return { text: REPLY };
    },
  });
  const reports: ChildReport[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const run = await runNodeOk([
        "--expose-gc",
        "--import",
        "tsx",
        CHILD,
        fake.url,
        String(LONG_LIVED_TURNS),
        CHECKPOINTS.join(","),
      ]);
      reports.push(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as ChildReport);
    }
  } finally {
    await fake.close();
  }
  const at = (turn: number, key: "rss" | "heapUsed") =>
    summarize(reports.map((r) => (r.snapshots.find((s) => s.turn === turn)?.[key] ?? Number.NaN) / MIB));
  const base = (key: "rss" | "heapUsed") => summarize(reports.map((r) => r.baseline[key] / MIB));
  const rows: Row[] = [];
  for (const key of ["rss", "heapUsed"] as const) {
    const label = key === "rss" ? "RSS" : "heap used";
    const baseline = base(key);
    for (const turn of CHECKPOINTS) {
      const value = at(turn, key);
      rows.push({
        figure: `long-lived agent: ${label} after GC at turn ${turn}${turn === 0 ? ` (${runs} runs)` : ""}`,
        value: formatSample(value, "MiB"),
        baseline: `before loading the agent: ${formatSample(baseline, "MiB")}`,
        ratio: formatRatio(value.median, baseline.median),
      });
    }
  }
  const first = CHECKPOINTS[1]!;
  const last = CHECKPOINTS[CHECKPOINTS.length - 1]!;
  for (const key of ["rss", "heapUsed"] as const) {
    const growth = summarize(
      reports.map((r) => {
        const value = (turn: number) => r.snapshots.find((s) => s.turn === turn)?.[key] ?? Number.NaN;
        return (value(last) - value(first)) / MIB;
      }),
    );
    rows.push({
      figure: `  ${key === "rss" ? "RSS" : "heap"} growth, turn ${first} to ${last}`,
      value: formatSample(growth, "MiB"),
    });
  }
  rows.push({
    figure: "  history held at the end",
    value: `${reports[0]?.messages ?? 0} messages`,
  });
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Long-lived agent", await benchLongLived());
}
