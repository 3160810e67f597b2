/**
 * What the OS sandbox costs a command: 20 `terminal` commands run one after another, with and
 * without bubblewrap, interleaved. Skipped (with a row saying so) where bwrap is not installed.
 * Run alone with `node --import tsx bench/sandbox.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bwrapOnPath } from "../src/runtime/sandbox.js";
import { runForeground } from "../src/tools/builtin/terminal.js";
import { configureSandbox, secretsToHide } from "../src/tools/sandbox.js";
import { formatSample, printTable, type Row, summarize } from "./stats.js";

const COMMANDS = 20;

export async function benchSandbox(rounds = 5): Promise<Row[]> {
  const bwrap = bwrapOnPath();
  if (!bwrap) return [{ figure: "sandbox cost per command", value: "not measured: bubblewrap is not installed" }];
  const cwd = mkdtempSync(join(tmpdir(), "hermes-bench-sandbox-"));
  const signal = new AbortController().signal;
  const loop = async () => {
    const started = performance.now();
    for (let i = 0; i < COMMANDS; i++) {
      const result = await runForeground(`echo ${i} > n.txt && cat n.txt`, cwd, 30, signal);
      if (result.exit_code !== 0) throw new Error(`command failed: ${result.output}`);
    }
    return (performance.now() - started) / COMMANDS;
  };
  const policy = {
    mode: "workspace-write" as const,
    bwrap,
    writableRoots: [],
    network: true,
    ...secretsToHide(join(cwd, ".hermes")),
  };
  const plain: number[] = [];
  const confined: number[] = [];
  try {
    for (let i = 0; i <= rounds; i++) {
      configureSandbox(undefined);
      const a = await loop();
      configureSandbox(policy);
      const b = await loop();
      if (i === 0) continue;
      plain.push(a);
      confined.push(b);
    }
  } finally {
    configureSandbox(undefined);
    rmSync(cwd, { recursive: true, force: true });
  }
  const added = summarize(confined.map((value, i) => value - plain[i]!));
  return [
    {
      figure: `terminal command in the sandbox (mean of ${COMMANDS} in a row, ${rounds} rounds)`,
      value: formatSample(summarize(confined), "ms"),
      baseline: `unconfined: ${formatSample(summarize(plain), "ms")}`,
    },
    { figure: "added per command by the sandbox", value: formatSample(added, "ms"), baseline: "target ≤ 15 ms" },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Sandbox", await benchSandbox());
}
