import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { seedBundledSkills } from "../../src/tools/skills/seed.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { traceRun } from "../helpers/bundle-trace.js";
import { installDocsExample } from "../runtime/plugin-fixtures.js";

/**
 * Packages a one-shot run with one terminal call has no use for: each costs start-up time. The
 * CLI's own code runs from the bundle (read by the loader, not imported), so every file the
 * trace sees besides the entry is something loaded from node_modules.
 */
const NOT_ON_THE_ONE_SHOT_PATH = [
  /\/node_modules\/zod\//,
  /\/node_modules\/yaml\//,
  /@modelcontextprotocol/,
  /pi-tui/,
  /@clack\/prompts/,
  /@aws-sdk/,
  /\/node_modules\/hono\//,
  /@hono\/node-server/,
  /\/node_modules\/bindings\//,
  /\/node_modules\/pg(-[a-z-]+)?\//,
  // Inlined into the bundle:
  /\/node_modules\/(better-sqlite3|commander|eventsource-parser)\/.*\.js$/,
];

/** What the agent itself writes with `hermes setup` and `hermes config set`. */
const SIMPLE_CONFIG = `model:
  default: m
  provider: custom
compression:
  enabled: true
  threshold: 0.5 # of the window
agent:
  max_turns: 30
toolsets:
  - hermes-cli
`;

/** Node's own modules a one-shot run has no use for: each costs milliseconds to load (more on Node 24). */
const BUILTINS_NOT_ON_THE_ONE_SHOT_PATH = ["crypto", "readline", "perf_hooks", "dns/promises", "zlib", "https", "tls"];

async function oneShotRun(config: string | undefined, prepare?: (home: string) => void): Promise<string[]> {
  return (await tracedOneShot(config, prepare)).files;
}

async function tracedOneShot(
  config: string | undefined,
  prepare?: (home: string) => void,
): Promise<{ files: string[]; builtins: string[] }> {
  const fake = await startFakeProvider({
    script: [{ toolCalls: [{ name: "terminal", arguments: { command: "echo traced" } }] }, { text: "done" }],
  });
  const home = mkdtempSync(join(tmpdir(), "hermes-oneshot-trace-"));
  try {
    if (config !== undefined) writeFileSync(join(home, "config.yaml"), config);
    prepare?.(home);
    const args = ["chat", "-q", "run it", "--provider", "custom", "--base-url", `${fake.url}/v1`, "--model", "m"];
    const trace = await traceRun([...args, "--yolo", "-Q"], { home });
    assert.equal(
      fake.requests.filter((r) => r.path.endsWith("/chat/completions")).length,
      2,
      "the run made its tool call",
    );
    return trace;
  } finally {
    rmSync(home, { recursive: true, force: true });
    await fake.close();
  }
}

for (const [label, config] of [
  ["without a config.yaml", undefined],
  ["with a config.yaml in the simple subset", SIMPLE_CONFIG],
] as const) {
  test(`a one-shot run ${label} loads neither zod, yaml, MCP, the TUI nor other transports`, async () => {
    const files = await oneShotRun(config);
    const outsideEntry = files.filter((url) => !url.endsWith("/dist/cli/main.js"));
    assert.ok(
      outsideEntry.some((url) => /\/better_sqlite3\.node$|\/better-sqlite3-napi\/prebuilds\/[\w-]+\.node$/.test(url)),
      "the trace saw the SQLite addon the run required",
    );
    assert.deepEqual(
      outsideEntry.filter((url) => url.includes("/dist/")),
      [],
      "the CLI's own code comes from the bundle",
    );
    assert.deepEqual(
      outsideEntry.filter((url) => NOT_ON_THE_ONE_SHOT_PATH.some((re) => re.test(url))),
      [],
    );
  });
}

test("a one-shot run loads none of node:crypto, readline, perf_hooks, dns/promises, zlib or TLS", async () => {
  // Not the first run in a home: that one seeds the bundled skills and hashes them for the manifest.
  const { builtins } = await tracedOneShot(SIMPLE_CONFIG, (home) => seedBundledSkills(home));
  assert.ok(builtins.includes("child_process") && builtins.includes("http"), "the trace lists Node's modules");
  assert.deepEqual(
    builtins.filter((name) => BUILTINS_NOT_ON_THE_ONE_SHOT_PATH.includes(name)),
    [],
  );
});

test("a config.yaml beyond the simple subset still loads, through the YAML parser", async () => {
  const loaded = await oneShotRun(`model:\n  default: &m m\nagent: {max_turns: 30}\n`);
  assert.ok(loaded.some((url) => /\/node_modules\/yaml\//.test(url)));
});

test("an installed plugin's module is imported by a one-shot run (the runs above, without plugins, load no extra module)", async () => {
  const withPlugin = await oneShotRun(SIMPLE_CONFIG, installDocsExample);
  assert.ok(
    withPlugin.some((url) => url.endsWith("/plugins/word-tools/index.js")),
    "the plugin's entry was imported",
  );
});
