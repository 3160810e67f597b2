import assert from "node:assert/strict";
import { test } from "node:test";
import { AgentEmitter, type AgentEvent } from "../../src/agent/events.js";
import { callModel, ModelCallError, type ModelRoute } from "../../src/agent/model-call.js";
import { createTransport } from "../../src/llm/providers.js";
import type { LlmRequest, Message, Transport } from "../../src/llm/types.js";
import { startFakeProvider } from "../fake-provider/server.js";
import type { FakeProvider, ScriptStep } from "../fake-provider/types.js";
import { createHarness } from "../helpers/agent-harness.js";

const FAST = { baseMs: 1, capMs: 2 };

function transportFor(fake: FakeProvider, apiKey: string): Promise<Transport> {
  return createTransport({ provider: "custom", model: "test-model", baseUrl: `${fake.url}/v1`, apiKey });
}

async function withFake<T>(script: ScriptStep[], fn: (fake: FakeProvider) => Promise<T>): Promise<T> {
  const fake = await startFakeProvider({ script });
  try {
    return await fn(fake);
  } finally {
    await fake.close();
  }
}

function recorder() {
  const emitter = new AgentEmitter();
  const events: AgentEvent[] = [];
  emitter.on((event) => events.push(event));
  const statuses = () => events.flatMap((e) => (e.type === "status" ? [`${e.kind}: ${e.message}`] : []));
  return { emitter, events, statuses };
}

const requestOf =
  (messages: Message[], extra: Partial<LlmRequest> = {}) =>
  (route: ModelRoute): LlmRequest => ({ model: route.model, messages, ...extra });

/** JSON.stringify writes a lone surrogate as a \udXXX escape; a valid pair goes out as UTF-8. */
const LONE_SURROGATE_ESCAPE = /\\ud[89a-f][0-9a-f]{2}/i;

test("a lone surrogate in a user message is replaced and the request retried once", async () => {
  const rejectBrokenText: ScriptStep = (req) =>
    LONE_SURROGATE_ESCAPE.test(req.rawBody)
      ? { fault: { kind: "status", status: 400, message: "Invalid request: body is not valid UTF-8" } }
      : { text: "clean now" };
  await withFake([rejectBrokenText, rejectBrokenText], async (fake) => {
    const { emitter, statuses } = recorder();
    const route: ModelRoute = { provider: "custom", model: "test-model", transport: await transportFor(fake, "k") };
    const history: Message[] = [{ role: "user", content: "pasted \uD83D text 😀 here" }];
    const result = await callModel([route], requestOf(history), {
      signal: new AbortController().signal,
      emitter,
      retry: { maxRetries: 0, ...FAST },
    });
    assert.equal(result.reply.text, "clean now");
    assert.equal(fake.requests.length, 2);
    assert.equal(fake.requests[1]!.body.messages[0].content, "pasted \uFFFD text 😀 here");
    assert.equal(history[0]!.content, "pasted \uD83D text 😀 here", "the caller's history is not mutated");
    assert.ok(statuses().some((s) => /invalid characters/.test(s)));
  });
});

test("a format error without invalid text is not retried as an encoding problem", async () => {
  const fault: ScriptStep = { fault: { kind: "status", status: 400, message: "Invalid value for 'tools'" } };
  await withFake([fault, fault], async (fake) => {
    const route: ModelRoute = { provider: "custom", model: "test-model", transport: await transportFor(fake, "k") };
    await assert.rejects(
      callModel([route], requestOf([{ role: "user", content: "hi" }]), {
        signal: new AbortController().signal,
        emitter: new AgentEmitter(),
        retry: { maxRetries: 0, ...FAST },
      }),
      (error: unknown) => error instanceof ModelCallError && /malformed/.test(error.message),
    );
    assert.equal(fake.requests.length, 1);
  });
});

test("a 400 thinking-signature error is retried without the reasoning blocks of earlier turns", async () => {
  const h = await createHarness(
    {
      script: [
        { reasoning: "Let me think.", reasoningSignature: "c2lnLW9uZQ==", text: "first answer" },
        {
          fault: {
            kind: "status",
            status: 400,
            message: "messages.1.content.0: Invalid `signature` in `thinking` block",
          },
        },
        { text: "second answer" },
      ],
    },
    { apiMode: "anthropic_messages" },
  );
  try {
    assert.equal((await h.agent.runConversation("one")).finalResponse, "first answer");
    const second = await h.agent.runConversation("two");
    assert.equal(second.finalResponse, "second answer");
    assert.equal(h.fake.requests.length, 3);
    const blocks = (i: number) =>
      JSON.stringify(h.fake.requests[i]!.body.messages.filter((m: { role: string }) => m.role === "assistant"));
    assert.match(blocks(1), /"signature":"c2lnLW9uZQ=="/, "the failing request carried the signed block");
    assert.doesNotMatch(blocks(2), /signature|"thinking"/, "the retry carries no thinking blocks");
    assert.match(blocks(2), /first answer/, "the visible answer stays in the history");
  } finally {
    await h.close();
  }
});

