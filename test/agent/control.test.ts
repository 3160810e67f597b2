import assert from "node:assert/strict";
import { test } from "node:test";
import { IterationBudget } from "../../src/agent/budget.js";
import { assertWellFormedRequests, conversationOf, createHarness, lastToolResults } from "../helpers/agent-harness.js";

const loopForever = () => ({ toolCalls: [{ name: "echo", arguments: { text: `n${Math.random()}` } }] });

test("when the budget runs out the agent asks for a summary without tools, never ending on a tool result", async () => {
  const h = await createHarness(
    {
      script: [loopForever, loopForever, loopForever],
      fallback: (req) => ({ text: req.body.tools ? "unexpected tools" : "summary: did three echoes" }),
    },
    { maxIterations: 3 },
  );
  try {
    const result = await h.agent.runConversation("loop");
    assert.equal(h.fake.requests.length, 4);
    assert.equal(h.fake.requests[3]!.body.tools, undefined, "the summary call offers no tools");
    assert.equal(result.finalResponse, "summary: did three echoes");
    assert.equal(result.messages.at(-1)?.role, "assistant");
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("a budget shared with a subagent is drawn down by both", async () => {
  const shared = new IterationBudget(5);
  const h = await createHarness({ script: [{ text: "a" }, { text: "b" }] }, { iterationBudget: shared });
  try {
    await h.agent.runConversation("one");
    await h.agent.runConversation("two");
    assert.equal(shared.remaining, 3);
  } finally {
    await h.close();
  }
});

test("interrupt during a stream aborts at once, keeps nothing partial, and the agent stays usable", async () => {
  const h = await createHarness({
    script: [
      { text: "partial words that never finish", fault: { kind: "stall", afterChunks: 2 } },
      { text: "second run ok" },
    ],
  });
  try {
    const stop = h.agent.on((event) => {
      if (event.type === "text_delta") h.agent.interrupt();
    });
    const result = await h.agent.runConversation("start");
    stop();
    assert.equal(result.interrupted, true);
    assert.equal(result.finalResponse, "");
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user"],
    );
    const again = await h.agent.runConversation("again");
    assert.equal(again.finalResponse, "second run ok");
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("interrupt during a tool cancels it and leaves a result for every call", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "slow_write", arguments: { path: "x", ms: 10_000 } }] }, { text: "after" }],
  });
  try {
    let interruptedAt = 0;
    const stop = h.agent.on((event) => {
      if (event.type !== "tool_start") return;
      interruptedAt = performance.now();
      h.agent.interrupt();
    });
    const result = await h.agent.runConversation("write");
    const latency = performance.now() - interruptedAt;
    stop();
    assert.ok(interruptedAt > 0 && latency < 5000, `the 10 s tool ended ${Math.round(latency)} ms after the interrupt`);
    assert.equal(result.interrupted, true);
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user", "assistant", "tool"],
    );
    const next = await h.agent.runConversation("continue");
    assert.equal(next.finalResponse, "after");
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("the result of a tool cut short says why the turn stopped, in the words interrupt() was given", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [
          { name: "slow_write", arguments: { path: "x", ms: 10_000 } },
          { name: "slow_write", arguments: { path: "y", ms: 10_000 } },
        ],
      },
      { text: "after" },
    ],
  });
  try {
    const stop = h.agent.on((event) => {
      if (event.type === "tool_start") h.agent.interrupt("the gateway is shutting down");
    });
    const result = await h.agent.runConversation("write");
    stop();
    const results = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
    assert.ok(results.length >= 1);
    for (const text of results) {
      assert.match(String(text), /interrupted .*the gateway is shutting down/);
      assert.doesNotMatch(String(text), /by the user/, "a restart is not the user's doing");
    }
  } finally {
    await h.close();
  }
});

test("steer adds the user's note to the next tool result, keeping role alternation", async () => {
  const h = await createHarness({
    script: [
      { toolCalls: [{ name: "echo", arguments: { text: "x" } }] },
      (req) => ({ text: lastToolResults(req)[0]! }),
    ],
  });
  try {
    const stop = h.agent.on((event) => {
      if (event.type === "tool_start") h.agent.steer("use metric units");
    });
    const result = await h.agent.runConversation("go");
    stop();
    assert.match(
      result.finalResponse,
      /^echo: x\n\n\[Note from the user, sent while you were working: use metric units\]$/,
    );
    const roles = conversationOf(h.fake.requests[1]!).map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "tool"]);
  } finally {
    await h.close();
  }
});

test("at most one delegate_task per turn; extra ones get an error result", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [
          { name: "delegate_task", arguments: { goal: "a" } },
          { name: "delegate_task", arguments: { goal: "b" } },
        ],
      },
      (req) => ({ text: lastToolResults(req).join("|") }),
    ],
  });
  const { z } = await import("zod");
  h.registry.register({
    name: "delegate_task",
    toolset: "delegation",
    description: "delegate",
    parameters: z.object({ goal: z.string() }),
    handler: async ({ goal }) => `delegated ${goal}`,
  });
  h.agent.options.tools = ["delegate_task"];
  try {
    const result = await h.agent.runConversation("go");
    assert.match(result.finalResponse, /^delegated a\|Error: only one delegate_task call is allowed per turn/);
  } finally {
    await h.close();
  }
});

test("max iterations apply per run: a long interactive session is not cut off after 90 calls in total", async () => {
  const h = await createHarness({ fallback: { text: "ok" } }, { maxIterations: 2 });
  try {
    for (let i = 0; i < 4; i++) {
      const result = await h.agent.runConversation(`turn ${i}`);
      assert.equal(result.completed, true);
      assert.equal(result.finalResponse, "ok");
    }
    assert.equal(h.fake.requests.length, 4);
  } finally {
    await h.close();
  }
});
