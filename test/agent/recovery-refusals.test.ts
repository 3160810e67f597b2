import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentEmitter, type AgentEvent } from "../../src/agent/events.js";
import { callModel, ModelCallError, type ModelRoute } from "../../src/agent/model-call.js";
import { createTransport } from "../../src/llm/providers.js";
import type { LlmRequest, Message } from "../../src/llm/types.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, RecordedRequest, ScriptedTurn, ScriptStep } from "../fake-provider/types.js";
import { createHarness } from "../helpers/agent-harness.js";

const FAST = { maxRetries: 3, baseMs: 1, capMs: 2 };

function statusesOf(events: AgentEvent[]): string[] {
  return events.flatMap((e) => (e.type === "status" ? [`${e.kind}: ${e.message}`] : []));
}

async function routeTo(fake: FakeProvider, model = "test-model"): Promise<ModelRoute> {
  const transport = await createTransport({ provider: "custom", model, baseUrl: `${fake.url}/v1`, apiKey: "k" });
  return { provider: "custom", model, transport };
}

async function call(routes: ModelRoute[], messages: Message[], events: AgentEvent[] = []) {
  const emitter = new AgentEmitter();
  emitter.on((event) => events.push(event));
  return callModel(routes, (route): LlmRequest => ({ model: route.model, messages }), {
    signal: new AbortController().signal,
    emitter,
    retry: FAST,
  });
}

function refuse(message: string): ScriptedTurn {
  return { fault: { kind: "status", status: 400, message } };
}

const toolCall = (id: string): Message => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "screenshot", arguments: "{}" } }],
});

const hasListToolContent = (req: RecordedRequest) =>
  (req.body.messages as Array<{ role: string; content: unknown }>).some(
    (m) => m.role === "tool" && Array.isArray(m.content),
  );

test("images in tool results are left out for a model that takes only text there, for the rest of the session", async () => {
  const onlyText: ScriptStep = (req) =>
    hasListToolContent(req) ? refuse("Invalid request: tool message content must be a string") : { text: "seen" };
  const fake = await startFakeProvider({ script: [onlyText, onlyText, onlyText] });
  try {
    const route = await routeTo(fake);
    const screenshot: Message = {
      role: "tool",
      tool_call_id: "c1",
      content: [
        { type: "text", text: "the page:" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } },
      ],
    };
    const history: Message[] = [{ role: "user", content: "look" }, toolCall("c1"), screenshot];
    const events: AgentEvent[] = [];
    assert.equal((await call([route], history, events)).reply.text, "seen");
    assert.equal(fake.requests.length, 2);
    const retried = fake.requests[1]!.body.messages.at(-1);
    assert.equal(retried.content, "the page:\n[an image left out: this model takes only text in tool results]");
    assert.ok(Array.isArray(history[2]!.content), "the history keeps the image");
    assert.ok(statusesOf(events).some((s) => /only text in tool results/.test(s)));

    const later: Message[] = [...history, { role: "assistant", content: "ok" }, toolCall("c2")];
    later.push({
      role: "tool",
      tool_call_id: "c2",
      content: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }],
    });
    assert.equal((await call([route], later)).reply.text, "seen");
    assert.equal(fake.requests.length, 3, "the next call leaves the images out at once");
    assert.equal(
      fake.requests[2]!.body.messages.at(-1).content,
      "[an image left out: this model takes only text in tool results]",
    );
  } finally {
    await fake.close();
  }
});

test("a model that cannot turn reasoning off is asked again without the off switch, and not asked with it again", async () => {
  const mandatory: ScriptStep = (req) =>
    req.body.reasoning_effort === "none"
      ? refuse("Reasoning is mandatory for this endpoint and cannot be disabled.")
      : { text: `answer ${req.body.reasoning_effort ?? "default"}` };
  const h = await createHarness({ script: [mandatory, mandatory, mandatory] }, { reasoningEffort: "none" });
  try {
    assert.equal((await h.agent.runConversation("one")).finalResponse, "answer default");
    assert.equal((await h.agent.runConversation("two")).finalResponse, "answer default");
    assert.equal(h.fake.requests.length, 3, "one refusal, then two answers");
    assert.equal(h.fake.requests[0]!.body.reasoning_effort, "none");
    assert.ok(statusesOf(h.events).some((s) => /cannot turn reasoning off/.test(s)));
  } finally {
    await h.close();
  }
});

test("encrypted reasoning the provider cannot verify is dropped for good; reasoning made afterwards still travels", async () => {
  const carries = (req: RecordedRequest, secret: string) => req.rawBody.includes(secret);
  const script: ScriptStep[] = [
    { reasoning: "first thoughts", reasoningSignature: "ZW5jLW9uZQ==", text: "first" },
    (req) =>
      carries(req, "ZW5jLW9uZQ==")
        ? refuse("The encrypted content for item rs_1 could not be verified.")
        : { text: "unexpected" },
    { reasoning: "second thoughts", reasoningSignature: "ZW5jLXR3bw==", text: "second" },
    (req) => ({
      text: carries(req, "ZW5jLW9uZQ==") ? "stale item sent" : carries(req, "ZW5jLXR3bw==") ? "third" : "no items",
    }),
  ];
  const h = await createHarness({ script }, { apiMode: "codex_responses", reasoningEffort: "medium" });
  try {
    assert.equal((await h.agent.runConversation("one")).finalResponse, "first");
    assert.equal((await h.agent.runConversation("two")).finalResponse, "second");
    assert.equal((await h.agent.runConversation("three")).finalResponse, "third");
    assert.equal(h.fake.requests.length, 4);
    assert.ok(carries(h.fake.requests[1]!, "ZW5jLW9uZQ=="), "the refused request carried the item");
    assert.ok(!carries(h.fake.requests[2]!, "ZW5jLW9uZQ=="), "the retry does not");
    assert.ok(statusesOf(h.events).some((s) => /reasoning blocks of earlier turns/.test(s)));
  } finally {
    await h.close();
  }
});

test("a refusal nothing can be left out for is not retried on the same route", async () => {
  const fake = await startFakeProvider({
    script: [refuse("The long context beta is not yet available for this subscription.")],
  });
  try {
    const route = await routeTo(fake);
    await assert.rejects(
      call([route], [{ role: "user", content: "hi" }]),
      (error: unknown) => error instanceof ModelCallError && /1M-token context beta/.test(error.message),
    );
    assert.equal(fake.requests.length, 1, "no backoff retries of a request that would be refused again");
  } finally {
    await fake.close();
  }
});

test("a refusal that cannot be repaired moves to the fallback route at once", async () => {
  const byModel: ScriptStep = (req) =>
    req.body.model === "primary"
      ? refuse("Reasoning is mandatory for this endpoint and cannot be disabled.")
      : { text: `from ${req.body.model}` };
  const fake = await startFakeProvider({ script: [byModel, byModel] });
  try {
    const events: AgentEvent[] = [];
    const result = await call(
      [await routeTo(fake, "primary"), await routeTo(fake, "backup")],
      [{ role: "user", content: "hi" }],
      events,
    );
    assert.equal(result.reply.text, "from backup");
    assert.equal(fake.requests.length, 2);
    assert.ok(statusesOf(events).some((s) => /^fallback: .*primary failed \(reasoning_mandatory\)/.test(s)));
  } finally {
    await fake.close();
  }
});
