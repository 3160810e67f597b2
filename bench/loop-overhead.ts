/**
 * Harness overhead per loop iteration: an in-process Agent runs a 90-iteration tool loop
 * against a zero-latency fake with a no-op tool. Each iteration is timed between consecutive
 * model calls; the baseline replays every recorded request as a raw request to the same fake,
 * so subtracting it leaves what the agent itself spends (building the request, parsing the
 * stream, running the tool, recording history).
 * Run alone with `node --import tsx bench/loop-overhead.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { Agent } from "../src/agent/agent.js";
import { httpRequest } from "../src/llm/http-client.js";
import { ToolRegistry } from "../src/tools/registry.js";
import type { RecordedRequest, ScriptedTurn } from "../test/fake-provider/types.js";
import { startBenchFake } from "./fake.js";
import { formatRatio, formatSample, median, printTable, type Row, summarize } from "./stats.js";

export const LOOP_ITERATIONS = 90;
/** Iterations whose overhead is reported, to show growth with history length. */
export const CHECKPOINTS = [10, 45, 90];

interface LoopRun {
  /** Wall time of each iteration (model call + tool + bookkeeping), in order. */
  iterations: number[];
  /** Raw fetch time of the same request, in order. */
  fetches: number[];
}

/** Calls `noop` until the history holds LOOP_ITERATIONS tool results, then answers. */
function loopStep(req: RecordedRequest): ScriptedTurn {
  const messages = (req.body.messages ?? []) as Array<{ role: string }>;
  const results = messages.filter((m) => m.role === "tool").length;
  if (results >= LOOP_ITERATIONS) return { text: "done" };
  return { toolCalls: [{ name: "noop", arguments: { n: results } }] };
}

function noopRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register({
    name: "noop",
    toolset: "bench",
    description: "Does nothing.",
    parameters: z.object({ n: z.number() }),
    parallelSafe: true,
    handler: async () => "ok",
  });
  return registry;
}

/** The same request over the same HTTP client the agent uses, so only the harness differs. */
async function timedFetch(url: string, req: RecordedRequest): Promise<number> {
  const started = performance.now();
  const res = await httpRequest(url + req.path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: req.rawBody,
  });
  await res.text();
  return performance.now() - started;
}

async function oneLoop(dir: string, url: string, requests: RecordedRequest[]): Promise<LoopRun> {
  const starts: number[] = [];
  const agent = new Agent({
    model: "m",
    provider: "custom",
    baseUrl: `${url}/v1`,
    apiKey: "bench",
    registry: noopRegistry(),
    tools: ["noop"],
    cwd: dir,
    home: dir,
    maxIterations: LOOP_ITERATIONS + 10,
    retry: { baseMs: 1, capMs: 1 },
    guardrails: false,
    onEvent: (event) => {
      if (event.type === "thinking" && event.state === "start") starts.push(performance.now());
    },
  });
  requests.length = 0;
  const result = await agent.runConversation("Call noop until told to stop.");
  if (!result.completed || result.toolCalls !== LOOP_ITERATIONS) {
    throw new Error(`loop ended early: ${result.toolCalls} tool calls, ${result.error ?? "no error"}`);
  }
  const recorded = [...requests];
  const iterations = starts.slice(1).map((t, i) => t - starts[i]!);
  const fetches: number[] = [];
  for (const req of recorded.slice(0, LOOP_ITERATIONS)) fetches.push(await timedFetch(url, req));
  return { iterations, fetches };
}

/** Median of the overheads in a window of five iterations ending at `iteration` (1-based). */
function windowOverhead(run: LoopRun, iteration: number): number {
  const overheads: number[] = [];
  for (let i = Math.max(0, iteration - 5); i < iteration; i++) overheads.push(run.iterations[i]! - run.fetches[i]!);
  return median(overheads);
}

export async function benchLoopOverhead(runs = 7): Promise<Row[]> {
  const fake = await startBenchFake({ fallback: loopStep });
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-loop-"));
  const measured: LoopRun[] = [];
  try {
    for (let i = 0; i < runs + 1; i++) {
      const run = await oneLoop(dir, fake.url, fake.requests);
      if (i > 0) measured.push(run); // the first loop warms up the JIT and the connection pool
    }
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const perRun = (f: (run: LoopRun) => number) => summarize(measured.map(f));
  const iteration = perRun((r) => median(r.iterations));
  const fetch = perRun((r) => median(r.fetches));
  const overhead = perRun((r) => median(r.iterations.map((t, i) => t - r.fetches[i]!)));
  const total = perRun((r) => r.iterations.reduce((a, b) => a + b, 0));
  const totalFetch = perRun((r) => r.fetches.reduce((a, b) => a + b, 0));
  const rows: Row[] = [
    {
      figure: `tool loop, ${LOOP_ITERATIONS} iterations: total (${runs} runs)`,
      value: formatSample(total, "ms"),
      baseline: `raw requests: ${formatSample(totalFetch, "ms")}`,
      ratio: formatRatio(total.median, totalFetch.median),
    },
    {
      figure: "tool loop: one iteration (median)",
      value: formatSample(iteration, "ms", 2),
      baseline: `raw request: ${formatSample(fetch, "ms", 2)}`,
      ratio: formatRatio(iteration.median, fetch.median),
    },
    {
      figure: "harness overhead per iteration (median)",
      value: formatSample(overhead, "ms", 2),
      baseline: "iteration minus raw request",
    },
  ];
  for (const checkpoint of CHECKPOINTS) {
    const history = 2 * checkpoint - 1; // the user message, then a call and a result per iteration
    rows.push({
      figure: `  overhead at iteration ${checkpoint} (${history} messages)`,
      value: formatSample(
        perRun((r) => windowOverhead(r, checkpoint)),
        "ms",
        2,
      ),
      baseline: `iterations ${Math.max(1, checkpoint - 4)}-${checkpoint}`,
    });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Harness overhead", await benchLoopOverhead());
}
