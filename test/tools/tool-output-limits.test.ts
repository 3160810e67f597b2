import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openRuntime } from "../../src/runtime/runtime.js";
import { registerReadFileTool } from "../../src/tools/builtin/read-file.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { tempDir } from "../state/temp-dir.js";
import { callTool, makeContext } from "./tool-harness.js";

const numbered = (count: number, text = (n: number) => `line ${n}`) =>
  `${Array.from({ length: count }, (_, i) => text(i + 1)).join("\n")}\n`;

test("read_file keeps to the lines per call, characters per line and characters per page it is given", async () => {
  const dir = tempDir("hermes-read-limits-");
  writeFileSync(join(dir, "many.txt"), numbered(50));
  writeFileSync(
    join(dir, "wide.txt"),
    numbered(40, () => "w".repeat(100)),
  );
  const registry = new ToolRegistry();
  registerReadFileTool(registry, { maxLines: 10, maxLineChars: 20, maxPageChars: 1000 });
  const ctx = makeContext(dir);
  assert.match(registry.get("read_file")?.description ?? "", /Returns up to 10 lines/);

  const many = await callTool(registry, "read_file", { path: "many.txt", limit: 30 }, ctx);
  assert.equal(many.lines_shown, "1-10", "a limit above the cap is cut to it, not refused");
  assert.match(String(many.note), /offset=11/);

  const wide = await callTool(registry, "read_file", { path: "wide.txt", limit: 10 }, ctx);
  const shown = String(wide.content).split("\n");
  assert.ok(shown.every((line) => line.endsWith(`${"w".repeat(20)}… [line cut: 80 more characters]`)));
  assert.match(String(wide.note), /cut at 20 characters/);

  const page = await callTool(registry, "read_file", { path: "many.txt", limit: 10 }, makeContext(dir));
  assert.equal(page.lines_shown, "1-10");
  writeFileSync(
    join(dir, "page.txt"),
    numbered(40, () => "p".repeat(15)),
  );
  const capped = await callTool(registry, "read_file", { path: "page.txt", limit: 10 }, ctx);
  assert.ok(String(capped.content).length <= 1000);
});

test("tool_output and file_read_max_chars in config.yaml set the terminal's and read_file's limits", async () => {
  const home = tempDir("hermes-tool-output-");
  const work = tempDir("hermes-tool-output-work-");
  writeFileSync(join(work, "long.txt"), numbered(3000));
  const open = async (settings: string) => {
    writeFileSync(
      join(home, "config.yaml"),
      `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n${settings}`,
    );
    return openRuntime({ home, localServers: false, skipDotEnv: true });
  };
  const ctx = makeContext(work);

  const strict = await open("tool_output:\n  max_bytes: 2000\n  max_lines: 5\n  max_line_length: 30\n");
  try {
    const read = await callTool(strict.registry, "read_file", { path: "long.txt", limit: 100 }, ctx);
    assert.equal(read.lines_shown, "1-5");
    const run = await callTool(strict.registry, "terminal", { command: "seq 1 20000" }, ctx);
    const output = String(run.output);
    assert.ok(output.length < 2300, `kept ${output.length} characters`);
    assert.match(output, /^1\n2\n/, "the start is kept");
    assert.match(output, /19999\n20000\n?$/, "and the end");
  } finally {
    await strict.close();
  }

  const unlimited = await open("tool_output:\n  max_lines: 0\n");
  try {
    const read = await callTool(unlimited.registry, "read_file", { path: "long.txt", limit: 3000 }, ctx);
    assert.equal(read.lines_shown, "1-3000", "0 lifts the cap on lines");
  } finally {
    await unlimited.close();
  }
});

test("context_file_max_chars sets each project context file's allowance in the prompt", async () => {
  const home = tempDir("hermes-context-limit-");
  const project = tempDir("hermes-context-project-");
  writeFileSync(join(project, "AGENTS.md"), `Start of the rules.\n${"r".repeat(3000)}\nEnd of the rules.`);
  const promptWith = async (settings: string) => {
    writeFileSync(
      join(home, "config.yaml"),
      `model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n${settings}`,
    );
    const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
    try {
      return runtime.createAgent().options.contextFilesPrompt?.(project) ?? "";
    } finally {
      await runtime.close();
    }
  };
  const capped = await promptWith("context_file_max_chars: 500\n");
  assert.match(capped, /characters of AGENTS\.md omitted: the file is longer than 500 characters/);
  assert.match(capped, /Start of the rules/);
  assert.ok(capped.length < 1000);
  const whole = await promptWith("context_file_max_chars: null\n");
  assert.match(whole, /End of the rules/);
  assert.doesNotMatch(whole, /omitted/, "null keeps the default allowance of 20,000 characters");
});
