import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { loadConfig, setConfigValue } from "../../src/state/config.js";
import { loadConfigAsync, readSimpleConfig } from "../../src/state/config-load.js";

const FILES: Record<string, string> = {
  empty: "",
  "only blank lines": "\n  \n",
  simple: "model:\n  default: m\n  provider: custom\ncompression:\n  threshold: 0.4 # lower\n  enabled: false\n",
  "unknown key": "agent:\n  max_turn: 5\n",
  "full YAML": "model: {default: m}\nagent:\n  max_turns: &n 12\ndelegation:\n  max_iterations: *n\n",
  "bad value": "compression:\n  threshold: 7\n",
  "bad value in full YAML": "compression: {threshold: 7}\n",
  "YAML syntax error": "model: [unclosed\n",
  "not a mapping": "- a\n- b\n",
};

function outcome(load: () => unknown): unknown {
  try {
    return { ok: load() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name };
  }
}

for (const [label, text] of Object.entries(FILES)) {
  test(`config.yaml (${label}): the start-up loader gives what loadConfig gives`, async () => {
    const home = mkdtempSync(join(tmpdir(), "hermes-config-load-"));
    try {
      writeFileSync(join(home, "config.yaml"), text);
      const quick = await loadConfigAsync({ home }).then(
        (value) => ({ ok: value }),
        (error: Error) => ({ error: error.message, name: error.name }),
      );
      assert.deepStrictEqual(
        quick,
        outcome(() => loadConfig({ home })),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
}

test("what hermes config set writes stays readable without the YAML parser", () => {
  const home = mkdtempSync(join(tmpdir(), "hermes-config-load-"));
  try {
    setConfigValue(home, "model.default", "anthropic/claude-opus-4.6");
    setConfigValue(home, "compression.threshold", "0.6");
    setConfigValue(home, "agent.save_trajectories", "true");
    setConfigValue(home, "toolsets", "hermes-cli,web");
    setConfigValue(home, "model.base_url", "http://localhost:8080/v1");
    const path = join(home, "config.yaml");
    assert.notEqual(readSimpleConfig(path), undefined);
    assert.deepStrictEqual(loadConfig({ home }).config.toolsets, ["hermes-cli", "web"]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
