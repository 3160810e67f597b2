import assert from "node:assert/strict";
import { test } from "node:test";
import { HookRunner } from "../../src/agent/hooks.js";
import { createHarness, lastToolResults } from "../helpers/agent-harness.js";

function runnerWithWarnings(timeoutMs = 200): { hooks: HookRunner; warnings: string[] } {
  const warnings: string[] = [];
  return { hooks: new HookRunner({ timeoutMs, onWarning: (message) => warnings.push(message) }), warnings };
}

test("hooks run in the order they were added, for every lifecycle event of a turn", async () => {
  const { hooks } = runnerWithWarnings();
  const seen: string[] = [];
  hooks.add("on_session_start", (p) => void seen.push(`start:${p.platform}`), { owner: "a" });
  hooks.add("pre_llm_call", () => void seen.push("pre_llm:a"), { owner: "a" });
  hooks.add("pre_llm_call", () => void seen.push("pre_llm:b"), { owner: "b" });
  hooks.add("pre_tool_call", (p) => void seen.push(`pre_tool:${p.toolName}`), { owner: "a" });
  hooks.add("post_tool_call", (p) => void seen.push(`post_tool:${p.toolName}:${p.result}`), { owner: "a" });
  hooks.add("post_llm_call", (p) => void seen.push(`post_llm:${p.response}:${p.toolCalls}`), { owner: "a" });
  hooks.add("on_session_end", (p) => void seen.push(`end:${p.reason}`), { owner: "a" });
  const h = await createHarness(
    { script: [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "done" }] },
    { hooks },
  );
  try {
    await h.agent.runConversation("go");
    await h.agent.endSession("test over");
    assert.deepEqual(seen, [
      "start:cli",
      "pre_llm:a",
      "pre_llm:b",
      "pre_tool:echo",
      "post_tool:echo:echo: x",
      "post_llm:done:1",
      "end:test over",
    ]);
  } finally {
    await h.close();
  }
});

test("pre_llm_call context goes into this turn's user message, never the system prompt or the transcript", async () => {
  const { hooks } = runnerWithWarnings();
  hooks.add("pre_llm_call", () => ({ context: "[ticket ABC-12 is open]" }), { owner: "tickets" });
  const h = await createHarness({ script: [{ text: "first" }, { text: "second" }] }, { hooks });
  try {
    await h.agent.runConversation("hello");
    const sent = h.fake.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    assert.ok(!sent[0]!.content.includes("ABC-12"), "not in the system prompt");
    assert.match(sent.at(-1)!.content, /ABC-12[\s\S]*hello|hello[\s\S]*ABC-12/);
    const stored = h.agent.messages.find((m) => m.role === "user");
    assert.equal(stored?.content, "hello", "the transcript keeps what the user wrote");
  } finally {
    await h.close();
  }
});

test("a pre_tool_call hook blocks a tool with a reason the model reads, and the tool never runs", async () => {
  const { hooks } = runnerWithWarnings();
  hooks.add("pre_tool_call", (p) => (p.toolName === "echo" ? { block: "echo is off limits today" } : undefined), {
    owner: "guard",
  });
  const h = await createHarness(
    { script: [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }] },
    { hooks },
  );
  try {
    await h.agent.runConversation("go");
    assert.deepEqual(h.trace, [], "the tool did not run");
    const [result] = lastToolResults(h.fake.requests[1]!);
    assert.match(result!, /Blocked by a hook \(guard\): echo is off limits today/);
  } finally {
    await h.close();
  }
});

