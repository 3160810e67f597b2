/**
 * One-shot run with one terminal tool call against the fake provider: wall time and max RSS of
 * `hermes chat -q ... --yolo`, interleaved with a bare `node -e 0` and with the same task's I/O
 * done by a minimal script (bench/one-shot-floor.cjs), each measured the same way.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type ChildRun, rssMethod, runNodeOk } from "./child.js";
import { formatKiB, formatRatio, formatSample, type Row, summarize } from "./stats.js";
import { startTaskProvider, TASK_OUTPUT, TASK_PROMPT } from "./task.js";

export const HERMES_ENTRY = resolve("dist/cli/main.js");
/** The same task's I/O in a minimal script: the floor a one-shot run is measured against. */
const FLOOR_SCRIPT = resolve("bench/one-shot-floor.cjs");
const CLI_DIR = resolve("dist/cli");

/** Removes the CLI's V8 code caches, so the next run is like the first one after a build. */
function dropCodeCaches(): void {
  for (const name of readdirSync(CLI_DIR)) {
    if (name.endsWith(".v8cache")) rmSync(resolve(CLI_DIR, name), { force: true });
  }
}

export function hermesOneShotArgs(providerUrl: string): string[] {
  return [
    HERMES_ENTRY,
    "chat",
    "-q",
    TASK_PROMPT,
    "--provider",
    "custom",
    "--base-url",
    `${providerUrl}/v1`,
    "--model",
    "m",
    "--yolo",
  ];
}

/** Throws unless the agent printed the command's output, so a broken run never becomes a figure. */
export function assertTaskDone(agent: string, run: ChildRun): void {
  if (!run.stdout.includes(TASK_OUTPUT)) {
    throw new Error(`${agent} did not report the tool output:\n${run.stdout}\n${run.stderr.slice(-2000)}`);
  }
}

/** `node`: another Node binary to measure with (its own bare start is the baseline); `label` names it in the rows. */
export async function benchOneShot(runs = 10, node?: string, label = ""): Promise<Row[]> {
  const provider = await startTaskProvider();
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-oneshot-"));
  const cwd = mkdtempSync(join(dir, "cwd-"));
  const env = { ...process.env, HERMES_HOME: mkdtempSync(join(dir, "home-")) };
  const on = node ? { node } : {};
  const hermes: ChildRun[] = [];
  const uncached: ChildRun[] = [];
  const bare: ChildRun[] = [];
  const floor: ChildRun[] = [];
  const floorDb = join(dir, "floor.db");
  try {
    for (let i = 0; i < runs + 1; i++) {
      provider.reset();
      const run = await runNodeOk(hermesOneShotArgs(provider.url), { cwd, env, ...on });
      assertTaskDone("hermes", run);
      const baseline = await runNodeOk(["-e", "0"], { cwd, env, ...on });
      const minimal = await runNodeOk([FLOOR_SCRIPT, `${provider.url}/v1`, floorDb], { cwd, env, ...on });
      assertTaskDone("the floor script", minimal);
      if (i === 0) continue; // the warm-up run fills the page cache and creates the state DB
      hermes.push(run);
      bare.push(baseline);
      floor.push(minimal);
    }
    for (let i = 0; i < Math.ceil(runs / 2); i++) {
      provider.reset();
      dropCodeCaches();
      const run = await runNodeOk(hermesOneShotArgs(provider.url), { cwd, env, ...on });
      assertTaskDone("hermes", run);
      uncached.push(run);
    }
  } finally {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const wall = summarize(hermes.map((r) => r.ms));
  const firstWall = summarize(uncached.map((r) => r.ms));
  const bareWall = summarize(bare.map((r) => r.ms));
  const rss = summarize(hermes.map((r) => r.maxRssKiB));
  const bareRss = summarize(bare.map((r) => r.maxRssKiB));
  const floorWall = summarize(floor.map((r) => r.ms));
  return [
    {
      figure: `one-shot run, one terminal call: wall (${runs} runs)${label}`,
      value: formatSample(wall, "ms"),
      baseline: `node -e 0: ${formatSample(bareWall, "ms")}`,
      ratio: formatRatio(wall.median, bareWall.median),
    },
    {
      figure: `floor: the same requests, command and session write in a minimal script${label}`,
      value: formatSample(floorWall, "ms"),
      baseline: `node -e 0: ${formatSample(bareWall, "ms")}`,
      ratio: formatRatio(floorWall.median, bareWall.median),
    },
    {
      figure: `one-shot run, first after a build (no code cache yet; ${uncached.length} runs)${label}`,
      value: formatSample(firstWall, "ms"),
      baseline: `node -e 0: ${formatSample(bareWall, "ms")}`,
      ratio: formatRatio(firstWall.median, bareWall.median),
    },
    {
      figure: `one-shot run, one terminal call: max RSS (${rssMethod()})${label}`,
      value: formatKiB(rss),
      baseline: `node -e 0: ${formatKiB(bareRss)}`,
      ratio: formatRatio(rss.median, bareRss.median),
    },
  ];
}
