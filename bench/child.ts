/**
 * Runs a node child process and measures its wall time and max RSS. Max RSS comes from GNU
 * `/usr/bin/time -f %M` when it works here, else from a preloaded probe that writes the
 * child's own `process.resourceUsage().maxRSS` when it exits. Both report KiB.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

export type RssMethod = "gnu-time" | "probe";

export interface ChildRun {
  code: number | null;
  /** Wall time from spawn to exit. */
  ms: number;
  /** `performance.now()` just before the spawn, to relate the child to events seen in this process. */
  spawnedAt: number;
  maxRssKiB: number;
  stdout: string;
  stderr: string;
}

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  method?: RssMethod;
  /** The node binary to run (default: the one running the bench). */
  node?: string;
}

const GNU_TIME = "/usr/bin/time";
const PROBE = fileURLToPath(new URL("./rss-probe.mjs", import.meta.url));
let detected: RssMethod | undefined;

/** GNU time if `/usr/bin/time -f %M -o FILE` reports a number here, else the probe. */
export function rssMethod(): RssMethod {
  if (detected) return detected;
  detected = "probe";
  if (existsSync(GNU_TIME)) {
    const dir = mkdtempSync(join(tmpdir(), "hermes-bench-time-"));
    const out = join(dir, "rss");
    const result = spawnSync(GNU_TIME, ["-f", "%M", "-o", out, process.execPath, "-e", "0"], { stdio: "ignore" });
    if (result.status === 0 && existsSync(out) && Number(readFileSync(out, "utf8").trim()) > 0) detected = "gnu-time";
    rmSync(dir, { recursive: true, force: true });
  }
  return detected;
}

/** Runs `node <nodeArgs...>` and resolves when it exits; never rejects on a non-zero exit. */
export async function runNode(nodeArgs: string[], options: ChildOptions = {}): Promise<ChildRun> {
  const method = options.method ?? rssMethod();
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-rss-"));
  const rssFile = join(dir, "rss");
  const node = options.node ?? process.execPath;
  const [command, args] =
    method === "gnu-time"
      ? [GNU_TIME, ["-f", "%M", "-o", rssFile, node, ...nodeArgs]]
      : [node, ["--import", pathToFileURL(PROBE).href, ...nodeArgs]];
  const env = { ...(options.env ?? process.env), HERMES_BENCH_RSS_FILE: rssFile };
  try {
    const spawnedAt = performance.now();
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", resolve);
    });
    const ms = performance.now() - spawnedAt;
    const maxRssKiB = existsSync(rssFile) ? parseRss(readFileSync(rssFile, "utf8")) : Number.NaN;
    return { code, ms, spawnedAt, maxRssKiB, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** GNU time writes "Command exited with non-zero status N" before the figure on failure. */
export function parseRss(text: string): number {
  const lines = text.trim().split("\n");
  return Number(lines[lines.length - 1]);
}

/** Like `runNode`, but throws with the child's stderr when it fails. */
export async function runNodeOk(nodeArgs: string[], options: ChildOptions = {}): Promise<ChildRun> {
  const run = await runNode(nodeArgs, options);
  if (run.code !== 0) {
    throw new Error(`node ${nodeArgs.join(" ")} exited with ${run.code}:\n${run.stderr.slice(-2000)}`);
  }
  return run;
}
