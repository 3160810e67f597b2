import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { Agent, type AgentOptions } from "../../src/agent/agent.js";
import { COMPACTION_SYSTEM_NOTE } from "../../src/agent/compression/assemble.js";
import { SUMMARY_TAG } from "../../src/agent/compression/summary.js";
import type { Message } from "../../src/llm/types.js";
import { openSessionStore, type SessionStore } from "../../src/state/session-store.js";
import type { FakeProviderOptions } from "../fake-provider/types.js";
import { assertWellFormedRequests, conversationOf, createHarness, type Harness } from "../helpers/agent-harness.js";
import {
  echoCall,
  isSummaryRequest,
  OVERFLOW_FAULT,
  SUMMARY_TEXT,
  systemOf,
  turnRequests,
  withSummaries,
} from "./context-fixtures.js";

const TASK = "Build the report from the data";

function statusMessages(h: Harness, kind?: string): string[] {
  return h.events.flatMap((e) => (e.type === "status" && (!kind || e.kind === kind) ? [e.message] : []));
}

async function withStore(
  fakeOptions: FakeProviderOptions,
  agentOptions: Partial<AgentOptions>,
  body: (h: Harness, agent: Agent, store: SessionStore) => Promise<void>,
): Promise<void> {
  const h = await createHarness(fakeOptions);
  const store = await openSessionStore(join(h.dir, "state.db"));
  try {
    const agent = new Agent({ ...h.agent.options, sessionStore: store, sessionId: "parent-1", ...agentOptions });
    await body(h, agent, store);
  } finally {
    store.close();
    await h.close();
  }
}

function chatter(pairs: number, chars: number): Message[] {
  const history: Message[] = [];
  for (let i = 0; i < pairs; i++) {
    history.push({ role: "user", content: `question ${i} ${"q".repeat(chars)}` });
    history.push({ role: "assistant", content: `answer ${i} ${"a".repeat(chars)}` });
  }
  return history;
}

const bigEcho = (n: number) => echoCall(`${n}:${"d".repeat(2400)}`);
const fiveEchoes = () => withSummaries([{ text: "hi" }, ...[1, 2, 3, 4, 5].map(bigEcho), { text: "report done" }]);

test("compresses after a tool batch at the threshold, keeps tool pairs and the active task, and compacts the session in place", async () => {
  await withStore(fiveEchoes(), { contextLength: 6000 }, async (h, agent, store) => {
    await agent.runConversation("hello");
    const result = await agent.runConversation(TASK);
    assert.equal(result.finalResponse, "report done");

    const summaries = h.fake.requests.filter(isSummaryRequest);
    assert.equal(summaries.length, 1, "one compression");
    assert.ok(statusMessages(h, "compression").some((m) => m.startsWith("condensed")));

    // The conversation keeps its session; what was condensed stays there, archived.
    assert.equal(result.sessionId, "parent-1");
    assert.equal(agent.sessionId, "parent-1");
    assert.equal((await store.listSessions()).length, 1, "no child session");
    const exported = await store.exportSession("parent-1");
    const archived = exported.messages.filter((m) => m.archived);
    assert.ok(
      archived.some((m) => String(m.content).includes("2:ddd")),
      "the raw transcript is kept, archived",
    );
    assert.ok((await store.search("report")).some((hit) => hit.sessionId === "parent-1"));

    // Requests after the compression carry the summary, the task verbatim, and whole tool pairs.
    const turns = turnRequests(h.fake.requests);
    const afterIndex = turns.findIndex((r) => systemOf(r).includes(COMPACTION_SYSTEM_NOTE));
    assert.ok(afterIndex > 0, "a request after the compression");
    const after = conversationOf(turns[afterIndex]!);
    assert.ok(after.some((m) => String(m.content).includes(SUMMARY_TAG) && String(m.content).includes(SUMMARY_TEXT)));
    assert.ok(
      after.some((m) => m.role === "user" && m.content === TASK),
      "the active task stays verbatim",
    );
    assert.ok(!after.some((m) => String(m.content).includes("1:ddd")), "the oldest tool output is summarized away");
    assertWellFormedRequests(h.fake);

    // The system prompt was rebuilt once, at the compression, and is stable on either side of it.
    const before = turns.slice(0, afterIndex).map(systemOf);
    const later = turns.slice(afterIndex).map(systemOf);
    assert.equal(new Set(before).size, 1);
    assert.equal(new Set(later).size, 1);
    assert.equal((await store.getSession("parent-1"))?.systemPrompt, later[0]);

    // The session's conversation is the compressed history and everything after it.
    const conversation = await store.getMessages("parent-1");
    assert.ok(String(conversation.find((m) => String(m.content).includes(SUMMARY_TAG))?.content).length > 0);
    assert.ok(!conversation.some((m) => String(m.content).includes("1:ddd")));
    assert.equal(conversation.at(-1)?.content, "report done");
    assert.equal(conversation.length, result.messages.length);

    // A new agent resuming the session starts from the compacted conversation and its prompt.
    const resumed = new Agent({ ...h.agent.options, sessionStore: store, sessionId: "parent-1" });
    await resumed.runConversation("and now?");
    const last = turnRequests(h.fake.requests).at(-1)!;
    assert.equal(systemOf(last), later[0]);
    assert.ok(!conversationOf(last).some((m) => String(m.content).includes("1:ddd")));
  });
});

