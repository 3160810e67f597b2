import assert from "node:assert/strict";
import { test } from "node:test";
import type { DelegationSettings } from "../../src/agent/delegation/settings.js";
import { type ChildReport, delegationDepsFrom, registerDelegateTool } from "../../src/agent/delegation.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { RecordedRequest, ScriptedTurn, ScriptStep } from "../fake-provider/types.js";
import { createHarness, type Harness, lastToolResults } from "../helpers/agent-harness.js";

const isChild = (req: RecordedRequest) =>
  JSON.stringify(req.body.messages).includes("You are a focused subagent") ||
  !JSON.stringify(req.body.messages).includes("delegate please");

/** The parent delegates `goal` once, then answers with what it saw. */
function parentThenAnswer(goal: string): (req: RecordedRequest) => ScriptedTurn {
  return (req) => {
    const results = lastToolResults(req);
    if (results.length === 0) return { toolCalls: [{ name: "delegate_task", arguments: { goal } }] };
    return { text: `parent saw: ${results[0]}` };
  };
}

async function delegating(route: ScriptStep, config: Partial<DelegationSettings>): Promise<Harness> {
  const h = await createHarness({ fallback: route }, { tools: ["echo", "delegate_task"] });
  registerDelegateTool(h.registry, {
    ...delegationDepsFrom(h.agent.options, h.agent.budget, config),
    interruptGraceMs: 2000,
  });
  return h;
}

function reportOf(result: { messages: Array<{ role: string; name?: string; content?: unknown }> }): ChildReport {
  const message = result.messages.find((m) => m.role === "tool" && m.name === "delegate_task");
  return (JSON.parse(String(message?.content)) as { results: ChildReport[] }).results[0]!;
}

test("delegation.base_url sends subagents to their own endpoint with their own key and effort", async () => {
  const childServer = await startFakeProvider({ fallback: { text: "done on the small model" } });
  const h = await delegating(parentThenAnswer("summarise the logs"), {
    base_url: `${childServer.url}/v1`,
    api_key: "child-key",
    model: "small-local",
    reasoning_effort: "low",
  });
  try {
    const result = await h.agent.runConversation("delegate please");
    assert.equal(reportOf(result).summary, "done on the small model");
    const [child] = childServer.requests;
    assert.ok(child, "the child called its own endpoint");
    assert.equal(child.body.model, "small-local");
    assert.equal(child.headers.authorization, "Bearer child-key");
    assert.equal(child.body.reasoning_effort, "low");
    assert.ok(
      h.fake.requests.every((req) => req.headers.authorization === "Bearer test-key"),
      "the parent's endpoint saw only the parent",
    );
    assert.equal(h.fake.requests.length, 2);
  } finally {
    await childServer.close();
    await h.close();
  }
});

test("delegation.base_url without api_key uses OPENAI_API_KEY, never the parent's key", async () => {
  const childServer = await startFakeProvider({ fallback: { text: "ok" } });
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = "openai-env-key";
  const h = await delegating(parentThenAnswer("look"), { base_url: `${childServer.url}/v1` });
  try {
    await h.agent.runConversation("delegate please");
    assert.equal(childServer.requests[0]?.headers.authorization, "Bearer openai-env-key");
    assert.equal(childServer.requests[0]?.body.model, "test-model", "without delegation.model, the parent's model");
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
    await childServer.close();
    await h.close();
  }
});

test("delegation.max_summary_chars cuts a long summary and says so", async () => {
  const long = `${"finding ".repeat(100)}END`;
  const h = await delegating((req) => (isChild(req) ? { text: long } : parentThenAnswer("dig")(req)), {
    max_summary_chars: 120,
  });
  try {
    const report = reportOf(await h.agent.runConversation("delegate please"));
    assert.equal(report.status, "completed");
    assert.ok(report.summary.startsWith("finding finding"));
    assert.ok(!report.summary.includes("END"));
    assert.match(report.summary, /\[… \d+ more characters of the subagent's summary were cut/);
  } finally {
    await h.close();
  }
});

test("delegation.child_timeout_seconds stops a subagent that runs too long and reports why", async () => {
  const h = await delegating(
    (req) =>
      isChild(req)
        ? { text: "working on it", fault: { kind: "stall", afterChunks: 1 } }
        : parentThenAnswer("slow task")(req),
    { child_timeout_seconds: 0.3 },
  );
  try {
    const began = Date.now();
    const result = await h.agent.runConversation("delegate please");
    // The child stalls for good: the parent coming back at all shows the timeout stopped it.
    assert.ok(Date.now() - began < 60_000, "the parent went on");
    const report = reportOf(result);
    assert.equal(report.status, "failed");
    assert.match(report.error ?? "", /stopped after 0\.3 s \(delegation\.child_timeout_seconds\)/);
    assert.match(result.finalResponse, /parent saw/);
  } finally {
    await h.close();
  }
});