test("a context overflow that states the room left retries with a smaller max_tokens, not compression", async () => {
  const h = await createHarness(
    {
      script: [
        {
          fault: {
            kind: "status",
            status: 400,
            message:
              "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (5000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.",
          },
        },
        { text: "fits now" },
      ],
    },
    { maxTokens: 4000 },
  );
  try {
    const result = await h.agent.runConversation("go");
    assert.equal(result.finalResponse, "fits now");
    assert.equal(h.fake.requests[0]!.body.max_tokens, 4000);
    const retried = h.fake.requests[1]!.body.max_tokens as number;
    assert.ok(retried > 0 && retried <= 8192 - 5000, `max_tokens ${retried} fits beside the prompt`);
    assert.ok(!h.events.some((e) => e.type === "status" && e.kind === "compression"));
  } finally {
    await h.close();
  }
});

test("an output cap too small to be useful is left to compression", async () => {
  const overflow: ScriptStep = {
    fault: {
      kind: "status",
      status: 400,
      message: "input length and `max_tokens` exceed context limit: 199900 + 4000 > 200000",
    },
  };
  await withFake([overflow, { text: "after compression" }], async (fake) => {
    let compressed = 0;
    const route: ModelRoute = { provider: "custom", model: "test-model", transport: await transportFor(fake, "k") };
    const result = await callModel([route], requestOf([{ role: "user", content: "hi" }], { maxTokens: 4000 }), {
      signal: new AbortController().signal,
      emitter: new AgentEmitter(),
      retry: { maxRetries: 0, ...FAST },
      compress: async () => {
        compressed++;
        return true;
      },
    });
    assert.equal(result.reply.text, "after compression");
    assert.equal(compressed, 1);
    assert.equal(fake.requests[1]!.body.max_tokens, 4000);
  });
});

test("a disconnect rebuilds the transport once and the rebuilt one carries the retry", async () => {
  await withFake(
    [{ text: "cut off mid sentence", fault: { kind: "disconnect", afterChunks: 2 } }, { text: "whole reply" }],
    async (fake) => {
      const { emitter, statuses } = recorder();
      let rebuilt = 0;
      const route: ModelRoute = {
        provider: "custom",
        model: "test-model",
        transport: await transportFor(fake, "first-client"),
        rebuildTransport: async () => {
          rebuilt++;
          return transportFor(fake, "rebuilt-client");
        },
      };
      // No backoff retries allowed: only the rebuild step can make the second request happen.
      const result = await callModel([route], requestOf([{ role: "user", content: "hi" }]), {
        signal: new AbortController().signal,
        emitter,
        retry: { maxRetries: 0, ...FAST },
      });
      assert.equal(result.reply.text, "whole reply");
      assert.equal(rebuilt, 1);
      assert.equal(fake.requests[0]!.headers.authorization, "Bearer first-client");
      assert.equal(fake.requests[1]!.headers.authorization, "Bearer rebuilt-client");
      assert.ok(statuses().some((s) => /fresh connection/.test(s)));
    },
  );
});

test("the transport is rebuilt only once per call; later transport failures back off", async () => {
  const cut = { text: "partial reply text", fault: { kind: "disconnect" as const, afterChunks: 1 } };
  await withFake([cut, cut, { text: "third time" }], async (fake) => {
    let rebuilt = 0;
    const route: ModelRoute = {
      provider: "custom",
      model: "test-model",
      transport: await transportFor(fake, "k"),
      rebuildTransport: async () => {
        rebuilt++;
        return transportFor(fake, "k");
      },
    };
    const { emitter, statuses } = recorder();
    const result = await callModel([route], requestOf([{ role: "user", content: "hi" }]), {
      signal: new AbortController().signal,
      emitter,
      retry: { maxRetries: 1, ...FAST },
    });
    assert.equal(result.reply.text, "third time");
    assert.equal(rebuilt, 1);
    assert.ok(statuses().some((s) => /attempt 1 of 1/.test(s)));
  });
});

test("a 401 asks the route to refresh its credential before rotating to another key", async () => {
  const unauthorized: ScriptStep = { fault: { kind: "status", status: 401, message: "Invalid token" } };
  await withFake([unauthorized, unauthorized, { text: "in" }], async (fake) => {
    const calls: string[] = [];
    const route: ModelRoute = {
      provider: "custom",
      model: "test-model",
      transport: await transportFor(fake, "stale-token"),
      refreshCredential: async (error) => {
        calls.push(`refresh:${error.statusCode}`);
        return transportFor(fake, "refreshed-token");
      },
      rotateCredential: async () => {
        calls.push("rotate");
        return transportFor(fake, "second-key");
      },
    };
    const result = await callModel([route], requestOf([{ role: "user", content: "hi" }]), {
      signal: new AbortController().signal,
      emitter: new AgentEmitter(),
      retry: { maxRetries: 0, ...FAST },
    });
    assert.equal(result.reply.text, "in");
    assert.deepEqual(calls, ["refresh:401", "rotate"]);
    assert.deepEqual(
      fake.requests.map((r) => r.headers.authorization),
      ["Bearer stale-token", "Bearer refreshed-token", "Bearer second-key"],
    );
  });
});

test("giving up on a transport failure tells the user what to check", async () => {
  const cut = { text: "partial reply text", fault: { kind: "disconnect" as const, afterChunks: 1 } };
  await withFake([cut], async (fake) => {
    const route: ModelRoute = { provider: "custom", model: "test-model", transport: await transportFor(fake, "k") };
    await assert.rejects(
      callModel([route], requestOf([{ role: "user", content: "hi" }]), {
        signal: new AbortController().signal,
        emitter: new AgentEmitter(),
        retry: { maxRetries: 0, ...FAST },
      }),
      (error: unknown) =>
        error instanceof ModelCallError && /custom\/test-model/.test(error.message) && /network/.test(error.message),
    );
  });
});
