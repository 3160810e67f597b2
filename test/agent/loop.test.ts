import assert from "node:assert/strict";
import { test } from "node:test";
import { assertWellFormedRequests, conversationOf, createHarness, lastToolResults } from "../helpers/agent-harness.js";

test("runs a multi-turn tool loop and returns the final answer", async () => {
  const h = await createHarness({
    script: [
      { toolCalls: [{ name: "echo", arguments: { text: "one" } }] },
      { toolCalls: [{ name: "echo", arguments: { text: "two" } }] },
      (req) => ({ text: `done after ${lastToolResults(req).join(",")}` }),
    ],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "done after echo: two");
    assert.equal(result.completed, true);
    assert.equal(result.apiCalls, 3);
    assert.equal(result.toolCalls, 2);
    assert.deepEqual(
      result.messages.map((m) => m.role),
      ["user", "assistant", "tool", "assistant", "tool", "assistant"],
    );
    assertWellFormedRequests(h.fake);
    assert.ok(h.events.some((e) => e.type === "tool_end" && e.name === "echo"));
  } finally {
    await h.close();
  }
});

test("keeps the system prompt byte-identical on every request of a session", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "echo", arguments: { text: "a" } }] }, { text: "one" }, { text: "two" }],
  });
  try {
    await h.agent.runConversation("first");
    await h.agent.runConversation("second");
    const systems = h.fake.requests.map((r) => JSON.stringify(r.body.messages[0]));
    assert.equal(systems.length, 3);
    assert.equal(new Set(systems).size, 1);
    assert.equal(h.fake.requests[0]!.body.messages[0].role, "system");
    assertWellFormedRequests(h.fake);
  } finally {
    await h.close();
  }
});

test("returns a parallel batch's results in call order even when they finish out of order", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [
          { id: "c1", name: "slow_write", arguments: { path: "a.txt", ms: 60 } },
          { id: "c2", name: "slow_write", arguments: { path: "b.txt", ms: 5 } },
          { id: "c3", name: "echo", arguments: { text: "x" } },
        ],
      },
      (req) => ({ text: lastToolResults(req).join("|") }),
    ],
  });
  try {
    const result = await h.agent.runConversation("write both");
    assert.equal(result.finalResponse, "wrote a.txt|wrote b.txt|echo: x");
    // Concurrent: b finished before a did.
    assert.ok(h.trace.indexOf("end:b.txt") < h.trace.indexOf("end:a.txt"), h.trace.join(" "));
    const toolIds = conversationOf(h.fake.requests[1]!)
      .filter((m) => m.role === "tool")
      .map((m) => m.tool_call_id);
    assert.deepEqual(toolIds, ["c1", "c2", "c3"]);
  } finally {
    await h.close();
  }
});

test("runs calls on overlapping paths one after another", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [
          { name: "slow_write", arguments: { path: "dir", ms: 40 } },
          { name: "slow_write", arguments: { path: "dir/file.txt", ms: 5 } },
        ],
      },
      { text: "ok" },
    ],
  });
  try {
    await h.agent.runConversation("write");
    assert.deepEqual(h.trace, ["start:dir", "end:dir", "start:dir/file.txt", "end:dir/file.txt"]);
  } finally {
    await h.close();
  }
});

test("repairs malformed tool JSON and a misspelled tool name", async () => {
  const h = await createHarness({
    script: [
      { toolCalls: [{ name: "Echo", arguments: '{"text": "fixed",' }] },
      (req) => ({ text: lastToolResults(req)[0]! }),
    ],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "echo: fixed");
    const assistant = result.messages.find((m) => m.tool_calls);
    assert.equal(assistant?.tool_calls?.[0]?.function.name, "echo");
    assert.deepEqual(JSON.parse(assistant!.tool_calls![0]!.function.arguments), { text: "fixed" });
  } finally {
    await h.close();
  }
});

test("answers an unknown tool with an error naming the closest tools, and the model recovers", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "launch_rockets", arguments: {} }] }, (req) => ({ text: lastToolResults(req)[0]! })],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.match(result.finalResponse, /no tool named "launch_rockets"/);
    assert.match(result.finalResponse, /echo|slow_write/);
    assert.equal(result.completed, true);
  } finally {
    await h.close();
  }
});

test("turns invalid arguments into a tool result that explains the schema violation", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "echo", arguments: { text: 42 } }] }, (req) => ({ text: lastToolResults(req)[0]! })],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.match(result.finalResponse, /invalid arguments for echo: text:/);
    assert.deepEqual(h.trace, []);
  } finally {
    await h.close();
  }
});

test("a throwing tool becomes an error result, not a crashed turn", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "boom", arguments: {} }] }, (req) => ({ text: lastToolResults(req)[0]! })],
  });
  const { z } = await import("zod");
  h.registry.register({
    name: "boom",
    toolset: "test",
    description: "always fails",
    parameters: z.object({}),
    handler: async () => {
      throw new Error("kaboom");
    },
  });
  h.agent.options.tools = ["echo", "boom"];
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "Error: boom failed: kaboom");
  } finally {
    await h.close();
  }
});

test("deduplicates identical calls in one turn but still answers each", async () => {
  const h = await createHarness({
    script: [
      {
        toolCalls: [
          { id: "a", name: "echo", arguments: { text: "same" } },
          { id: "b", name: "echo", arguments: { text: "same" } },
        ],
      },
      (req) => ({ text: lastToolResults(req).join("|") }),
    ],
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.deepEqual(h.trace, ["echo:same"]);
    assert.match(result.finalResponse, /^echo: same\|Skipped: identical to call a/);
  } finally {
    await h.close();
  }
});

test("nudges once after an empty reply and then accepts the answer", async () => {
  const h = await createHarness({ script: [{ fault: { kind: "empty" } }, { text: "here it is" }] });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "here it is");
    assert.equal(h.fake.requests.length, 2);
    const second = conversationOf(h.fake.requests[1]!);
    assert.equal(second.at(-1)?.role, "user");
    assert.equal(result.messages.length, 2, "the nudge is not kept in history");
  } finally {
    await h.close();
  }
});

test("asks for a continuation when a text reply is cut off by the output limit", async () => {
  const h = await createHarness({ script: [{ text: "Hello, ", finish: "length" }, { text: "world." }] });
  try {
    const result = await h.agent.runConversation("greet");
    assert.equal(result.finalResponse, "Hello, world.");
    assert.equal(result.messages.length, 2);
  } finally {
    await h.close();
  }
});

test("a throwing listener never breaks the loop", async () => {
  const h = await createHarness({
    script: [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "fine" }],
  });
  h.agent.on(() => {
    throw new Error("listener bug");
  });
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "fine");
  } finally {
    await h.close();
  }
});

test("a long tool loop leaves no abort listeners behind on the turn's signal", async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on("warning", onWarning);
  const steps = Array.from({ length: 30 }, (_, i) => ({ toolCalls: [{ name: "echo", arguments: { text: `n${i}` } }] }));
  const h = await createHarness({ script: [...steps, { text: "done" }] });
  try {
    const result = await h.agent.runConversation("loop");
    assert.equal(result.finalResponse, "done");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      warnings.filter((name) => name === "MaxListenersExceededWarning"),
      [],
    );
  } finally {
    process.off("warning", onWarning);
    await h.close();
  }
});
