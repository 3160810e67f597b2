/**
 * The API server under load: `hermes gateway run` (the built CLI) in a child process against
 * the zero-latency fake provider in this one. 50 streamed chat completions at once, each asking
 * for its own marker back; the time to the last byte of each, beside the same 50 requests sent
 * straight to the fake provider. Also the server's RSS idle and after the load.
 * Run alone with `node --import tsx bench/api-server.ts`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { RecordedRequest } from "../test/fake-provider/types.js";
import { startBenchFake } from "./fake.js";
import { percentile, printTable, type Row } from "./stats.js";

const KEY = "bench-key-6f0c1d9e8a7b5c4d";
export const CONCURRENCY = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const MIB = 1024 * 1024;

interface Timed {
  ms: number;
  body: string;
}

/** One streamed POST over a fresh connection; resolves with the time to the last byte. */
function post(url: string, body: string, headers: Record<string, string>): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = httpRequest(
      url,
      { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => {
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          else resolve({ ms: performance.now() - started, body: text });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** The streamed text of a chat-completions SSE body. */
function streamedText(body: string): string {
  let text = "";
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const chunk = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }> };
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  return text;
}

function lastUserText(req: RecordedRequest): string {
  const users = (req.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === "user");
  return users.at(-1)?.content ?? "";
}

/** CPU time the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return (kib * 1024) / MIB;
}

async function burst(url: string, headers: Record<string, string>, round: number, label: string) {
  const jobs = Array.from({ length: CONCURRENCY }, (_, i) => {
    const marker = `${label}-${round}-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: marker }] });
    return post(url, body, headers).then((timed) => ({ ...timed, marker }));
  });
  const results = await Promise.all(jobs);
  const crossTalk = results.filter((r) => streamedText(r.body) !== `marker ${r.marker}`).length;
  return { times: results.map((r) => r.ms), crossTalk };
}

export async function benchApiServer(): Promise<Row[]> {
  const fake = await startBenchFake({
    fallback: (req) => {
      fake.requests.length = 0;
      return { text: `marker ${lastUserText(req)}` };
    },
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-api-"));
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\ngateway:\n  api_server:\n    max_concurrent_runs: ${CONCURRENCY}\n`,
  );
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_CHILD_ARGS?.split(" ") ?? []), "dist/cli/main.js", "gateway", "run"],
    {
      env: {
        ...process.env,
        HERMES_HOME: home,
        API_SERVER_ENABLED: "true",
        API_SERVER_KEY: KEY,
        API_SERVER_PORT: "0",
        OPENROUTER_API_KEY: "",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`gateway exited ${code}: ${stderr}`)));
    });
    const idleRss = rssOf(child.pid!);
    const auth = { authorization: `Bearer ${KEY}` };
    // One warm-up burst each: the first requests compile code paths and open connections.
    await burst(`${base}/v1/chat/completions`, auth, -1, "warm");
    await burst(`${fake.url}/v1/chat/completions`, {}, -1, "warm");
    const cpuBefore = cpuMsOf(child.pid!);
    const direct: number[] = [];
    const served: number[] = [];
    let crossTalk = 0;
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(...(await burst(`${fake.url}/v1/chat/completions`, {}, round, "direct")).times);
      const viaServer = await burst(`${base}/v1/chat/completions`, auth, round, "server");
      served.push(...viaServer.times);
      crossTalk += viaServer.crossTalk;
    }
    const loadedRss = rssOf(child.pid!);
    const cpuAfter = cpuMsOf(child.pid!);
    const perRequest = (spent: number) => spent / (ROUNDS * CONCURRENCY);
    const userPerRequest = perRequest(cpuAfter.user - cpuBefore.user);
    const systemPerRequest = perRequest(cpuAfter.system - cpuBefore.system);
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const count = ROUNDS * CONCURRENCY;
    return [
      {
        figure: `streamed chat completion, ${CONCURRENCY} at once: p50 to last byte`,
        value: ms(percentile(served, 50)),
        baseline: `${ms(percentile(direct, 50))} (fake provider direct)`,
        ratio: `+${ms(percentile(served, 50) - percentile(direct, 50))}`,
      },
      {
        figure: `the same: p99 to last byte`,
        value: ms(percentile(served, 99)),
        baseline: `${ms(percentile(direct, 99))} (fake provider direct)`,
        ratio: `+${ms(percentile(served, 99) - percentile(direct, 99))}`,
      },
      {
        figure: "server CPU per streamed request",
        value: ms(userPerRequest + systemPerRequest),
        baseline: `user ${ms(userPerRequest)}, system ${ms(systemPerRequest)}`,
      },
      { figure: `replies with another request's marker (of ${count})`, value: String(crossTalk), baseline: "0" },
      { figure: "server RSS, idle after start", value: `${idleRss.toFixed(1)} MiB`, baseline: "target ≤ 80 MiB" },
      { figure: `server RSS after ${count + CONCURRENCY} streamed requests`, value: `${loadedRss.toFixed(1)} MiB` },
    ];
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("API server", await benchApiServer());
}
