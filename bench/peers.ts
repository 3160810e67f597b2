/**
 * `npm run bench -- --peers`: hermes beside the pi coding agent on the same one-tool task
 * against the same fake provider. pi is installed once into `.bench-tmp/pi-<version>`
 * (gitignored) and reused; which release depends on the running Node (see piReleaseFor). pi reads the fake as a custom `openai-completions` provider from `models.json` in
 * its agent directory (`PI_CODING_AGENT_DIR`) and runs one-shot with `-p`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type ChildRun, rssMethod, runNodeOk } from "./child.js";
import { assertTaskDone, hermesOneShotArgs } from "./one-shot.js";
import { formatKiB, formatRatio, formatSample, type Row, type Sample, summarize, type TableHeader } from "./stats.js";
import { startTaskProvider, TASK_OUTPUT, TASK_PROMPT, type TaskProvider } from "./task.js";

interface PiRelease {
  pkg: string;
  version: string;
}

/**
 * The newest pi that installs on the running Node: pi moved to a new package name at 0.74 and
 * needs Node 22.19 from then on, so Node 20 measures the last release that still supports it.
 */
export function piReleaseFor(nodeVersion: string): PiRelease {
  const [major = 0, minor = 0] = nodeVersion.split(".").map(Number);
  const modern = major > 22 || (major === 22 && minor >= 19);
  return modern
    ? { pkg: "@earendil-works/pi-coding-agent", version: "0.87" }
    : { pkg: "@mariozechner/pi-coding-agent", version: "0.73" };
}

const PI = piReleaseFor(process.versions.node);
const PI_PACKAGE = PI.pkg;
export const PI_VERSION = PI.version;
const PI_PREFIX = resolve(`.bench-tmp/pi-${PI_VERSION}`);

export interface PiInstall {
  entry: string;
  version: string;
}

function installedPi(): PiInstall | undefined {
  const manifest = join(PI_PREFIX, "node_modules", PI_PACKAGE, "package.json");
  if (!existsSync(manifest)) return undefined;
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { version: string; bin: Record<string, string> };
  if (!pkg.version.startsWith(`${PI_VERSION}.`)) return undefined;
  const bin = pkg.bin.pi;
  if (!bin) throw new Error(`${PI_PACKAGE} has no "pi" bin`);
  return { entry: join(dirname(manifest), bin), version: pkg.version };
}

/** The cached install, or a fresh `npm install --prefix .bench-tmp/pi`. */
export function ensurePi(): PiInstall {
  const cached = installedPi();
  if (cached) return cached;
  mkdirSync(PI_PREFIX, { recursive: true });
  const manifest = join(PI_PREFIX, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, '{ "private": true }\n');
  console.error(`bench: installing ${PI_PACKAGE}@${PI_VERSION} into ${PI_PREFIX} ...`);
  const npm = spawnSync(
    "npm",
    ["install", "--prefix", PI_PREFIX, "--no-audit", "--no-fund", "--loglevel=error", `${PI_PACKAGE}@${PI_VERSION}`],
    { stdio: ["ignore", "inherit", "inherit"] },
  );
  if (npm.status !== 0) throw new Error(`npm install of ${PI_PACKAGE} failed with ${npm.status}`);
  const installed = installedPi();
  if (!installed) throw new Error(`${PI_PACKAGE}@${PI_VERSION} is not where npm was told to put it`);
  return installed;
}

/** pi's agent directory with the fake as its only custom provider. */
function piAgentDir(parent: string, providerUrl: string): string {
  const dir = mkdtempSync(join(parent, "pi-agent-"));
  const models = {
    providers: {
      fake: {
        baseUrl: `${providerUrl}/v1`,
        api: "openai-completions",
        apiKey: "bench",
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
        models: [{ id: "m" }],
      },
    },
  };
  writeFileSync(join(dir, "models.json"), JSON.stringify(models, null, 2));
  return dir;
}

interface PeerRun {
  run: ChildRun;
  firstRequestMs: number;
  firstRequestBytes: number;
  requests: number;
}

async function measured(provider: TaskProvider, start: () => Promise<ChildRun>, agent: string): Promise<PeerRun> {
  provider.reset();
  const run = await start();
  assertTaskDone(agent, run);
  const first = provider.log.arrivals[0];
  if (first === undefined || provider.log.firstRequestBytes === undefined) {
    throw new Error(`${agent} finished without calling the provider`);
  }
  return {
    run,
    firstRequestMs: first - run.spawnedAt,
    firstRequestBytes: provider.log.firstRequestBytes,
    requests: provider.log.arrivals.length,
  };
}

export interface PeerTable {
  header: TableHeader;
  rows: Row[];
}

export async function benchPeers(runs = 7): Promise<PeerTable> {
  const pi = ensurePi();
  const provider = await startTaskProvider();
  const dir = mkdtempSync(join(tmpdir(), "hermes-bench-peers-"));
  const cwd = mkdtempSync(join(dir, "cwd-"));
  const hermesEnv = { ...process.env, HERMES_HOME: mkdtempSync(join(dir, "hermes-home-")) };
  const piEnv = { ...process.env, PI_CODING_AGENT_DIR: piAgentDir(dir, provider.url), PI_OFFLINE: "1" };
  const piArgs = [pi.entry, "-p", "--no-session", "--provider", "fake", "--model", "m", TASK_PROMPT];
  const hermes: PeerRun[] = [];
  const peer: PeerRun[] = [];
  try {
    for (let i = 0; i < runs + 1; i++) {
      const h = await measured(
        provider,
        () => runNodeOk(hermesOneShotArgs(provider.url), { cwd, env: hermesEnv }),
        "hermes",
      );
      const p = await measured(provider, () => runNodeOk(piArgs, { cwd, env: piEnv }), "pi");
      if (i === 0) continue; // warm-up: page cache, first-run setup of each agent's home
      hermes.push(h);
      peer.push(p);
    }
  } finally {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const row = (figure: string, pick: (r: PeerRun) => number, format: (s: Sample) => string): Row => {
    const h = summarize(hermes.map(pick));
    const p = summarize(peer.map(pick));
    return { figure, value: format(h), baseline: format(p), ratio: formatRatio(h.median, p.median) };
  };
  const ms = (s: Sample) => formatSample(s, "ms");
  const count = (s: Sample) =>
    s.min === s.max ? s.median.toLocaleString("en-US") : `${s.median} (min ${s.min}, max ${s.max})`;
  return {
    header: { value: "hermes", baseline: `pi ${pi.version}`, ratio: "hermes/pi" },
    rows: [
      row(`one-tool task: wall (${runs} runs each)`, (r) => r.run.ms, ms),
      row(`one-tool task: max RSS (${rssMethod()})`, (r) => r.run.maxRssKiB, formatKiB),
      row("time to first request", (r) => r.firstRequestMs, ms),
      row("first request: bytes", (r) => r.firstRequestBytes, count),
      row("first request: est. tokens (bytes/4)", (r) => Math.round(r.firstRequestBytes / 4), count),
      row("model requests per task", (r) => r.requests, count),
      {
        figure: `task output contains "${TASK_OUTPUT}"`,
        value: "yes, every run",
        baseline: "yes, every run",
      },
    ],
  };
}
