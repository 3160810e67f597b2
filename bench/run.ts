/**
 * `npm run bench`: prints every figure the code supports as Markdown tables. Each figure is a
 * median (min, max) over repeated runs, beside its baseline from the same run.
 *   npm run bench                      default groups (a few minutes on 2 cores)
 *   npm run bench -- --only loop,store run the named groups
 *   npm run bench -- --full            also the 1M-message session store figure, and scale-out on
 *                                      PostgreSQL (replicas, failover, 1M-message search; ~15 min more)
 *   npm run bench -- --peers           also hermes beside the pi coding agent (installs it once)
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { benchAcp } from "./acp.js";
import { benchApiServer } from "./api-server.js";
import { benchCheckpoints } from "./checkpoints.js";
import { rssMethod } from "./child.js";
import { benchColdStart } from "./cold-start.js";
import { benchCompression } from "./compression.js";
import { benchGatewaySoak } from "./gateway-soak.js";
import { benchImport } from "./import.js";
import { benchImports } from "./imports.js";
import { benchLearning } from "./learning.js";
import { benchLongLived } from "./long-lived.js";
import { benchLoopOverhead } from "./loop-overhead.js";
import { benchOneShot } from "./one-shot.js";
import { otherNode } from "./other-node.js";
import { benchPeers } from "./peers.js";
import { benchPlatforms } from "./platforms.js";
import { benchPrefixStability } from "./prefix-stability.js";
import { benchSandbox } from "./sandbox.js";
import { benchScaleOut } from "./scale-out.js";
import { selectGroups } from "./select.js";
import { benchSessionStore } from "./session-store.js";
import { printTable, type Row, type TableHeader } from "./stats.js";

interface Flags {
  full: boolean;
}

interface Group {
  name: string;
  title: string;
  /** Runs only when asked for by name or flag. */
  optIn?: boolean;
  run(flags: Flags): Promise<{ rows: Row[]; header?: TableHeader }>;
}

const rows = async (promise: Row[] | Promise<Row[]>) => ({ rows: await promise });

const GROUPS: Group[] = [
  { name: "cold-start", title: "Cold start", run: () => rows(benchColdStart()) },
  { name: "one-shot", title: "One-shot run", run: () => rows(benchOneShot()) },
  { name: "loop", title: "Harness overhead per loop iteration", run: () => rows(benchLoopOverhead()) },
  {
    name: "store",
    title: "Session store",
    run: (flags) => rows(benchSessionStore({ large: flags.full, largeBudgetMs: 300_000 })),
  },
  { name: "compression", title: "Compression", run: () => rows(benchCompression()) },
  { name: "prefix", title: "Prompt-prefix stability", run: () => rows(benchPrefixStability()) },
  { name: "long-lived", title: "Long-lived agent (leak check)", run: () => rows(benchLongLived()) },
  { name: "imports", title: "Import time of the LLM layer", run: () => rows(benchImports()) },
  { name: "api-server", title: "API server under load", run: () => rows(benchApiServer()) },
  { name: "sandbox", title: "Sandbox", run: () => rows(benchSandbox()) },
  { name: "learning", title: "Learning review", run: () => rows(benchLearning()) },
  { name: "checkpoints", title: "Checkpoints (5,000-file project)", run: () => rows(benchCheckpoints()) },
  { name: "import", title: "Drop-in import", run: () => rows(benchImport()) },
  { name: "platforms", title: "Messaging platforms", run: () => rows(benchPlatforms()) },
  { name: "acp", title: "ACP server", run: () => rows(benchAcp()) },
  { name: "gateway-soak", title: "Gateway soak (test platform)", run: () => rows(benchGatewaySoak()) },
  { name: "peers", title: "Peer agent: the same one-tool task", optIn: true, run: () => benchPeers() },
  { name: "scale-out", title: "Scale-out on PostgreSQL", optIn: true, run: () => rows(benchScaleOut()) },
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      full: { type: "boolean", default: false },
      peers: { type: "boolean", default: false },
      node24: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log("usage: npm run bench -- [--only GROUP[,GROUP...]] [--full] [--peers] [--node24]");
    console.log("  --node24 (or HERMES_BENCH_NODE=/path/to/node): cold start and one-shot also on that Node");
    console.log(`groups: ${GROUPS.map((g) => g.name + (g.optIn ? " (opt-in)" : "")).join(", ")}`);
    return;
  }
  if (!existsSync("dist/cli/main.js")) {
    console.error("bench: dist/ is missing; run `npm run build` first");
    process.exit(1);
  }
  if (newestMtime("src") > statSync("dist/cli/main.js").mtimeMs) {
    console.error("bench: warning: src/ is newer than dist/; run `npm run build` for current figures");
  }
  const optIn = [...(values.peers ? ["peers"] : []), ...(values.full ? ["scale-out"] : [])];
  const groups = selectGroups(GROUPS, { only: values.only, optIn });
  const other = otherNode({ node24: values.node24 });
  if (other) {
    const label = ` on Node ${other.version}`;
    const at = (name: string) => groups.findIndex((group) => group.name === name);
    const extra: Array<[string, Group]> = [
      [
        "cold-start",
        { name: "cold-start", title: `Cold start${label}`, run: () => rows(benchColdStart(15, other.path, label)) },
      ],
      [
        "one-shot",
        { name: "one-shot", title: `One-shot run${label}`, run: () => rows(benchOneShot(10, other.path, label)) },
      ],
    ];
    for (const [name, group] of extra.reverse()) {
      const index = at(name);
      if (index >= 0) groups.splice(index + 1, 0, group);
    }
  }
  const cpu = cpus();
  console.log(
    `hermes-agent benchmarks — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, node ${process.version}, ` +
      `${platform()} ${release()}, ${cpu.length} cpu(s) (${cpu[0]?.model.trim() ?? "unknown"}), ` +
      `${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, load average ${loadavg()[0]?.toFixed(2)}, max RSS via ${rssMethod()}`,
  );
  const started = performance.now();
  for (const group of groups) {
    const groupStarted = performance.now();
    const table = await group.run({ full: values.full });
    printTable(
      `${group.title} (${((performance.now() - groupStarted) / 1000).toFixed(1)} s)`,
      table.rows,
      table.header,
    );
  }
  console.log(`\ntotal: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

try {
  await main();
} catch (error) {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
