/**
 * First-call cost of the checks every one-shot run makes once, each timed in a fresh process
 * (where regular expressions and functions are still uncompiled), against a built `dist/`:
 *
 *   node --import tsx bench/first-calls.ts [distDir] [runs]
 *
 * Pass another checkout's `dist/` to compare two builds. Prints a Markdown table of medians.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { formatSample, summarize } from "./stats.js";

const dist = pathToFileURL(`${resolve(process.argv[2] ?? "dist")}/`).href;
const runs = Number(process.argv[3] ?? 11);

/** Each probe imports what it needs, then prints the milliseconds its first call took. */
const PROBES: Record<string, string> = {
  "approval (hardline + dangerous) of `echo hello-bench`": `
    const m = await import("${dist}tools/approval/dangerous.js");
    const t = performance.now();
    m.detectHardlineCommand("echo hello-bench");
    m.detectDangerousCommand("echo hello-bench");
    console.log(performance.now() - t);`,
  "redactSecrets of a terminal result": `
    const m = await import("${dist}util/redact.js");
    const text = JSON.stringify({ output: "hello-bench\\n", exit_code: 0 });
    const t = performance.now();
    m.redactSecrets(text);
    console.log(performance.now() - t);`,
  "threat scan of a skill description": `
    const m = await import("${dist}tools/skills/threat-check.js");
    const t = performance.now();
    m.scanSkillText("Review a diff or pull request for correctness, tests, security and clarity.");
    console.log(performance.now() - t);`,
  "skills discovery, import + first call (bundled skills)": `
    const t = performance.now();
    const seed = await import("${dist}tools/skills/seed.js");
    const home = process.env.HERMES_HOME;
    const m = await import("${dist}tools/skills/discovery.js");
    const seeded = performance.now();
    seed.seedBundledSkills(home);
    const s = performance.now();
    m.discoverSkills({ home });
    console.log(performance.now() - s + (seeded - t));`,
};

const home = mkdtempSync(join(tmpdir(), "hermes-first-calls-"));
try {
  console.log(`first calls in fresh processes, ${runs} runs each, ${dist}\n`);
  console.log("| check | first call |\n|---|---|");
  for (const [name, code] of Object.entries(PROBES)) {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
        encoding: "utf8",
        env: { ...process.env, HERMES_HOME: home },
      });
      if (run.status !== 0) throw new Error(`${name} failed:\n${run.stderr}`);
      samples.push(Number(run.stdout.trim()));
    }
    console.log(`| ${name} | ${formatSample(summarize(samples), "ms", 2)} |`);
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
