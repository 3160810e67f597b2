/**
 * `npm run bench`: prints every figure the code supports so far as a table.
 * Each figure is a median (min, max) over repeated runs, beside its baseline from the same run.
 */
import { existsSync } from "node:fs";
import { cpus } from "node:os";
import { benchColdStart } from "./cold-start.js";
import { printTable } from "./stats.js";

if (!existsSync("dist/cli/main.js")) {
  console.error("bench: dist/ is missing; run `npm run build` first");
  process.exit(1);
}

console.log(`hermes-agent benchmarks — node ${process.version}, ${cpus().length} cpu(s), ${new Date().toISOString()}`);
printTable("Cold start", benchColdStart());
