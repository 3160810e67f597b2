#!/usr/bin/env node
// Mutation testing of the modules where a silent regression is a security or data-loss bug:
//   npm run mutate                 every module below, one after another
//   npm run mutate -- redact http  only those
//   npm run mutate -- --changed REF [--budget-minutes N]
//                                  the modules whose mutated files changed since REF (CI uses the
//                                  commit in .ci/mutation-base); modules that would start after N
//                                  minutes are skipped and named
// Each module is mutated by Stryker and judged by the test files that cover it (the command
// runner runs them through scripts/run-tests.mjs), so a run fits two cores. Reports go to
// reports/mutation/<module>.html; the score and the surviving mutants print as each ends.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MODULES = {
  redact: {
    mutate: [
      "src/util/redact.ts",
      "src/util/redact-tokens.ts",
      "src/util/redact-names.ts",
      "src/util/redact-assign.ts",
      "src/util/redact-mask.ts",
      "src/util/redact-lines.ts",
      "src/util/redact-split.ts",
    ],
    tests: ["test/util/redact"],
  },
  threats: { mutate: ["src/util/threats.ts", "src/util/threat-patterns.ts"], tests: ["test/util/threats"] },
  "file-paths": {
    mutate: ["src/tools/builtin/file-paths.ts"],
    tests: ["test/tools/file-paths", "test/tools/protected-files", "test/tools/read-file", "test/tools/write-file"],
  },
  approval: {
    mutate: [
      "src/tools/approval/policy.ts",
      "src/tools/approval/hardline.ts",
      "src/tools/approval/opaque.ts",
      "src/tools/approval/destructive.ts",
    ],
    tests: [
      "test/tools/approval-policy",
      "test/tools/hardline",
      "test/tools/opaque-commands",
      "test/tools/evasion-corpus",
      "test/tools/dangerous",
      "test/tools/approval-bypasses",
    ],
  },
  http: {
    mutate: ["src/llm/http-client.ts"],
    tests: ["test/llm/http-client", "test/llm/http-sse", "test/llm/proxy", "test/llm/chat-completions"],
  },
  history: { mutate: ["src/agent/history.ts"], tests: ["test/agent/history"] },
  "api-auth": { mutate: ["src/api-server/auth.ts"], tests: ["test/api-server/auth"] },
  sandbox: {
    mutate: ["src/tools/sandbox.ts", "src/tools/sandbox-proxy.ts"],
    tests: ["test/runtime/sandbox", "test/tools/sandbox-proxy"],
  },
  sqlite: {
    mutate: ["src/state/sqlite-connection.ts"],
    tests: ["test/state/sqlite-connection", "test/state/session-store"],
  },
  "gateway-auth": {
    mutate: ["src/gateway/authorization.ts"],
    tests: ["test/gateway/authorization", "test/gateway/settings"],
  },
  compression: {
    mutate: ["src/agent/compression-driver.ts"],
    tests: [
      "test/agent/compression-driver",
      "test/agent/compression-loop",
      "test/agent/compressor",
      "test/agent/recovery-steps",
      "test/agent/memory-manager",
      "test/runtime/plugins",
      "test/gateway/routing",
    ],
  },
  // Pairing codes, inbound de-duplication and the delivery ledger.
  "gateway-store": {
    mutate: ["src/state/sqlite-gateway-store.ts", "src/state/gateway-codec.ts"],
    tests: ["test/state/sqlite-gateway-store", "test/gateway/durability", "test/gateway/authorization-rules"],
  },
  // Run records and idempotency keys of the API server.
  "api-store": { mutate: ["src/state/sqlite-api-store.ts"], tests: ["test/state/sqlite-api-store"] },
  "store-location": {
    mutate: ["src/state/store-location.ts"],
    tests: ["test/state/store-location", "test/state/import-hermes-python"],
  },
};

const args = process.argv.slice(2);
function option(flag) {
  const at = args.indexOf(flag);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (!value || value.startsWith("--")) {
    console.error(`${flag} needs a value`);
    process.exit(2);
  }
  args.splice(at, 2);
  return value;
}
const changedSince = option("--changed");
const budgetMinutes = Number(option("--budget-minutes") ?? Number.POSITIVE_INFINITY);
const wanted = args;
const unknown = wanted.filter((name) => !(name in MODULES));
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(", ")}; known: ${Object.keys(MODULES).join(", ")}`);
  process.exit(2);
}

/** Modules whose mutated files differ between `ref` and the working tree. */
function changedModules(ref) {
  const files = new Set(
    execFileSync("git", ["diff", "--name-only", ref, "--", "src"], { encoding: "utf8" }).split("\n").filter(Boolean),
  );
  return Object.keys(MODULES).filter((name) => MODULES[name].mutate.some((file) => files.has(file)));
}

let selected = wanted.length > 0 ? wanted : Object.keys(MODULES);
if (changedSince) {
  selected = changedModules(changedSince).filter((name) => wanted.length === 0 || wanted.includes(name));
  console.log(`modules changed since ${changedSince}: ${selected.join(", ") || "none"}`);
}
const started = Date.now();
let failed = false;
for (const name of selected) {
  if ((Date.now() - started) / 60_000 >= budgetMinutes) {
    console.log(`\n== ${name}: skipped, the ${budgetMinutes}-minute budget is spent (run npm run mutate -- ${name})`);
    continue;
  }
  const { mutate, tests } = MODULES[name];
  console.log(`\n== ${name}: ${mutate.join(", ")}`);
  const config = {
    testRunner: "command",
    commandRunner: { command: `HERMES_TEST_BAIL=1 node scripts/run-tests.mjs ${tests.join(" ")}` },
    mutate,
    coverageAnalysis: "off",
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
    reporters: ["clear-text", "html", "progress-append-only"],
    htmlReporter: { fileName: `reports/mutation/${name}.html` },
    // One sandbox directory per module, so runs of different modules can go side by side.
    tempDirName: `.stryker-tmp/${name}`,
    ignorePatterns: ["dist", ".bench-tmp", "reports", ".stryker-tmp"],
    cleanTempDir: "always",
    // Stryker would rewrite tsconfig.json with the TypeScript compiler API, which TypeScript 7
    // no longer has; the tests run the sources through tsx, so no tsconfig is needed.
    tsconfigFile: "no-tsconfig-for-stryker.json",
  };
  const file = join(mkdtempSync(join(tmpdir(), "hermes-mutate-")), "stryker.config.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  const left = budgetMinutes * 60_000 - (Date.now() - started);
  const run = spawnSync(process.execPath, ["node_modules/@stryker-mutator/core/bin/stryker.js", "run", file], {
    stdio: "inherit",
    ...(Number.isFinite(left) ? { timeout: Math.max(1000, left), killSignal: "SIGKILL" } : {}),
  });
  if (run.signal === "SIGKILL") {
    console.log(`\n== ${name}: stopped, the ${budgetMinutes}-minute budget ran out (run npm run mutate -- ${name})`);
    rmSync(`.stryker-tmp/${name}`, { recursive: true, force: true });
    failed = true;
  } else if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
