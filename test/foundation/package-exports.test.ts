import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

test("a plugin written in TypeScript typechecks against the package's exported plugin types", () => {
  const dir = mkdtempSync(join(tmpdir(), "hermes-plugin-types-"));
  try {
    writeFileSync(
      join(dir, "plugin.ts"),
      `import type { HookPayloads, PluginApi } from "hermes-agent";
export function register(api: PluginApi): void {
  api.registerTool({
    name: "typed_tool",
    description: "A typed tool",
    parameters: api.z.object({ n: api.z.number() }),
    handler: async ({ n }) => String(n * 2),
  });
  api.on("pre_tool_call", (payload: HookPayloads["pre_tool_call"]) =>
    payload.toolName === "terminal" ? { block: "no" } : undefined,
  );
  api.registerCommand({ name: "typed", description: "d", run: (args) => args.toUpperCase() });
}
// @ts-expect-error: an unknown event is a type error
export const wrong = (api: PluginApi) => api.on("not_an_event", () => undefined);
`,
    );
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["plugin.ts"],
      }),
    );
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(process.cwd(), join(dir, "node_modules", "hermes-agent"));
    execFileSync(process.execPath, [join(process.cwd(), "node_modules", "typescript", "bin", "tsc"), "-p", dir], {
      encoding: "utf8",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