test("a pre_tool_call hook may rewrite the arguments; an invalid rewrite is refused", async () => {
  const { hooks } = runnerWithWarnings();
  hooks.add("pre_tool_call", (p) => ({ args: { text: String(p.args.text).toUpperCase() } }), { owner: "upper" });
  const h = await createHarness(
    { script: [{ toolCalls: [{ name: "echo", arguments: { text: "quiet" } }] }, { text: "ok" }] },
    { hooks },
  );
  try {
    await h.agent.runConversation("go");
    assert.deepEqual(h.trace, ["echo:QUIET"]);
  } finally {
    await h.close();
  }

  const bad = runnerWithWarnings();
  bad.hooks.add("pre_tool_call", () => ({ args: { text: 42 } }), { owner: "broken" });
  const h2 = await createHarness(
    { script: [{ toolCalls: [{ name: "echo", arguments: { text: "quiet" } }] }, { text: "ok" }] },
    { hooks: bad.hooks },
  );
  try {
    await h2.agent.runConversation("go");
    assert.deepEqual(h2.trace, [], "the tool did not run with arguments its schema rejects");
    assert.match(lastToolResults(h2.fake.requests[1]!)[0]!, /rewrote the arguments of echo into an invalid shape/);
  } finally {
    await h2.close();
  }
});

test("transform_tool_result hooks chain, and post_tool_call sees the final result", async () => {
  const { hooks } = runnerWithWarnings();
  let posted = "";
  hooks.add("transform_tool_result", (p) => `${p.result} [one]`, { owner: "a" });
  hooks.add("transform_tool_result", (p) => ({ result: `${p.result} [two]` }), { owner: "b" });
  hooks.add(
    "post_tool_call",
    (p) => {
      posted = p.result;
    },
    { owner: "c" },
  );
  const h = await createHarness(
    { script: [{ toolCalls: [{ name: "echo", arguments: { text: "x" } }] }, { text: "ok" }] },
    { hooks },
  );
  try {
    await h.agent.runConversation("go");
    assert.equal(lastToolResults(h.fake.requests[1]!)[0], "echo: x [one] [two]");
    assert.equal(posted, "echo: x [one] [two]");
  } finally {
    await h.close();
  }
});

test("a throwing hook and a slow hook are skipped and reported once each; the turn completes", async () => {
  const { hooks, warnings } = runnerWithWarnings(50);
  let later = 0;
  hooks.add(
    "pre_tool_call",
    () => {
      throw new Error("kaboom");
    },
    { owner: "thrower" },
  );
  hooks.add("pre_tool_call", () => new Promise<undefined>(() => {}), { owner: "sleeper" });
  hooks.add("pre_tool_call", () => void later++, { owner: "fine" });
  const h = await createHarness(
    {
      script: [
        { toolCalls: [{ name: "echo", arguments: { text: "1" } }] },
        { toolCalls: [{ name: "echo", arguments: { text: "2" } }] },
        { text: "finished" },
      ],
    },
    { hooks },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "finished");
    assert.deepEqual(h.trace, ["echo:1", "echo:2"], "both tools ran");
    assert.equal(later, 2, "the hook after the broken ones still ran each time");
    assert.equal(warnings.length, 2, warnings.join("\n"));
    assert.match(warnings[0]!, /pre_tool_call hook of thrower failed and was skipped: kaboom/);
    assert.match(warnings[1]!, /pre_tool_call hook of sleeper took longer than 50 ms/);
  } finally {
    await h.close();
  }
});

test("on_compress reports the session compacted in place", async () => {
  const { hooks } = runnerWithWarnings();
  const compressions: Array<{ sessionId: string; newSessionId: string; inPlace: boolean }> = [];
  hooks.add("on_compress", (p) => void compressions.push(p), { owner: "watch" });
  const h = await createHarness(
    { fallback: () => ({ text: "a summary of what happened" }) },
    { hooks, contextLength: 4000 },
  );
  const chatter = Array.from({ length: 16 }, (_, i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: `message ${i} ${"words ".repeat(80)}`,
  }));
  try {
    await h.agent.runConversation("one", { conversationHistory: chatter });
    const before = h.agent.sessionId;
    const result = await h.agent.compress();
    assert.ok(result?.compressed, result?.reason);
    assert.equal(compressions.length, 1);
    assert.deepEqual(
      [compressions[0]!.sessionId, compressions[0]!.newSessionId, compressions[0]!.inPlace],
      [before, before, true],
    );
    assert.equal(h.agent.sessionId, before);
  } finally {
    await h.close();
  }
});
