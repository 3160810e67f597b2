import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const HEAVY = [
  /better-sqlite3/,
  /node_modules\/openai\//,
  /@anthropic-ai/,
  /@aws-sdk/,
  /pi-tui/,
  /\/dist\/state\//,
  /\/dist\/llm\/transports\//,
  /\/dist\/agent\//,
];

function modulesLoadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "hermes-trace-"));
  const traceFile = join(dir, "trace.txt");
  try {
    execFileSync(process.execPath, ["--import", "./test/helpers/import-trace.mjs", "dist/cli/main.js", ...args], {
      env: { ...process.env, IMPORT_TRACE_FILE: traceFile, HERMES_HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return readFileSync(traceFile, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const args of [["--version"], ["--help"]]) {
  test(`hermes ${args.join(" ")} loads no SDK, SQLite, TUI, store or transport module`, () => {
    const loaded = modulesLoadedBy(args);
    assert.ok(
      loaded.some((url) => url.endsWith("/dist/cli/main.js")),
      "the trace saw the entry module",
    );
    const heavy = loaded.filter((url) => HEAVY.some((re) => re.test(url)));
    assert.deepEqual(heavy, []);
  });
}

test("hermes --version prints the package version", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
  const out = execFileSync(process.execPath, ["dist/cli/main.js", "--version"], { encoding: "utf8" });
  assert.equal(out.trim(), `hermes ${pkg.version}`);
});
