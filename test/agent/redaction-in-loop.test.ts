import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "../../src/util/schema/index.js";
import { createHarness, lastToolResults } from "../helpers/agent-harness.js";

const PASSWORD = "Tr0ub4dor3xyz";

test("a JSON tool result is redacted line by line before encoding, and tool arguments shown are masked", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [{ name: "show_config", arguments: { path: "app.yaml", api_key: "sk-proj-abcdefghijklmnop1234" } }],
      },
      { text: "done" },
    ],
  });
  h.agent.options.registry!.register({
    name: "show_config",
    toolset: "test",
    description: "Print a config file.",
    parameters: z.object({ path: z.string(), api_key: z.string() }),
    handler: async () => JSON.stringify({ output: `server:\n  host: db.internal\n  password: ${PASSWORD}\n` }),
  });
  h.agent.options.tools = ["show_config"];
  try {
    await h.agent.runConversation("show me the config");
    const [result] = lastToolResults(h.fake.requests.at(-1)!);
    assert.ok(result);
    assert.doesNotMatch(result, new RegExp(PASSWORD));
    assert.match(JSON.parse(result).output, /host: db\.internal/);
    const start = h.events.find((e) => e.type === "tool_start");
    assert.ok(start && start.type === "tool_start");
    assert.doesNotMatch(JSON.stringify(start.args) + start.preview, /abcdefghijklmnop/);
  } finally {
    await h.close();
  }
});
