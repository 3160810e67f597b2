/**
 * The gateway soak: 1,000 turns across 50 sessions through the built-in test platform against
 * the zero-latency fake provider, in a child `node --expose-gc` so memory readings follow a full
 * GC and the fake's memory stays in this process. Figures: replies missing or doubled, added
 * latency per message over a direct call to the fake (p50/p99), RSS after warm-up and at the end.
 * Run alone with `node --import tsx bench/gateway-soak.ts`.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { runNodeOk } from "./child.js";
import { startBenchFake } from "./fake.js";
import { percentile, printTable, type Row } from "./stats.js";

const CHILD = fileURLToPath(new URL("./gateway-soak-child.ts", import.meta.url));
export const SOAK_SESSIONS = 50;
export const SOAK_WAVES = 20;
const MIB = 1024 * 1024;

interface SoakReport {
  markers: number;
  missing: number;
  doubled: number;
  latencies: number[];
  direct: number[];
  warm: { rss: number; heapUsed: number };
  half: { rss: number; heapUsed: number };
  end: { rss: number; heapUsed: number };
}

export async function benchGatewaySoak(): Promise<Row[]> {
  const fake = await startBenchFake({
    fallback: (req) => {
      fake.requests.length = 0;
      const users = (req.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "user");
      return { text: `marker ${users.at(-1)?.content ?? ""}` };
    },
  });
  let report: SoakReport;
  try {
    const run = await runNodeOk([
      "--expose-gc",
      "--import",
      "tsx",
      CHILD,
      fake.url,
      String(SOAK_SESSIONS),
      String(SOAK_WAVES),
    ]);
    report = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "") as SoakReport;
  } finally {
    await fake.close();
  }
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const added = (p: number) => percentile(report.latencies, p) - percentile(report.direct, p);
  const mib = (bytes: number) => `${(bytes / MIB).toFixed(1)} MiB`;
  const growth = (key: "rss" | "heapUsed") => {
    const delta = (report.end[key] - report.warm[key]) / MIB;
    return `${delta >= 0 ? "+" : ""}${delta.toFixed(1)} MiB`;
  };
  return [
    {
      figure: `replies missing / doubled (of ${report.markers} messages, ${SOAK_SESSIONS} sessions)`,
      value: `${report.missing} / ${report.doubled}`,
      baseline: "target 0 / 0",
    },
    {
      figure: `message to reply, ${SOAK_SESSIONS} chats at once: p50`,
      value: ms(percentile(report.latencies, 50)),
      baseline: `${ms(percentile(report.direct, 50))} (fake provider direct)`,
      ratio: `+${ms(added(50))}`,
    },
    {
      figure: "the same: p99",
      value: ms(percentile(report.latencies, 99)),
      baseline: `${ms(percentile(report.direct, 99))} (fake provider direct)`,
      ratio: `+${ms(added(99))}`,
    },
    {
      figure: `gateway RSS after ${report.markers} turns (full GC)`,
      value: mib(report.end.rss),
      baseline: `${mib(report.warm.rss)} after warm-up; target growth ≤ 20 MiB`,
      ratio: growth("rss"),
    },
    {
      figure: `gateway RSS, second half of the run (turn ${report.markers / 2} → ${report.markers}, full GC)`,
      value: mib(report.end.rss),
      baseline: mib(report.half.rss),
      ratio: `${report.end.rss >= report.half.rss ? "+" : ""}${((report.end.rss - report.half.rss) / MIB).toFixed(1)} MiB`,
    },
    {
      figure: `gateway JS heap after ${report.markers} turns (full GC)`,
      value: mib(report.end.heapUsed),
      baseline: `${mib(report.warm.heapUsed)} after warm-up`,
      ratio: growth("heapUsed"),
    },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Gateway soak", await benchGatewaySoak());
}
