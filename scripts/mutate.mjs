#!/usr/bin/env node
// Mutation testing of the modules where a silent regression is a security or data-loss bug:
//   npm run mutate                 every module below, one after another
//   npm run mutate -- redact http  only those
// Each module is mutated by Stryker and judged by the test files that cover it (the command
// runner runs them through scripts/run-tests.mjs), so a run fits two cores. Reports go to
// reports/mutation/<module>.html; the score and the surviving mutants print as each ends.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const MODULES = {
  redact: { mutate: ["src/util/redact.ts"], tests: ["test/util/redact"] },
  threats: { mutate: ["src/util/threats.ts"], tests: ["test/util/threats"] },
  "file-paths": {
    mutate: ["src/tools/builtin/file-paths.ts"],
    tests: ["test/tools/protected-files", "test/tools/read-file", "test/tools/write-file"],
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
    tests: ["test/agent/compression-loop", "test/agent/compressor"],
  },
  // Pairing codes, inbound de-duplication and the delivery ledger.
  "gateway-store": {
    mutate: ["src/state/sqlite-gateway-store.ts"],
    tests: ["test/state/sqlite-gateway-store", "test/gateway/durability", "test/gateway/authorization-rules"],
  },
  // Run records and idempotency keys of the API server.
  "api-store": { mutate: ["src/state/sqlite-api-store.ts"], tests: ["test/state/sqlite-api-store"] },
  "store-location": {
    mutate: ["src/state/store-location.ts"],
    tests: ["test/state/import-hermes-python"],
  },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in MODULES));
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(", ")}; known: ${Object.keys(MODULES).join(", ")}`);
  process.exit(2);
}
let failed = false;
for (const name of wanted.length > 0 ? wanted : Object.keys(MODULES)) {
  const { mutate, tests } = MODULES[name];
  console.log(`\n== ${name}: ${mutate.join(", ")}`);
  const config = {
    testRunner: "command",
    commandRunner: { command: `node scripts/run-tests.mjs ${tests.join(" ")}` },
    mutate,
    coverageAnalysis: "off",
    concurrency: Number(process.env.MUTATE_CONCURRENCY ?? 2),
    reporters: ["clear-text", "html"],
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
  const run = spawnSync(process.execPath, ["node_modules/@stryker-mutator/core/bin/stryker.js", "run", file], {
    stdio: "inherit",
  });
  if (run.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
