import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { systemPromptLayers } from "../../src/agent/system-prompt.js";
import { openRuntime } from "../../src/runtime/runtime.js";
import { tempDir } from "../state/temp-dir.js";

const environmentOf = (layers: Array<{ name: string; text: string }>) =>
  layers.find((layer) => layer.name === "environment")?.text ?? "";

test("agent.environment_hint reaches the environment layer of the system prompt, after the facts", async () => {
  const home = tempDir("hermes-environment-hint-");
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n" +
      'agent:\n  environment_hint: "A Raspberry Pi 5 on the garage shelf; the GPIO pins drive the door."\n',
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const environment = environmentOf((await runtime.createAgent().requestPreview()).layers);
    assert.match(environment, /^Host: /);
    assert.match(environment, /\nAbout this environment, from the user: A Raspberry Pi 5 on the garage shelf;/);
  } finally {
    await runtime.close();
  }
  const without = environmentOf(systemPromptLayers({ cwd: "/w", toolNames: [], environmentHint: "   " }));
  assert.doesNotMatch(without, /from the user/, "a blank hint adds nothing");
});

test("platform_hints replaces a platform's layer, leaves the others, and an empty text drops it", async () => {
  const home = tempDir("hermes-platform-hints-");
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n" +
      'platform_hints:\n  cli: "Answer in French, in the terminal."\n  cron: ""\n',
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    const layerOf = async (platform: string) =>
      (await runtime.createAgent({ platform }).requestPreview()).layers.find((layer) => layer.name === "platform")
        ?.text;
    assert.equal(await layerOf("cli"), "Answer in French, in the terminal.");
    assert.match((await layerOf("api_server")) ?? "", /OpenAI-compatible HTTP API/);
    assert.equal(await layerOf("cron"), undefined);
  } finally {
    await runtime.close();
  }
});
