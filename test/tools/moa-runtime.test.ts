import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { resolveToolsets } from "../../src/tools/toolsets.js";
import type { RecordedRequest, ScriptedTurn } from "../fake-provider/types.js";
import { openTestRuntime } from "../helpers/test-runtime.js";
import { modelOf, systemOf } from "./moa-harness.js";

/** The main model calls the tool once, then answers with what it got; the others answer by name. */
function conversation(req: RecordedRequest): ScriptedTurn {
  const model = modelOf(req);
  if (model === "agg") return { text: "merged answer" };
  if (model !== "fake-model") return { text: `answer from ${model}` };
  const last = req.body.messages.at(-1) as { role: string; content: string };
  if (last.role !== "tool") {
    return { toolCalls: [{ name: "mixture_of_agents", arguments: { prompt: "Which sort is stable?" } }] };
  }
  return { text: `tool said: ${last.content}` };
}

/** The references and the aggregator go to the runtime's own fake through auxiliary.moa_*.base_url. */
function moaConfig(home: string): void {
  const path = join(home, "config.yaml");
  const baseUrl = /base_url: (\S+)/.exec(readFileSync(path, "utf8"))![1];
  appendFileSync(
    path,
    [
      "moa:",
      "  presets:",
      "    default:",
      "      reference_models: [{provider: openrouter, model: ref-a}, {provider: deepseek, model: ref-b}]",
      "      aggregator: {provider: openrouter, model: agg}",
      "auxiliary:",
      `  moa_reference: {base_url: "${baseUrl}"}`,
      `  moa_aggregator: {base_url: "${baseUrl}"}`,
      "",
    ].join("\n"),
  );
}

test("mixture_of_agents is opted into with the moa toolset, and a session runs it end to end", async () => {
  assert.ok(!resolveToolsets(["hermes-cli"]).includes("mixture_of_agents"), "not in the terminal's default set");
  assert.deepEqual(resolveToolsets(["moa"]), ["mixture_of_agents"]);
  const t = await openTestRuntime({ script: Array.from({ length: 10 }, () => conversation), setup: moaConfig });
  try {
    const spec = t.runtime.registry.get("mixture_of_agents");
    assert.equal(spec?.toolset, "moa");
    assert.match(spec?.description ?? "", /Returns JSON \{success, response, models_used, failed_models\}/);

    const plain = t.runtime.createAgent({ toolsets: ["hermes-cli"] });
    const plainTools = (await plain.requestPreview()).published;
    assert.ok(!JSON.stringify(plainTools).includes("mixture_of_agents"));

    const agent = t.runtime.createAgent({ toolsets: ["hermes-cli", "moa"] });
    const result = await agent.runConversation("compare sorting algorithms");
    assert.match(result.finalResponse ?? "", /tool said: .*merged answer/s);
    const toolResult = agent.messages.find((m) => m.role === "tool")?.content as string;
    assert.match(toolResult, /untrusted_content/, "other models' text reaches the model fenced as data");
    const references = t.fake.requests.filter((r) => ["ref-a", "ref-b"].includes(modelOf(r)));
    assert.equal(references.length, 2);
    const aggregator = t.fake.requests.find((r) => modelOf(r) === "agg")!;
    assert.match(systemOf(aggregator), /answer from ref-a/);
    assert.match(systemOf(aggregator), /answer from ref-b/);
  } finally {
    await t.close();
  }
});
