import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

const HEAVY = [
  /better-sqlite3/,
  /node_modules\/openai\//,
  /@anthropic-ai/,
  /@aws-sdk/,
  /pi-tui/,
  /@clack\/prompts/,
  /@modelcontextprotocol/,
  /\/dist\/state\//,
  /\/dist\/llm\/transports\//,
  /\/dist\/agent\//,
];

const ENTRY_URL = pathToFileURL(resolve("dist/cli/main.js")).href;

interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/** Output file URL → URLs of the modules bundled into it, from the metafile the build writes. */
function bundleContents(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync("dist/cli/bundle-meta.json", "utf8")) as Metafile;
  const contents = new Map<string, string[]>();
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    const modules = Object.keys(inputs).map((input) => pathToFileURL(resolve(input)).href);
    contents.set(pathToFileURL(resolve(output)).href, modules);
  }
  return contents;
}

/** Every file: URL the process resolved while running `hermes <args>`. */
function filesLoadedBy(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "hermes-trace-"));
  const traceFile = join(dir, "trace.txt");
  try {
    execFileSync(process.execPath, ["--import", "./test/helpers/import-trace.mjs", "dist/cli/main.js", ...args], {
      env: { ...process.env, IMPORT_TRACE_FILE: traceFile, HERMES_HOME: dir },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const urls = readFileSync(traceFile, "utf8").split("\n").filter(Boolean);
    return [...new Set(urls.filter((url) => url.startsWith("file:")))];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The source modules and packages behind the loaded files: a bundle file stands for the modules
 * the metafile lists for it. A file of dist/cli/ the metafile does not know means a stale build.
 */
function modulesBehind(files: string[]): string[] {
  const contents = bundleContents();
  const cliDir = pathToFileURL(resolve("dist/cli")).href;
  return files.flatMap((url) => {
    const modules = contents.get(url);
    if (modules) return modules;
    assert.ok(!url.startsWith(`${cliDir}/`), `${url} is not an output of the last bundle`);
    return [url];
  });
}

test("hermes --version loads only the bundled entry file", () => {
  assert.deepEqual(filesLoadedBy(["--version"]), [ENTRY_URL]);
});

test("the entry file holds only main.js and base helpers, and reaches the commands by a dynamic import", () => {
  const entryModules = bundleContents().get(ENTRY_URL) ?? [];
  assert.ok(entryModules.includes(ENTRY_URL), "the metafile lists dist/cli/main.js as the entry's own module");
  const utilDir = pathToFileURL(resolve("dist/util")).href;
  const others = entryModules.filter((url) => url !== ENTRY_URL && !url.startsWith(`${utilDir}/`));
  assert.deepEqual(others, []);
  assert.match(readFileSync("dist/cli/main.js", "utf8"), /import\("\.\/chunks\/program\.js"\)/);
});

for (const args of [["--version"], ["--help"]]) {
  test(`hermes ${args.join(" ")} loads no SDK, SQLite, TUI, store or transport module`, () => {
    const loaded = modulesBehind(filesLoadedBy(args));
    assert.ok(loaded.includes(ENTRY_URL), "the trace saw the entry module");
    const heavy = loaded.filter((url) => HEAVY.some((re) => re.test(url)));
    assert.deepEqual(heavy, []);
  });
}

test("hermes --help runs the bundled command tree with commander inlined, not tsc's modules", () => {
  const files = filesLoadedBy(["--help"]);
  assert.ok(files.includes(pathToFileURL(resolve("dist/cli/chunks/program.js")).href));
  const outsideBundle = files.filter((url) => !url.startsWith(pathToFileURL(resolve("dist/cli")).href));
  assert.deepEqual(outsideBundle, []);
  assert.ok(modulesBehind(files).some((url) => url.includes("/node_modules/commander/")));
});

test("hermes --version prints the package version", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
  const out = execFileSync(process.execPath, ["dist/cli/main.js", "--version"], { encoding: "utf8" });
  assert.equal(out.trim(), `hermes ${pkg.version}`);
});
