import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { bundleContents, filesLoadedBy, modulesBehind } from "../helpers/bundle-trace.js";

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

test("hermes --version loads only the bundled entry file", async () => {
  assert.deepEqual(await filesLoadedBy(["--version"]), [ENTRY_URL]);
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
  test(`hermes ${args.join(" ")} loads no SDK, SQLite, TUI, store or transport module`, async () => {
    const loaded = modulesBehind(await filesLoadedBy(args));
    assert.ok(loaded.includes(ENTRY_URL), "the trace saw the entry module");
    const heavy = loaded.filter((url) => HEAVY.some((re) => re.test(url)));
    assert.deepEqual(heavy, []);
  });
}

test("hermes --help runs the bundled command tree with commander inlined, not tsc's modules", async () => {
  const files = await filesLoadedBy(["--help"]);
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
