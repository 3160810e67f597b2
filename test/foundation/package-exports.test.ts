import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { test } from "node:test";

/** Every name ../shared/acceptance/README.md says the package root exports, plus the core API. */
const REQUIRED = [
  "repairToolArguments",
  "classifyApiError",
  "computeThresholdTokens",
  "ContextCompressor",
  "canonicalToolArgs",
  "ToolGuardrails",
  "classifyToolFailure",
  "scanForThreats",
  "detectDangerousCommand",
  "parseDuration",
  "parseSchedule",
  "computeNextRun",
  "isSilentResponse",
  "resolveToolset",
  "validateToolset",
  "getToolset",
  "fuzzyFindAndReplace",
  "MemoryStore",
  "redactSecrets",
  "CredentialPool",
  "Agent",
  "ToolRegistry",
  "openSessionStore",
];

test("import from 'hermes-agent' resolves to the built package and exports the public API", () => {
  assert.ok(existsSync("dist/index.js") && existsSync("dist/index.d.ts"), "dist/ has the entry and its types");
  const script = `const m = await import("hermes-agent"); console.log(JSON.stringify(Object.keys(m)));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  const names = new Set(JSON.parse(out) as string[]);
  const missing = REQUIRED.filter((name) => !names.has(name));
  assert.deepEqual(missing, []);
});

test("importing the library does not load SQLite or any provider SDK", () => {
  const script = `await import("hermes-agent"); const { createRequire } = await import("node:module");
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify(loaded.filter((p) => /better-sqlite3|@aws-sdk|openai|@anthropic-ai/.test(p))));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), []);
});
