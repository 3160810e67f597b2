/**
 * `hermes acp` (the built CLI) driven by the ACP SDK's client over stdio, as an editor does:
 * the time from spawn to the answer of `initialize`, beside spawning `hermes --version`
 * (target: at most 2x), and the time from sending a prompt on a new session to its first
 * message chunk against the zero-latency fake provider.
 * Run alone with `node --import tsx bench/acp.ts`.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { client, ndJsonStream } from "@agentclientprotocol/sdk/unstable";
import { startBenchFake } from "./fake.js";
import { formatRatio, formatSample, printTable, type Row, summarize } from "./stats.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const RUNS = 7;

function requireBuild(): void {
  if (!existsSync(CLI)) {
    throw new Error(`bench/acp needs the built CLI at ${CLI}; run \`npm run build\` first.`);
  }
}

/** Spawn to exit of `hermes --version`, in ms. */
function versionRun(entry: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...entry, "--version"], { stdio: "ignore" });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}`)),
    );
  });
}

interface AcpTimes {
  initializeMs: number;
  firstChunkMs: number;
}

/** One editor session: spawn, initialize, new session, one prompt; times to initialize and to the first chunk. */
async function acpRun(entry: string[], home: string, cwd: string): Promise<AcpTimes> {
  const started = performance.now();
  const child = spawn(process.execPath, [...entry, "acp"], {
    env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  let firstChunk: (() => void) | undefined;
  const app = client({ name: "bench" }).onNotification("session/update", ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") firstChunk?.();
  });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await connection.agent
      .request("initialize", { protocolVersion: 1, clientCapabilities: {} })
      .catch(async (error) => {
        await exited;
        throw new Error(
          `hermes acp did not answer initialize (${(error as Error).message}); is ${entry.join(" ")} a build with the acp command? ${stderr.trim().slice(0, 500)}`,
        );
      });
    const initializeMs = performance.now() - started;
    const { sessionId } = await connection.agent.request("session/new", { cwd, mcpServers: [] });
    const chunk = new Promise<number>((resolve) => {
      firstChunk = () => resolve(performance.now());
    });
    const sent = performance.now();
    const prompt = connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "say something" }],
    });
    const firstChunkMs = (await chunk) - sent;
    await prompt;
    return { initializeMs, firstChunkMs };
  } finally {
    connection.close();
    child.stdin.end();
    child.kill("SIGTERM");
    await exited;
  }
}

/** `entry`: the node arguments that start hermes (default: the built CLI). */
export async function benchAcp(entry: string[] = [CLI]): Promise<Row[]> {
  if (entry.length === 1 && entry[0] === CLI) requireBuild();
  const fake = await startBenchFake({ fallback: { text: "a short answer from the fake" } });
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-acp-"));
  const cwd = mkdtempSync(join(tmpdir(), "hermes-bench-acp-work-"));
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${fake.url}/v1\nmemory:\n  memory_enabled: false\n  user_profile_enabled: false\n`,
  );
  try {
    // Warm the file cache and any code cache once before measuring.
    await versionRun(entry);
    await acpRun(entry, home, cwd);
    const version: number[] = [];
    const initialize: number[] = [];
    const firstChunk: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      version.push(await versionRun(entry));
      const times = await acpRun(entry, home, cwd);
      initialize.push(times.initializeMs);
      firstChunk.push(times.firstChunkMs);
    }
    const init = summarize(initialize);
    const ver = summarize(version);
    return [
      {
        figure: "hermes acp: spawn to initialize answered (target ≤ 2x --version)",
        value: formatSample(init, "ms"),
        baseline: `${formatSample(ver, "ms")} (hermes --version)`,
        ratio: formatRatio(init.median, ver.median),
      },
      {
        figure: "hermes acp: prompt sent to first message chunk (zero-latency fake)",
        value: formatSample(summarize(firstChunk), "ms"),
      },
    ];
  } finally {
    await fake.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("ACP (hermes acp over stdio)", await benchAcp());
}
