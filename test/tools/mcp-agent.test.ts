import assert from "node:assert/strict";
import { test } from "node:test";
import { McpManager } from "../../src/tools/mcp/index.js";
import { createHarness, lastToolResults } from "../helpers/agent-harness.js";
import { fixtureStdio } from "./fixtures/mcp-helpers.js";

test("an agent with the mcp-<server> toolset enabled is offered the server's tools and gets their results", async (t) => {
  const h = await createHarness(
    {
      script: [
        { toolCalls: [{ name: "mcp_agentfx_echo", arguments: { text: "from the model" } }] },
        { toolCalls: [{ name: "mcp_agentfx_crash", arguments: {} }] },
        (req) => ({ text: `results: ${lastToolResults(req).join(" | ")}` }),
      ],
    },
    { tools: undefined, enabledToolsets: ["mcp-agentfx"] },
  );
  const manager = new McpManager({ servers: { agentfx: fixtureStdio }, registry: h.registry });
  t.after(async () => {
    await manager.close();
    await h.close();
  });
  await manager.start();
  assert.deepEqual(manager.toolsetNames(), ["mcp-agentfx"]);

  const first = await h.agent.runConversation("use the server");
  const offered = (h.fake.requests[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>).map(
    (tool) => tool.function,
  );
  const echo = offered.find((tool) => tool.name === "mcp_agentfx_echo");
  assert.deepEqual(echo?.parameters, { type: "object", properties: { text: { type: "string" } }, required: ["text"] });
  assert.ok(!offered.some((tool) => tool.name === "mcp_agentfx_poisoned"));
  assert.ok(!offered.some((tool) => tool.name === "echo"), "the harness's own tools are not in the toolset");

  assert.equal(first.completed, true);
  assert.match(first.finalResponse ?? "", /^results: [\s\S]*Error: MCP server "agentfx" went away/);
  const toolMessages = first.messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  // What an MCP server returns reaches the model fenced as outside data.
  assert.match(toolMessages[0] ?? "", /<untrusted_content>\necho: from the model\n<\/untrusted_content>$/);
});
