import assert from "node:assert/strict";
import { test } from "node:test";
import type { DelegationSettings } from "../../src/agent/delegation/settings.js";
import { delegationDepsFrom, registerDelegateTool } from "../../src/agent/delegation.js";
import type { RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";
import { createHarness, type Harness, lastToolResults, registerTestTools } from "../helpers/agent-harness.js";

const isChild = (req: RecordedRequest) => !JSON.stringify(req.body.messages).includes("delegate please");
const toolsOf = (req: RecordedRequest | undefined) =>
  ((req?.body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);

/** A parent that delegates one task (with `args`), and a child that follows `child`. */
async function delegating(
  args: Record<string, unknown>,
  child: (req: RecordedRequest) => ScriptedTurn,
  config: Partial<DelegationSettings>,
  extraTools: Array<{ name: string; toolset: string }> = [],
): Promise<Harness> {
  const h = await createHarness(
    {
      fallback: (req) => {
        if (isChild(req)) return child(req);
        const results = lastToolResults(req);
        return results.length === 0
          ? { toolCalls: [{ name: "delegate_task", arguments: args }] }
          : { text: `parent saw: ${results[0]}` };
      },
    },
    { tools: ["echo", ...extraTools.map((t) => t.name), "delegate_task"] },
  );
  registerTestTools(
    h.registry,
    extraTools,
    async (_name, ctx) => `answer: ${await ctx.requestApproval?.({ command: "format disk", reason: "x" })}`,
  );
  registerDelegateTool(h.registry, delegationDepsFrom(h.agent.options, h.agent.budget, config));
  return h;
}

test("delegation.orchestrator_enabled false keeps an orchestrator child from delegating again", async () => {
  for (const enabled of [true, false]) {
    const h = await delegating({ goal: "coordinate", role: "orchestrator" }, () => ({ text: "done" }), {
      max_spawn_depth: 2,
      orchestrator_enabled: enabled,
    });
    try {
      await h.agent.runConversation("delegate please");
      const child = h.fake.requests.filter((r) => Array.isArray(r.body?.messages)).find(isChild);
      assert.equal(toolsOf(child).includes("delegate_task"), enabled, `orchestrator_enabled: ${enabled}`);
      const parentTools = h.fake.requests.find((r) => !isChild(r))?.body.tools as Array<{
        function: { name: string; description: string };
      }>;
      const description = parentTools.find((t) => t.function.name === "delegate_task")?.function.description ?? "";
      assert.equal(/role 'orchestrator' may delegate again/.test(description), enabled);
    } finally {
      await h.close();
    }
  }
});

test("delegation.inherit_mcp_toolsets false leaves the parent's MCP tools out of a subagent's", async () => {
  for (const inherit of [true, false]) {
    const h = await delegating({ goal: "look around" }, () => ({ text: "done" }), { inherit_mcp_toolsets: inherit }, [
      { name: "mcp_files_read", toolset: "mcp-files" },
    ]);
    try {
      await h.agent.runConversation("delegate please");
      const child = h.fake.requests.filter((r) => Array.isArray(r.body?.messages)).find(isChild);
      assert.equal(toolsOf(child).includes("mcp_files_read"), inherit, `inherit_mcp_toolsets: ${inherit}`);
      assert.ok(toolsOf(child).includes("echo"), "built-in tools stay either way");
    } finally {
      await h.close();
    }
  }
});
