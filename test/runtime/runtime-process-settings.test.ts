import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { bedrockDefaults, setBedrockDefaults } from "../../src/llm/bedrock-defaults.js";
import { openRuntime } from "../../src/runtime/runtime.js";
import { defaultProcessManager } from "../../src/tools/process-manager.js";
import { tempDir } from "../state/temp-dir.js";

after(() => setBedrockDefaults({}));

test("opening a runtime hands config.yaml's bedrock section to the Bedrock transport", async () => {
  const home = tempDir("hermes-bedrock-home-");
  writeFileSync(
    join(home, "config.yaml"),
    [
      "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1",
      "bedrock:\n  region: eu-north-1\n  guardrail:\n    guardrail_identifier: gr-9\n    guardrail_version: '2'\n    trace: enabled_full",
      "",
    ].join("\n"),
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    assert.deepEqual(bedrockDefaults(), {
      region: "eu-north-1",
      guardrail: { identifier: "gr-9", version: "2", streamProcessingMode: "async", trace: "enabled_full" },
    });
  } finally {
    await runtime.close();
  }
});

test("terminal.daemon_term_grace_seconds sets how long background processes get after SIGTERM", async () => {
  const home = tempDir("hermes-grace-home-");
  writeFileSync(
    join(home, "config.yaml"),
    "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\nterminal:\n  daemon_term_grace_seconds: 0.25\n",
  );
  const runtime = await openRuntime({ home, localServers: false, skipDotEnv: true });
  try {
    assert.equal(defaultProcessManager().killGrace, 250);
  } finally {
    await runtime.close();
    defaultProcessManager().setKillGrace(2000);
  }
});
