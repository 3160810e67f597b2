import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { registerDoctorCommand } from "../../src/cli/commands/doctor.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider } from "../fake-provider/types.js";
import { run, tempHome } from "./commands/state-command-harness.js";

let fake: FakeProvider;
before(async () => {
  fake = await startFakeProvider({ models: [{ id: "scripted" }, { id: "other" }] });
});
after(async () => {
  await fake.close();
});

const doctor = (home: string, ...args: string[]) => run(registerDoctorCommand, home, ["doctor", ...args]);

function homeWith(config: string): string {
  const home = tempHome();
  writeFileSync(join(home, "config.yaml"), config);
  return home;
}

/** A loopback port nothing listens on: bind one, then close it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.keys(vars).map((k) => [k, process.env[k]] as const);
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test("doctor passes against a reachable provider and reports each check with ✓", async () => {
  const home = homeWith(`model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\n`);
  const result = await doctor(home);
  assert.equal(result.exitCode, undefined, result.out);
  assert.match(result.out, /^✓ config +.*config\.yaml is valid$/m);
  assert.match(result.out, /^✓ provider +custom, model scripted \(config\)$/m);
  assert.match(result.out, /^✓ api key +none set; not needed for this provider$/m);
  assert.match(result.out, new RegExp(`^✓ reachable +${fake.url}/v1/models answered \\(HTTP 200\\)$`, "m"));
  assert.match(result.out, /^✓ terminal +commands run on this machine$/m);
  assert.match(result.out, /^✓ sessions +.*state\.db opens \(0 sessions\)$/m);
  assert.match(result.out, /^✓ mcp +no MCP servers configured$/m);
  assert.match(result.out, /Everything hermes needs is in place\./);
  assert.ok(fake.requests.some((r) => r.method === "GET" && r.path === "/v1/models"));
});

test("doctor marks a terminal backend it cannot use with ✗ and exits 1", async () => {
  const home = homeWith(
    `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\nterminal:\n  backend: ssh\n`,
  );
  const result = await doctor(home);
  assert.equal(result.exitCode, 1, result.out);
  assert.match(
    result.out,
    /^✗ terminal +terminal\.backend: ssh is not supported yet\n +→ set terminal\.backend: local/m,
  );
});

test("doctor marks an unreachable provider with ✗ and a hint, and exits 1", async () => {
  const port = await closedPort();
  const home = homeWith(`model:\n  provider: custom\n  base_url: http://127.0.0.1:${port}/v1\n  default: scripted\n`);
  const result = await doctor(home, "--timeout", "2000");
  assert.equal(result.exitCode, 1);
  assert.match(
    result.out,
    new RegExp(`^✗ reachable +cannot reach http://127\\.0\\.0\\.1:${port}/v1/models \\(ECONNREFUSED\\)$`, "m"),
  );
  assert.match(result.out, /^ {4}→ is the server running and the base URL right\?/m);
  assert.match(result.out, /1 essential check failed\./);
});

test("doctor reports a missing key for the configured provider, and a model the provider does not list", async () => {
  const home = homeWith(`model:\n  provider: openrouter\n  base_url: ${fake.url}/v1\n  default: not-a-listed-model\n`);
  const result = await withEnv({ OPENROUTER_API_KEY: undefined }, () => doctor(home));
  assert.equal(result.exitCode, 1);
  assert.match(result.out, /^✗ api key +no key for openrouter$/m);
  assert.match(result.out, /→ hermes config set OPENROUTER_API_KEY YOUR_KEY/);
  assert.match(result.out, /^✗ model +not-a-listed-model is not in the provider's model list \(optional\)$/m);
  assert.match(result.out, /→ pick one with `hermes model openrouter\/MODEL` \(for example scripted\)/);
});

test("doctor reports an invalid config.yaml and an MCP server whose command is missing", async () => {
  const bad = homeWith("compression:\n  threshold: 7\n");
  const invalid = await doctor(bad);
  assert.equal(invalid.exitCode, 1);
  assert.match(invalid.out, /^✗ config +\/\S+\/config\.yaml: compression\.threshold must be/m);
  assert.match(invalid.out, /→ fix the file \(hermes config edit\)/);

  const mcp = homeWith(
    `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\nmcp_servers:\n  files:\n    command: hermes-no-such-binary\n  remote:\n    url: http://127.0.0.1:1/mcp\n`,
  );
  const result = await doctor(mcp);
  assert.equal(result.exitCode, undefined, "MCP problems are optional");
  assert.match(result.out, /^✗ mcp files +command `hermes-no-such-binary` not found on PATH \(optional\)$/m);
  assert.match(result.out, /^✓ mcp remote +HTTP server http:\/\/127\.0\.0\.1:1\/mcp$/m);
});

test("doctor reports the sandbox: missing bubblewrap is optional under auto and fatal when a mode is required", async () => {
  const config = `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\n`;
  const noBwrap = tempHome();
  await withEnv({ PATH: noBwrap }, async () => {
    const auto = await doctor(homeWith(config));
    assert.match(auto.out, /^✗ sandbox +bubblewrap \(bwrap\) is not installed \(optional\)\n +→ install bubblewrap/m);
    const required = await doctor(homeWith(`${config}sandbox:\n  mode: workspace-write\n`));
    assert.equal(required.exitCode, 1, required.out);
    assert.match(
      required.out,
      /^✗ sandbox +bubblewrap \(bwrap\) is not installed\n +→ sandbox\.mode is workspace-write/m,
    );
  });
  const off = await doctor(homeWith(`${config}sandbox:\n  mode: off\n`));
  assert.match(off.out, /^✓ sandbox +sandbox\.mode is off: commands run unconfined$/m);
});

test("doctor reports git for checkpoints, the local memory provider's facts and waiting learning proposals", async () => {
  const home = homeWith(
    `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\nmemory:\n  provider: local\nlearning:\n  mode: review\n`,
  );
  const { openFactStore } = await import("../../src/state/sqlite-fact-store.js");
  const { ProposalQueue } = await import("../../src/state/learning-proposals.js");
  const facts = openFactStore(join(home, "memories", "facts.db"));
  facts.add({ text: "The user's editor is Helix", source: "user" });
  facts.close();
  new ProposalQueue(home).add([
    {
      createdAt: 1,
      sessionId: "s",
      kind: "memory",
      args: { action: "add", target: "user", content: "x y z" },
      summary: "x",
      reason: "",
    },
  ]);
  const result = await doctor(home);
  assert.match(result.out, /^✓ checkpoints +git version [\d.]+ takes the snapshots \/rollback restores$/m);
  assert.match(result.out, /^✓ memory +local facts: 1 in .*facts\.db$/m);
  assert.match(result.out, /^✓ learning +1 learning proposal\(s\) waiting$/m);

  const broken = homeWith(
    `model:\n  provider: custom\n  base_url: ${fake.url}/v1\n  default: scripted\nlearning:\n  mode: review\n`,
  );
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(broken, "learning"), { recursive: true });
  writeFileSync(join(broken, "learning", "proposals.json"), "{ not json");
  assert.match((await doctor(broken)).out, /^✗ learning +.*proposals\.json is not valid JSON .*move it aside/m);
});