test("with compression.in_place false the conversation continues in a child session linked to its parent", async () => {
  await withStore(fiveEchoes(), { contextLength: 6000, compression: { inPlace: false } }, async (_h, agent, store) => {
    await agent.runConversation("hello");
    const result = await agent.runConversation(TASK);
    assert.equal(result.finalResponse, "report done");
    assert.notEqual(result.sessionId, "parent-1");
    assert.equal(agent.sessionId, result.sessionId);
    const child = await store.getSession(result.sessionId);
    assert.equal(child?.parentSessionId, "parent-1");
    assert.ok((await store.getSession("parent-1"))?.endedAt, "the parent session is ended");
    const parentMessages = await store.getMessages("parent-1");
    assert.ok(
      parentMessages.some((m) => String(m.content).includes("2:ddd")),
      "the parent keeps the raw transcript",
    );
    const childMessages = await store.getMessages(result.sessionId);
    assert.equal(childMessages.at(-1)?.content, "report done");
    assert.equal(childMessages.length, result.messages.length);
  });
});

test("a failing summary keeps every turn and says so in a status event", async () => {
  const script = withSummaries(
    [
      { text: "hi" },
      echoCall("a".repeat(2400)),
      echoCall("b".repeat(2400)),
      echoCall("c".repeat(2400)),
      echoCall("d".repeat(2400)),
      { text: "done" },
    ],
    { fault: { kind: "status", status: 500, message: "summarizer down" } },
  );
  await withStore(script, { contextLength: 6000, compression: { summaryRetryDelayMs: 1 } }, async (h, agent) => {
    await agent.runConversation("hello");
    const result = await agent.runConversation(TASK);
    assert.equal(result.finalResponse, "done");
    assert.equal(result.sessionId, "parent-1", "no child session without a compression");
    assert.equal(
      h.fake.requests.filter(isSummaryRequest).length,
      3,
      "the summary is tried three times, then not again",
    );
    const warning = statusMessages(h, "warning").find((m) => m.startsWith("compression failed"));
    assert.ok(warning, "a status event tells that compression failed");
    assert.match(warning, /kept all \d+ message/);
    const last = conversationOf(turnRequests(h.fake.requests).at(-1)!);
    assert.equal(last.length, result.messages.length - 1, "every raw message is still sent");
    assert.ok(!last.some((m) => String(m.content).includes(SUMMARY_TAG)));
  });
});

test("a context overflow from the provider compresses the conversation and the retry succeeds", async () => {
  const script = withSummaries([OVERFLOW_FAULT, { text: "answer after compression" }]);
  await withStore(script, { contextLength: 4000 }, async (h, agent, store) => {
    const result = await agent.runConversation("and the next step?", { conversationHistory: chatter(8, 400) });
    assert.equal(result.finalResponse, "answer after compression");
    assert.equal(result.error, undefined);
    const posts = h.fake.requests.filter((r) => r.method === "POST");
    assert.deepEqual(
      posts.map((r) => (isSummaryRequest(r) ? "summary" : "turn")),
      ["turn", "summary", "turn"],
    );
    const retried = conversationOf(posts[2]!);
    assert.ok(retried.some((m) => String(m.content).includes(SUMMARY_TAG)));
    assert.equal(retried.at(-1)?.content, "and the next step?");
    assert.ok(retried.length < conversationOf(posts[0]!).length);
    assert.ok(statusMessages(h, "compression").some((m) => m.includes("no longer fits")));
    assert.equal(result.sessionId, "parent-1");
    const stored = await store.getMessages("parent-1");
    assert.ok(
      stored.some((m) => String(m.content).includes(SUMMARY_TAG)),
      "the stored conversation is the compacted one",
    );
    assert.equal(stored.at(-1)?.content, "answer after compression");
  });
});

test("drops turns only when the provider overflowed and no summary could be written", async () => {
  const script = withSummaries([OVERFLOW_FAULT, { text: "recovered" }], { fault: { kind: "status", status: 500 } });
  await withStore(script, { contextLength: 4000, compression: { summaryRetryDelayMs: 1 } }, async (h, agent) => {
    const result = await agent.runConversation("continue", { conversationHistory: chatter(8, 400) });
    assert.equal(result.finalResponse, "recovered");
    const warning = statusMessages(h, "warning").find((m) => /message\(s\) dropped/.test(m));
    assert.ok(warning, "a warning names the dropped messages");
    assertWellFormedRequests(h.fake);
  });
});

