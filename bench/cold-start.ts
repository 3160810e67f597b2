/** Cold start of `hermes --version` / `--help` against a bare `node -e 0`, interleaved runs. */
import { spawnSync } from "node:child_process";
import { formatSample, type Row, summarize } from "./stats.js";

function timeRun(node: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const result = spawnSync(node, args, { stdio: "ignore" });
  if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited with ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** `node`: another Node binary to measure with (its own bare start is the baseline); `label` names it in the rows. */
export function benchColdStart(runs = 15, node = process.execPath, label = ""): Row[] {
  const commands = {
    bare: ["-e", "0"],
    version: ["dist/cli/main.js", "--version"],
    help: ["dist/cli/main.js", "--help"],
  };
  const times: Record<keyof typeof commands, number[]> = { bare: [], version: [], help: [] };
  for (let i = 0; i < runs + 2; i++) {
    for (const key of Object.keys(commands) as Array<keyof typeof commands>) {
      const ms = timeRun(node, commands[key]);
      if (i >= 2) times[key].push(ms); // two warm-up rounds fill the page cache
    }
  }
  const bare = summarize(times.bare);
  const row = (figure: string, key: "version" | "help"): Row => {
    const s = summarize(times[key]);
    return {
      figure,
      value: formatSample(s, "ms"),
      baseline: `node -e 0: ${formatSample(bare, "ms")}`,
      ratio: `${(s.median / bare.median).toFixed(2)}x`,
    };
  };
  return [
    row(`cold start: hermes --version (${runs} runs)${label}`, "version"),
    row(`cold start: hermes --help (${runs} runs)${label}`, "help"),
  ];
}
