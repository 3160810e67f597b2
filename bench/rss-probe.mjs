// Preloaded with `node --import` when GNU time is missing: on exit, writes this process's max
// RSS (KiB) to the file named by HERMES_BENCH_RSS_FILE.
import { writeFileSync } from "node:fs";

const file = process.env.HERMES_BENCH_RSS_FILE;
if (file) {
  process.on("exit", () => writeFileSync(file, `${process.resourceUsage().maxRSS}\n`));
}
