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
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { RecordedRequest } from "../test/fake-provider/types.js";
import { startBenchFake } from "./fake.js";
import { percentile, printTable, type Row } from "./stats.js";

const KEY = "bench-key-6f0c1d9e8a7b5c4d";
export const CONCURRENCY = 50;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const MIB = 1024 * 1024;
/** The same I/O per request in a minimal server: what hermes is measured against. */
const FLOOR_SCRIPT = resolve("bench/api-server-floor.cjs");

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

interface Cpu {
  user: number;
  system: number;
}

/** CPU time the process has used so far, in ms (clock ticks of 10 ms). */
function cpuMsOf(pid: number): Cpu {
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

interface Server {
  base: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts a server in a child process and waits until it says where it listens. */
async function startServer(args: string[], env: NodeJS.ProcessEnv): Promise<Server> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "ignore", "pipe"] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  };
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}: ${stderr}`)));
    });
    return { base, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Served {
  times: number[];
  crossTalk: number;
}

export async function benchApiServer(): Promise<Row[]> {
  let template: unknown;
  const fake = await startBenchFake({
    fallback: (req) => {
      template ??= req.body;
      fake.requests.length = 0;
      return { text: `marker ${lastUserText(req)}` };
    },
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-api-"));
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\ngateway:\n  api_server:\n    max_concurrent_runs: ${CONCURRENCY}\n`,
  );
  const servers: Server[] = [];
  try {
    const hermes = await startServer(
      [...(process.env.BENCH_CHILD_ARGS?.split(" ") ?? []), "dist/cli/main.js", "gateway", "run"],
      {
        ...process.env,
        HERMES_HOME: home,
        API_SERVER_ENABLED: "true",
        API_SERVER_KEY: KEY,
        API_SERVER_PORT: "0",
        OPENROUTER_API_KEY: "",
      },
    );
    servers.push(hermes);
    const idleRss = rssOf(hermes.pid);
    const auth = { authorization: `Bearer ${KEY}` };
    // One warm-up burst each: the first requests compile code paths and open connections.
    await burst(`${hermes.base}/v1/chat/completions`, auth, -1, "warm");
    await burst(`${fake.url}/v1/chat/completions`, {}, -1, "warm");
    // The floor sends the model exactly the request body hermes sent.
    const templateFile = join(home, "floor-request.json");
    writeFileSync(templateFile, JSON.stringify(template));
    const floorArgs = process.env.BENCH_FLOOR_ARGS?.split(" ") ?? [];
    const floor = await startServer(
      [...floorArgs, FLOOR_SCRIPT, `${fake.url}/v1`, templateFile, join(home, "floor.db")],
      {
        ...process.env,
        API_SERVER_KEY: KEY,
      },
    );
    servers.push(floor);
    await burst(`${floor.base}/v1/chat/completions`, auth, -1, "warm");

    const cpuBefore = { hermes: cpuMsOf(hermes.pid), floor: cpuMsOf(floor.pid) };
    const direct: number[] = [];
    const served: Served = { times: [], crossTalk: 0 };
    const minimal: Served = { times: [], crossTalk: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      direct.push(...(await burst(`${fake.url}/v1/chat/completions`, {}, round, "direct")).times);
      for (const [server, into, label] of [
        [hermes, served, "server"],
        [floor, minimal, "floor"],
      ] as const) {
        const result = await burst(`${server.base}/v1/chat/completions`, auth, round, label);
        into.times.push(...result.times);
        into.crossTalk += result.crossTalk;
      }
    }
    const loadedRss = rssOf(hermes.pid);
    const cpuAfter = { hermes: cpuMsOf(hermes.pid), floor: cpuMsOf(floor.pid) };
    const count = ROUNDS * CONCURRENCY;
    const perRequest = (before: Cpu, after: Cpu) => ({
      user: (after.user - before.user) / count,
      system: (after.system - before.system) / count,
    });
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    const added = (times: number[], p: number) =>
      `${ms(percentile(times, p))} (+${ms(percentile(times, p) - percentile(direct, p))})`;
    const cpu = (spent: { user: number; system: number }) =>
      `${ms(spent.user + spent.system)} (user ${ms(spent.user)}, system ${ms(spent.system)})`;
    const hermesCpu = perRequest(cpuBefore.hermes, cpuAfter.hermes);
    const floorCpu = perRequest(cpuBefore.floor, cpuAfter.floor);
    return [
      {
        figure: `streamed chat completion, ${CONCURRENCY} at once: p50 to last byte`,
        value: ms(percentile(served.times, 50)),
        baseline: `${ms(percentile(direct, 50))} (fake provider direct)`,
        ratio: `+${ms(percentile(served.times, 50) - percentile(direct, 50))}`,
      },
      {
        figure: `the same: p99 to last byte`,
        value: ms(percentile(served.times, 99)),
        baseline: `${ms(percentile(direct, 99))} (fake provider direct)`,
        ratio: `+${ms(percentile(served.times, 99) - percentile(direct, 99))}`,
      },
      {
        figure: "floor: the same requests through a minimal relay (bench/api-server-floor.cjs), p50 / p99",
        value: `${added(minimal.times, 50)} / ${added(minimal.times, 99)}`,
        baseline: "over the fake provider direct",
      },
      { figure: "server CPU per streamed request", value: cpu(hermesCpu), baseline: `floor: ${cpu(floorCpu)}` },
      {
        figure: `replies with another request's marker (of ${count})`,
        value: String(served.crossTalk),
        baseline: `floor: ${minimal.crossTalk}`,
      },
      { figure: "server RSS, idle after start", value: `${idleRss.toFixed(1)} MiB`, baseline: "target ≤ 80 MiB" },
      { figure: `server RSS after ${count + CONCURRENCY} streamed requests`, value: `${loadedRss.toFixed(1)} MiB` },
    ];
  } finally {
    for (const server of servers) await server.stop();
    await fake.close();
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("API server", await benchApiServer());
}