test("compresses before the first call when a resumed history is already past the threshold", async () => {
  const script = withSummaries([{ text: "fresh answer" }]);
  await withStore(script, { contextLength: 4000 }, async (h, agent) => {
    const result = await agent.runConversation("where were we?", { conversationHistory: chatter(10, 1000) });
    assert.equal(result.finalResponse, "fresh answer");
    const posts = h.fake.requests.filter((r) => r.method === "POST");
    assert.equal(isSummaryRequest(posts[0]!), true, "the summary comes before the first model call");
    const first = conversationOf(posts[1]!);
    assert.ok(first.some((m) => String(m.content).includes(SUMMARY_TAG)));
    assert.equal(first.at(-1)?.content, "where were we?");
  });
});

test("compress(focus) summarizes on demand with the focus topic", async () => {
  const script = withSummaries([{ text: "one" }, { text: "two" }, { text: "three" }]);
  await withStore(script, { contextLength: 4000 }, async (h, agent, store) => {
    await agent.runConversation("q1", { conversationHistory: chatter(8, 400) });
    const result = await agent.compress("the database schema");
    assert.equal(result?.compressed, true, result?.reason);
    const summary = h.fake.requests.find(isSummaryRequest)!;
    assert.match(String(summary.body.messages[0].content), /FOCUS: .*the database schema/);
    assert.equal(agent.sessionId, "parent-1");
    assert.ok((await store.getMessages("parent-1")).some((m) => String(m.content).includes(SUMMARY_TAG)));
    await agent.runConversation("q2");
    const last = turnRequests(h.fake.requests).at(-1)!;
    assert.ok(conversationOf(last).some((m) => String(m.content).includes(SUMMARY_TAG)));
  });
});

test("shouldCompressBetweenTurns is true once the prompt fills 85% of the window", async () => {
  const script = withSummaries([
    { text: "small", usage: { input: 1_000 } },
    { text: "large", usage: { input: 90_000 } },
  ]);
  await withStore(script, { contextLength: 100_000, compression: { threshold: 0.95 } }, async (_h, agent) => {
    assert.equal(agent.shouldCompressBetweenTurns(), false, "nothing to compress before the first turn");
    await agent.runConversation("first");
    assert.equal(agent.shouldCompressBetweenTurns(), false);
    await agent.runConversation("second");
    assert.equal(agent.shouldCompressBetweenTurns(), true);
  });
});

test("compression can be turned off", async () => {
  const script = withSummaries([{ text: "large", usage: { input: 90_000 } }]);
  await withStore(script, { contextLength: 100_000, compression: { enabled: false } }, async (h, agent) => {
    await agent.runConversation("first", { conversationHistory: chatter(10, 40_000) });
    assert.equal(h.fake.requests.filter(isSummaryRequest).length, 0);
    assert.equal(agent.shouldCompressBetweenTurns(), false);
  });
});

test("probes a custom server for its window only once the prompt is large enough to matter", async () => {
  const h = await createHarness({
    ...withSummaries([
      { text: "short" },
      echoCall("x".repeat(6000)),
      echoCall("y".repeat(6000)),
      echoCall("z".repeat(6000)),
      { text: "long" },
    ]),
    models: [{ id: "test-model", contextLength: 5_000 }],
  });
  try {
    await h.agent.runConversation("hi");
    assert.equal(h.fake.requests.filter((r) => r.method === "GET").length, 0, "a short session never probes");
    await h.agent.runConversation(TASK);
    assert.equal(h.fake.requests.filter((r) => r.method === "GET").length, 1, "probed once");
    assert.ok(h.fake.requests.some(isSummaryRequest), "compressed at the probed 5,000-token window");
  } finally {
    await h.close();
  }
});

test("an interrupt while the summary is being written ends the turn at once and loses nothing", {
  timeout: 20_000,
}, async () => {
  let summaries = 0;
  const options: FakeProviderOptions = {
    fallback: (req) => {
      if (!isSummaryRequest(req)) return { text: "answered" };
      summaries += 1;
      return summaries === 1 ? { fault: { kind: "stall", afterChunks: 0 } } : { text: SUMMARY_TEXT };
    },
  };
  await withStore(options, { contextLength: 4000 }, async (h, agent, store) => {
    const history = chatter(10, 1000);
    const run = agent.runConversation("where were we?", { conversationHistory: history });
    while (summaries === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const interruptedAt = Date.now();
    agent.interrupt();
    const result = await run;
    const stoppedAfterMs = Date.now() - interruptedAt;
    assert.equal(result.interrupted, true);
    assert.ok(stoppedAfterMs < 5000, `the stalled summary call was abandoned (${stoppedAfterMs} ms)`);
    assert.equal(turnRequests(h.fake.requests).length, 0, "no model call was made after the interrupt");
    const kept = await store.getMessages(agent.sessionId);
    assert.ok(kept.length >= history.length, "every earlier turn is still stored");
    assert.equal(
      kept.some((m) => String(m.content).includes(SUMMARY_TAG)),
      false,
    );

    // The abandoned summary is not a failure: the next turn compresses as usual.
    const next = await agent.runConversation("and now?");
    assert.equal(next.finalResponse, "answered");
    assert.equal(summaries, 2);
  });
});
