import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type PromptSizeReport, registerPromptSizeCommand } from "../../src/cli/commands/prompt-size.js";
import { run, tempHome } from "./commands/state-command-harness.js";

const promptSize = (home: string, ...args: string[]) => run(registerPromptSizeCommand, home, ["prompt-size", ...args]);

function configuredHome(): string {
  const home = tempHome();
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  default: some-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n",
  );
  return home;
}

test("prompt-size reports each system-prompt layer and tool schema; the parts add up to the total", async () => {
  const home = configuredHome();
  // Outside a code workspace: there the coding brief and snapshot (agent.coding_context) add a layer.
  // A PATH with a browser and no Python: the browser tools count (hidden, but named), and no
  // line about this machine's Python (agent.environment_probe) depends on where the test runs.
  const saved = { cwd: process.cwd(), path: process.env.PATH };
  const bin = tempHome();
  writeFileSync(join(bin, "chromium"), "#!/bin/sh\n", { mode: 0o755 });
  process.chdir(tempHome());
  process.env.PATH = bin;
  const { out } = await promptSize(home, "--json").finally(() => {
    process.chdir(saved.cwd);
    process.env.PATH = saved.path;
  });
  const report = JSON.parse(out) as PromptSizeReport;
  assert.equal(report.platform, "cli");
  assert.deepEqual(report.toolsets, ["hermes-cli"]);
  const layers = report.layers.map((row) => row.name);
  for (const name of ["identity", "platform", "environment", "tool guidance", "skills index"]) {
    assert.ok(layers.includes(name), `layer ${name} in ${layers.join(", ")}`);
  }
  const layerBytes = report.layers.reduce((sum, row) => sum + row.bytes, 0);
  assert.equal(report.systemPrompt.bytes, layerBytes + 2 * (report.layers.length - 1), "layers joined by a blank line");
  const toolBytes = report.tools.reduce((sum, row) => sum + row.bytes, 0);
  assert.equal(report.toolSchemas.bytes, toolBytes + report.tools.length - 1 + 2, "a JSON array of the schemas");
  assert.equal(report.total.bytes, report.systemPrompt.bytes + report.toolSchemas.bytes);
  const tools = report.tools.map((row) => row.name);
  for (const name of ["terminal", "read_file", "patch", "delegate_task", "skill_view", "memory", "todo"]) {
    assert.ok(tools.includes(name), `${name} is sent`);
  }
  // Only rarely used built-ins wait behind tool_search; every tool a coding turn needs is sent.
  for (const name of report.hidden) {
    assert.ok(["cronjob", "vision_analyze"].includes(name) || name.startsWith("browser_"), `${name} hidden`);
  }
  assert.ok(
    report.hidden.some((name) => name.startsWith("browser_")),
    "measured with the browser tools",
  );
  if (report.hidden.length > 0) assert.ok(tools.includes("tool_search"));
  assert.ok(report.total.tokens <= 4000, `the default CLI toolset's fixed prompt is ${report.total.tokens} tokens`);
});

test("prompt-size --toolsets and --platform measure another set: no skills index without skill tools", async () => {
  const home = configuredHome();
  const { out } = await promptSize(home, "--toolsets", "file", "--platform", "telegram");
  assert.match(out, /First request of a new telegram session \(model some-model; toolsets file\)/);
  assert.match(out, /^ {2}platform +\d+ B +\d+ tok$/m);
  assert.doesNotMatch(out, /skills index/);
  const toolLines = out.split("\n").filter((line) => /^ {2}(read_file|write_file|patch|search_files) /.test(line));
  assert.equal(toolLines.length, 4);
  assert.match(out, /tool schemas +\d+ B +\d+ tok {2}\(4 sent\)/);
});

test("prompt-size works in a home with no provider configured, and says what it left out", async () => {
  const home = tempHome();
  const saved = { openrouter: process.env.OPENROUTER_API_KEY, openai: process.env.OPENAI_API_KEY };
  delete process.env.OPENROUTER_API_KEY;
  delete process.env.OPENAI_API_KEY;
  try {
    const result = await promptSize(home);
    assert.match(result.err, /no model provider is configured: measuring without model-specific guidance/);
    assert.match(result.out, /^total +\d+ B +\d+ tok$/m);
  } finally {
    if (saved.openrouter !== undefined) process.env.OPENROUTER_API_KEY = saved.openrouter;
    if (saved.openai !== undefined) process.env.OPENAI_API_KEY = saved.openai;
  }
});
