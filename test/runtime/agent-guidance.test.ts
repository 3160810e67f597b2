import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { environmentProbe } from "../../src/agent/environment-probe.js";
import type { PromptLayer } from "../../src/agent/system-prompt.js";
import { openRuntime } from "../../src/runtime/runtime.js";
import { tempDir } from "../state/temp-dir.js";

const MODEL = (name: string) => `model:\n  default: ${name}\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n`;

function project(): string {
  const dir = tempDir("hermes-guidance-project-");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
  return dir;
}

async function preview(config: string, agent: { platform?: string } = {}) {
  const home = tempDir("hermes-guidance-home-");
  writeFileSync(join(home, "config.yaml"), config);
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const { layers, published } = await runtime.createAgent(agent).requestPreview();
    return { layers, tools: published.definitions.map((d) => d.function.name), home };
  } finally {
    await runtime.close();
  }
}

const layer = (layers: PromptLayer[], name: string) => layers.find((l) => l.name === name)?.text;

test("agent.coding_context: terminal sessions in a code workspace get the brief and the snapshot; chats do not", async () => {
  const cwd = project();
  const config = `${MODEL("qwen3-coder")}terminal:\n  cwd: ${JSON.stringify(cwd)}\nagent:\n  coding_instructions:\n    - Keep commits small.\n    - Ask before adding a dependency.\n`;
  const cli = await preview(config);
  const coding = layer(cli.layers, "coding") ?? "";
  assert.match(coding, /^# Working in this codebase/);
  assert.match(coding, /Standing instructions from the user:\nKeep commits small\.\nAsk before adding a dependency\./);
  assert.match(coding, new RegExp(`- Root: ${cwd.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\n`));
  assert.match(coding, /- Checks: npm run test/);
  assert.equal(layer((await preview(config, { platform: "telegram" })).layers, "coding"), undefined);
  const off = await preview(`${config.replace("agent:\n", "agent:\n  coding_context: off\n")}`);
  assert.equal(layer(off.layers, "coding"), undefined);
  const elsewhere = await preview(
    `${MODEL("m")}terminal:\n  cwd: ${JSON.stringify(tempDir("hermes-guidance-plain-"))}\n`,
  );
  assert.equal(layer(elsewhere.layers, "coding"), undefined);
});

test("agent.coding_context: focus narrows config.yaml's toolsets to the coding set and lists non-coding skills by name", async () => {
  const cwd = project();
  const base = `${MODEL("m")}terminal:\n  cwd: ${JSON.stringify(cwd)}\n`;
  const skill = (home: string) => {
    mkdirSync(join(home, "skills", "music", "playlist-curator"), { recursive: true });
    writeFileSync(
      join(home, "skills", "music", "playlist-curator", "SKILL.md"),
      "---\nname: playlist-curator\ndescription: Builds playlists from a mood.\n---\nSteps.\n",
    );
  };
  const run = async (extra: string) => {
    const home = tempDir("hermes-guidance-home-");
    skill(home);
    writeFileSync(join(home, "config.yaml"), base + extra);
    const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
    try {
      const agent = runtime.createAgent();
      const { layers, published } = await agent.requestPreview();
      return {
        index: layer(layers, "skills index") ?? "",
        tools: published.definitions.map((d) => d.function.name),
        toolsets: agent.options.enabledToolsets,
      };
    } finally {
      await runtime.close();
    }
  };
  const focus = await run("agent:\n  coding_context: focus\n  tool_schema_budget: 0\n");
  assert.match(focus.index, /\n {4}- playlist-curator\n/);
  assert.doesNotMatch(focus.index, /Builds playlists/);
  for (const name of ["terminal", "patch", "read_file", "todo", "delegate_task"])
    assert.ok(focus.tools.includes(name), name);
  assert.deepEqual(focus.toolsets, ["coding"]);
  const auto = await run("agent:\n  tool_schema_budget: 0\n");
  assert.match(auto.index, /playlist-curator: Builds playlists from a mood\./);
  assert.deepEqual(auto.toolsets, ["hermes-cli"], "auto leaves the toolsets alone");
  const pinned = await run(
    "agent:\n  coding_context: focus\n  tool_schema_budget: 0\nplatform_toolsets:\n  cli: [hermes-cli]\n",
  );
  assert.deepEqual(pinned.toolsets, ["hermes-cli"], "a platform's pinned toolsets stay");
});

test("agent.tool_use_enforcement: auto by family, true or false for all, or model-name fragments", async () => {
  const guidanceFor = async (model: string, setting?: string) =>
    layer(
      (await preview(`${MODEL(model)}${setting ? `agent:\n  tool_use_enforcement: ${setting}\n` : ""}`)).layers,
      "model guidance",
    );
  assert.match((await guidanceFor("gpt-5.1")) ?? "", /# Acting through tools/);
  assert.equal(await guidanceFor("claude-sonnet-4.5"), undefined);
  assert.equal(await guidanceFor("gpt-5.1", "false"), undefined);
  assert.match((await guidanceFor("claude-sonnet-4.5", "true")) ?? "", /# Acting through tools/);
  assert.match((await guidanceFor("qwen3-coder-plus", "[qwen, kimi]")) ?? "", /# Acting through tools/);
  assert.equal(await guidanceFor("gpt-5.1", "[qwen]"), undefined);
});

test("agent.task_completion_guidance and parallel_tool_call_guidance each add one line to the tool guidance", async () => {
  const on = layer((await preview(MODEL("m"))).layers, "tool guidance") ?? "";
  assert.match(on, /Carry a task through to a working result/);
  assert.match(on, /tool calls .* together in one reply/);
  const off = layer(
    (await preview(`${MODEL("m")}agent:\n  task_completion_guidance: false\n  parallel_tool_call_guidance: false\n`))
      .layers,
    "tool guidance",
  );
  assert.doesNotMatch(off ?? "", /Carry a task through|together in one reply/);
  assert.match(off ?? "", /Call tools rather than guessing facts you can check\./);
});

/** A fake Python install: prefix/bin/python3 -> python3.11, with the stdlib folder and optional pip. */
function fakePython(options: { externallyManaged?: boolean; pip?: boolean; uv?: boolean; pipFor?: string }) {
  const prefix = tempDir("hermes-probe-python-");
  const bin = join(prefix, "bin");
  const stdlib = join(prefix, "lib", "python3.11");
  mkdirSync(bin, { recursive: true });
  mkdirSync(stdlib, { recursive: true });
  writeFileSync(join(bin, "python3.11"), "#!/bin/sh\n");
  chmodSync(join(bin, "python3.11"), 0o755);
  symlinkSync("python3.11", join(bin, "python3"));
  if (options.externallyManaged) writeFileSync(join(stdlib, "EXTERNALLY-MANAGED"), "[externally-managed]\n");
  if (options.pip) mkdirSync(join(stdlib, "site-packages", "pip"), { recursive: true });
  // Programs on PATH count only when executable, as a shell finds them.
  if (options.uv) writeFileSync(join(bin, "uv"), "", { mode: 0o755 });
  if (options.pipFor) writeFileSync(join(bin, "pip"), `#!${options.pipFor}\n`, { mode: 0o755 });
  return { PATH: bin, HOME: tempDir("hermes-probe-home-") };
}

test("the environment probe says nothing when Python is ordinary or absent", () => {
  assert.equal(environmentProbe(fakePython({ pip: true })), "");
  assert.equal(environmentProbe({ PATH: tempDir("hermes-probe-empty-") }), "");
  assert.equal(environmentProbe({ ...fakePython({ externallyManaged: true }), VIRTUAL_ENV: "/venv" }), "");
});

test("the environment probe names PEP 668 without uv, a missing pip module, and a pip for another Python", () => {
  const managed = fakePython({ externallyManaged: true, pip: true });
  assert.match(environmentProbe(managed), /^Python 3\.11 \(.*\/python3\) is externally managed \(PEP 668\)/);
  assert.equal(environmentProbe(fakePython({ externallyManaged: true, pip: true, uv: true })), "", "uv handles it");
  assert.match(environmentProbe(fakePython({})), /has no pip module: `python3 -m pip` fails here; use a virtual/);
  assert.match(environmentProbe(fakePython({ uv: true })), /has no pip module: .*; use uv\.$/);
  const other = fakePython({ pip: true, pipFor: "/opt/old/bin/python3.8" });
  assert.match(
    environmentProbe(other),
    /^`pip` on PATH \(.*\) installs for \/opt\/old\/bin\/python3\.8, not for python3/,
  );
  assert.equal(
    environmentProbe(fakePython({ pip: true, pipFor: "/usr/bin/env python3" })),
    "",
    "env python3 is the same",
  );
});

test("agent.environment_probe puts the probe's line in the environment layer; false leaves it out", async () => {
  const saved = { PATH: process.env.PATH, VIRTUAL_ENV: process.env.VIRTUAL_ENV };
  const fake = fakePython({ externallyManaged: true, pip: true });
  process.env.PATH = `${fake.PATH}:${saved.PATH}`;
  delete process.env.VIRTUAL_ENV;
  try {
    assert.match(layer((await preview(MODEL("m"))).layers, "environment") ?? "", /\nPython 3\.11 .*\(PEP 668\)/);
    const off = await preview(`${MODEL("m")}agent:\n  environment_probe: false\n`);
    assert.doesNotMatch(layer(off.layers, "environment") ?? "", /PEP 668/);
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.VIRTUAL_ENV !== undefined) process.env.VIRTUAL_ENV = saved.VIRTUAL_ENV;
  }
});
