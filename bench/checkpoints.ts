/**
 * What checkpoints cost on a generated 5,000-file project (50 directories of 100 files, file
 * times set an hour back as in a project that existed before the session): the first
 * snapshot, an incremental one after 3 files changed, one with nothing changed, and a restore
 * of those 3 files. Baseline: starting `git --version` once. Run alone with
 * `node --import tsx bench/checkpoints.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openCheckpointStore } from "../src/tools/checkpoints/index.js";
import { formatSample, printTable, type Row, summarize } from "./stats.js";

const DIRS = 50;
const FILES_PER_DIR = 100;

function generateProject(root: string): void {
  const past = new Date(Date.now() - 3_600_000);
  for (let d = 0; d < DIRS; d++) {
    const dir = join(root, `pkg${d}`, "src");
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) {
      const path = join(dir, `file${f}.ts`);
      writeFileSync(path, `// pkg ${d} file ${f}\n${"export const value = 42;\n".repeat(20 + ((d * f) % 80))}`);
      utimesSync(path, past, past);
    }
  }
  writeFileSync(join(root, ".gitignore"), "node_modules/\n");
}

async function timed(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

export async function benchCheckpoints(rounds = 7): Promise<Row[]> {
  const work = mkdtempSync(join(tmpdir(), "hermes-bench-checkpoints-"));
  try {
    const project = join(work, "project");
    mkdirSync(project);
    generateProject(project);
    const spawnTimes: number[] = [];
    for (let i = 0; i < rounds; i++) {
      spawnTimes.push(await timed(async () => execFileSync("git", ["--version"])));
    }

    const first: number[] = [];
    for (let i = 0; i < Math.min(rounds, 3); i++) {
      const home = join(work, `home-first-${i}`);
      const store = await openCheckpointStore({ home, projectDir: project });
      first.push(await timed(() => store.snapshot({ reason: "first" })));
      rmSync(home, { recursive: true, force: true });
    }

    const home = join(work, "home");
    const store = await openCheckpointStore({ home, projectDir: project });
    const base = await store.snapshot({ reason: "base" });
    if (!base || base.totalFiles !== DIRS * FILES_PER_DIR + 1)
      throw new Error(`unexpected base snapshot: ${base?.totalFiles}`);
    const incremental: number[] = [];
    const unchanged: number[] = [];
    const restore: number[] = [];
    for (let i = 0; i <= rounds; i++) {
      for (let f = 0; f < 3; f++) writeFileSync(join(project, `pkg${i * 3 + f}`, "src", "file7.ts"), `// edit ${i}\n`);
      const took = await timed(async () => {
        const cp = await store.snapshot({ reason: `edit ${i}`, turn: i });
        if (cp?.filesChanged !== 3) throw new Error(`expected 3 changed files, got ${cp?.filesChanged}`);
      });
      const idle = await timed(async () => {
        if ((await store.snapshot({ reason: "idle" })) !== null) throw new Error("expected no change");
      });
      for (let f = 0; f < 3; f++) writeFileSync(join(project, `pkg${i * 3 + f}`, "src", "file8.ts"), `// oops ${i}\n`);
      const back = await timed(async () => {
        const result = await store.restore(1);
        if (result.restoredFiles.length !== 3)
          throw new Error(`expected 3 restored, got ${result.restoredFiles.length}`);
      });
      // Record the restored state so the next round again changes exactly 3 files.
      await store.snapshot({ reason: "restored" });
      // The first round warms the OS caches and the shadow index; it is not counted.
      if (i === 0) continue;
      incremental.push(took);
      unchanged.push(idle);
      restore.push(back);
    }
    const spawn = `one \`git --version\`: ${formatSample(summarize(spawnTimes), "ms")}`;
    const files = `${(DIRS * FILES_PER_DIR).toLocaleString("en-US")} files`;
    return [
      { figure: `checkpoint: first snapshot, ${files}`, value: formatSample(summarize(first), "ms"), baseline: spawn },
      {
        figure: `checkpoint: incremental snapshot, 3 of ${files} changed`,
        value: formatSample(summarize(incremental), "ms"),
        baseline: "target ≤ 100 ms",
      },
      {
        figure: `checkpoint: snapshot with nothing changed, ${files}`,
        value: formatSample(summarize(unchanged), "ms"),
      },
      {
        figure: `checkpoint: restore 3 files (with safety snapshot), ${files}`,
        value: formatSample(summarize(restore), "ms"),
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Checkpoints", await benchCheckpoints());
}
