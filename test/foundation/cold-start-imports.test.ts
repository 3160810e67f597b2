import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { bundleContents, filesLoadedBy, modulesBehind, traceRun } from "../helpers/bundle-trace.js";

const HEAVY = [
  /better-sqlite3/,
  /node_modules\/openai\//,
  /@anthropic-ai/,
  /@aws-sdk/,
  /pi-tui/,
  /@clack\/prompts/,
  /@modelcontextprotocol/,
  /\/node_modules\/hono\//,
  /@hono\/node-server/,
  /\/dist\/api-server\//,
  /\/dist\/state\//,
  /\/dist\/llm\/transports\//,
  /\/dist\/agent\//,
];

const ENTRY_URL = pathToFileURL(resolve("dist/cli/main.js")).href;

test("hermes --version loads only the bundled entry file", async () => {
  assert.deepEqual(await filesLoadedBy(["--version"]), [ENTRY_URL]);
});

test("the entry file holds only main.js, the bundle loader and base helpers", () => {
  const entryModules = bundleContents().get(ENTRY_URL) ?? [];
  assert.ok(entryModules.includes(ENTRY_URL), "the metafile lists dist/cli/main.js as the entry's own module");
  const utilDir = pathToFileURL(resolve("dist/util")).href;
  const loader = pathToFileURL(resolve("dist/cli/bundle-loader.js")).href;
  const others = entryModules.filter((url) => url !== ENTRY_URL && url !== loader && !url.startsWith(`${utilDir}/`));
  assert.deepEqual(others, []);
  assert.match(readFileSync("dist/cli/main.js", "utf8"), /new URL\("\.\/hermes\.cjs", import\.meta\.url\)/);
});

for (const args of [["--version"], ["--help"]]) {
  test(`hermes ${args.join(" ")} loads no package from node_modules and none of tsc's modules`, async () => {
    const files = await filesLoadedBy(args);
    assert.ok(files.includes(ENTRY_URL), "the trace saw the entry module");
    assert.deepEqual(
      files.filter((url) => url !== ENTRY_URL),
      [],
    );
    const heavy = modulesBehind(files).filter((url) => HEAVY.some((re) => re.test(url)));
    assert.deepEqual(heavy, []);
  });
}

test("hermes --help does not load node:child_process (the inlined commander takes it on first use)", async () => {
  const { builtins } = await traceRun(["--help"]);
  assert.ok(builtins.includes("fs"), "the trace lists Node's modules");
  assert.deepEqual(
    builtins.filter((name) => name.includes("child_process")),
    [],
  );
});

test("the bundle holds the command tree with commander inlined", () => {
  const bundled = bundleContents().get(pathToFileURL(resolve("dist/cli/hermes.cjs")).href) ?? [];
  assert.ok(bundled.includes(pathToFileURL(resolve("dist/cli/program.js")).href));
  assert.ok(bundled.some((url) => url.includes("/node_modules/commander/")));
  // Both better-sqlite3 releases' JavaScript (Node 20's and the Node-API one newer Nodes use).
  assert.ok(bundled.some((url) => url.includes("/node_modules/better-sqlite3/lib/")));
  assert.ok(bundled.some((url) => url.includes("/node_modules/better-sqlite3-napi/lib/")));
  assert.ok(!bundled.some((url) => url.includes("/node_modules/zod/")));
});

test("hermes --version prints the package version", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
  const out = execFileSync(process.execPath, ["dist/cli/main.js", "--version"], { encoding: "utf8" });
  assert.equal(out.trim(), `hermes ${pkg.version}`);
});
