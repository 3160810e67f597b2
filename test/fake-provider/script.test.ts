/** The fake provider's script, request log and routing, observed with plain fetch. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeProvider } from "./server.js";
import type { FakeProvider, FakeProviderOptions } from "./types.js";

async function withFake(options: FakeProviderOptions, run: (fake: FakeProvider) => Promise<void>): Promise<void> {
  const fake = await startFakeProvider(options);
  try {
    await run(fake);
  } finally {
    await fake.close();
  }
}

async function chat(fake: FakeProvider, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const res = await fetch(`${fake.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }], ...body }),
  });
  return (await res.json()) as {
    choices: Array<{ message: { content: string | null; tool_calls?: Array<Record<string, unknown>> } }>;
    usage: { prompt_tokens: number; completion_tokens: number };
  };
}

const replyText = (reply: Awaited<ReturnType<typeof chat>>) => reply.choices[0]?.message.content;

test("records each request before replying, with lowercased headers and raw bytes", async () => {
  let recordedBeforeReply = 0;
  const provider: FakeProvider = await startFakeProvider({
    script: [
      (req) => {
        recordedBeforeReply = provider.requests.length;
        return { text: `saw ${req.protocol}` };
      },
    ],
  });
  try {
    const reply = await chat(provider, { temperature: 0.5 }, { "X-Custom-Header": "Value" });
    assert.equal(replyText(reply), "saw chat_completions");
    assert.equal(recordedBeforeReply, 1);
    const [recorded] = provider.requests;
    assert.equal(recorded?.method, "POST");
    assert.equal(recorded?.path, "/v1/chat/completions");
    assert.equal(recorded?.headers["x-custom-header"], "Value");
    assert.equal(recorded?.body.temperature, 0.5);
    const sent = { model: "m", messages: [{ role: "user", content: "hi" }], temperature: 0.5 };
    assert.equal(recorded?.rawBody, JSON.stringify(sent));
    assert.equal(recorded?.stream, false);
  } finally {
    await provider.close();
  }
});

test("a function step gets the request and its index, so it can echo a tool result", async () => {
  await withFake(
    {
      script: [
        { toolCalls: [{ id: "call_1", name: "lookup", arguments: { q: "x" } }] },
        (req, index) => {
          const messages = req.body.messages as Array<{ role: string; content: string }>;
          const result = messages.find((m) => m.role === "tool")?.content;
          return { text: `step ${index} got ${result}` };
        },
      ],
    },
    async (provider) => {
      const first = await chat(provider);
      assert.equal(first.choices[0]?.message.tool_calls?.[0]?.id, "call_1");
      const second = await chat(provider, {
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: null, tool_calls: first.choices[0]?.message.tool_calls },
          { role: "tool", tool_call_id: "call_1", content: "42" },
        ],
      });
      assert.equal(replyText(second), "step 1 got 42");
    },
  );
});

test("when the script runs out the fallback answers, else a plain ok", async () => {
  await withFake({ script: [{ text: "first" }], fallback: { text: "again" } }, async (provider) => {
    assert.equal(replyText(await chat(provider)), "first");
    assert.equal(replyText(await chat(provider)), "again");
    assert.equal(replyText(await chat(provider)), "again");
  });
  await withFake({}, async (provider) => {
    assert.equal(replyText(await chat(provider)), "ok");
  });
});

test("push appends steps and setScript replaces the remaining ones", async () => {
  await withFake({ script: [{ text: "a" }, { text: "b" }] }, async (provider) => {
    provider.push({ text: "c" });
    assert.equal(replyText(await chat(provider)), "a");
    provider.setScript([{ text: "z" }]);
    assert.equal(replyText(await chat(provider)), "z");
    assert.equal(replyText(await chat(provider)), "ok");
  });
});

test("a throwing function step becomes a 500 with the protocol's error body", async () => {
  const step = () => {
    throw new Error("boom");
  };
  await withFake({ script: [step] }, async (provider) => {
    const res = await fetch(`${provider.url}/v1/messages`, { method: "POST", body: "{}" });
    assert.equal(res.status, 500);
    const body = (await res.json()) as { type: string; error: { message: string } };
    assert.equal(body.type, "error");
    assert.match(body.error.message, /boom/);
  });
});

test("scripted usage sets the counters; without it they are estimated from sizes", async () => {
  await withFake(
    { script: [{ text: "x", usage: { input: 7, output: 3, cacheRead: 2 } }, { text: "abcdefgh" }] },
    async (provider) => {
      const scripted = await chat(provider);
      assert.deepEqual([scripted.usage.prompt_tokens, scripted.usage.completion_tokens], [9, 3]);
      const estimated = await chat(provider);
      const rawLength = provider.requests[1]!.rawBody.length;
      assert.equal(estimated.usage.prompt_tokens, Math.ceil(rawLength / 4));
      assert.equal(estimated.usage.completion_tokens, 2);
    },
  );
});

test("omitIds sends chat tool calls without ids", async () => {
  await withFake({ script: [{ toolCalls: [{ name: "f", arguments: "{}" }], omitIds: true }] }, async (provider) => {
    const call = (await chat(provider)).choices[0]?.message.tool_calls?.[0];
    assert.equal(call && "id" in call, false);
  });
});

test("lists the configured models with their context length", async () => {
  await withFake({ models: [{ id: "big", contextLength: 200_000 }, { id: "small" }] }, async (provider) => {
    const res = await fetch(`${provider.url}/v1/models`);
    const body = (await res.json()) as { data: Array<{ id: string; context_length: number }> };
    assert.deepEqual(
      body.data.map((m) => [m.id, m.context_length]),
      [
        ["big", 200_000],
        ["small", 128_000],
      ],
    );
    assert.equal(provider.requests[0]?.method, "GET");
  });
});

test("accepts the Anthropic path under a prefix and answers unknown paths with 404", async () => {
  await withFake({ script: [{ text: "hi" }] }, async (provider) => {
    const res = await fetch(`${provider.url}/anthropic/v1/messages`, { method: "POST", body: '{"model":"m"}' });
    assert.equal(((await res.json()) as { content: Array<{ text: string }> }).content[0]?.text, "hi");
    assert.equal(provider.requests[0]?.protocol, "anthropic_messages");
    const missing = await fetch(`${provider.url}/v2/nothing`, { method: "POST", body: "{}" });
    assert.equal(missing.status, 404);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /no route/);
  });
});

test("a body that is not a JSON object gets a 400 and consumes no script step", async () => {
  await withFake({ script: [{ text: "kept" }] }, async (provider) => {
    const res = await fetch(`${provider.url}/v1/chat/completions`, { method: "POST", body: "not json" });
    assert.equal(res.status, 400);
    assert.equal(provider.requests[0]?.body, undefined);
    assert.equal(provider.requests[0]?.rawBody, "not json");
    assert.equal(replyText(await chat(provider)), "kept");
  });
});
