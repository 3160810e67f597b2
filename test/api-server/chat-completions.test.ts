import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import OpenAI from "openai";
import type { RecordedRequest, ScriptStep } from "../fake-provider/types.js";
import { tempDir } from "../state/temp-dir.js";
import { type Harness, KEY, OTHER_KEY, startHarness } from "./harness.js";

/** The text of the last user message the model was sent. */
function lastUser(req: RecordedRequest): string {
  const users = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

const client = (h: Harness, apiKey = KEY) => new OpenAI({ apiKey, baseURL: `${h.url}/v1`, maxRetries: 0 });

/** Every line of an SSE body, split into data payloads; fails on anything but standard chunks. */
function standardChunks(body: string): unknown[] {
  const payloads: unknown[] = [];
  for (const line of body.split("\n")) {
    if (line === "") continue;
    assert.ok(line.startsWith("data: "), `unexpected SSE line: ${line}`);
    const data = line.slice(6);
    if (data === "[DONE]") continue;
    payloads.push(JSON.parse(data));
  }
  return payloads;
}

describe("chat completions through the official openai client", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ provider: { fallback: (req) => ({ text: `echo: ${lastUser(req)}` }) } });
  });
  after(() => h.close());

  test("a plain turn answers and names its stored session", async () => {
    const { data, response } = await client(h)
      .chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    assert.equal(data.object, "chat.completion");
    assert.equal(data.model, "hermes-agent");
    assert.equal(data.choices[0]?.message.content, "echo: hello");
    assert.equal(data.choices[0]?.finish_reason, "stop");
    const sessionId = response.headers.get("x-hermes-session-id");
    assert.ok(sessionId);
    const stored = await h.runtime.store.getMessages(sessionId);
    assert.deepEqual(
      stored.map((m) => [m.role, m.content]),
      [
        ["user", "hello"],
        ["assistant", "echo: hello"],
      ],
    );
  });

  test("the client's earlier messages are the history and its system message sits on top of ours", async () => {
    await client(h).chat.completions.create({
      model: "hermes-agent",
      messages: [
        { role: "system", content: "Reply like a pirate." },
        { role: "user", content: "first" },
        { role: "assistant", content: "echo: first" },
        { role: "user", content: "second" },
      ],
    });
    const sent = h.fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
    assert.equal(sent[0]?.role, "system");
    assert.match(sent[0]!.content, /Reply like a pirate\.$/);
    assert.ok(sent[0]!.content.length > "Reply like a pirate.".length + 100, "our own prompt comes first");
    assert.deepEqual(
      sent.slice(1).map((m) => m.content),
      ["first", "echo: first", "second"],
    );
  });

  test("X-Hermes-Session-Id continues the stored transcript and comes back on the reply", async () => {
    const first = await client(h)
      .chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "my name is Ada" }] })
      .withResponse();
    const sessionId = first.response.headers.get("x-hermes-session-id")!;
    const second = await client(h)
      .chat.completions.create(
        { model: "hermes-agent", messages: [{ role: "user", content: "what is my name?" }] },
        { headers: { "X-Hermes-Session-Id": sessionId } },
      )
      .withResponse();
    assert.equal(second.response.headers.get("x-hermes-session-id"), sessionId);
    const sent = h.fake.requests.at(-1)!.body.messages as Array<{ content: string }>;
    assert.deepEqual(
      sent.slice(1).map((m) => m.content),
      ["my name is Ada", "echo: my name is Ada", "what is my name?"],
    );
  });

  test("a session id that does not exist is a 404 in OpenAI's shape", async () => {
    await assert.rejects(
      client(h).chat.completions.create(
        { model: "hermes-agent", messages: [{ role: "user", content: "x" }] },
        { headers: { "X-Hermes-Session-Id": "no-such-session" } },
      ),
      (error: InstanceType<typeof OpenAI.NotFoundError>) => error.status === 404 && /no session/.test(error.message),
    );
  });

  test("streamed chunks carry the reply, and every byte is a standard chunk", async () => {
    const stream = await client(h).chat.completions.create({
      model: "hermes-agent",
      messages: [{ role: "user", content: "stream me" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: unknown;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, "echo: stream me");
    assert.equal(finish, "stop");
    assert.ok(usage, "a usage chunk was sent");

    const raw = await h.request("/v1/chat/completions", {
      method: "POST",
      body: JSON.stringify({ model: "x", stream: true, messages: [{ role: "user", content: "raw" }] }),
    });
    assert.match(raw.headers.get("content-type") ?? "", /^text\/event-stream/);
    const body = await raw.text();
    assert.ok(body.endsWith("data: [DONE]\n\n"));
    for (const chunk of standardChunks(body))
      assert.equal((chunk as { object: string }).object, "chat.completion.chunk");
  });

  test("the Vercel AI SDK streams a reply and reports no error part", async () => {
    const hermes = createOpenAICompatible({ name: "hermes", baseURL: `${h.url}/v1`, apiKey: KEY });
    const result = streamText({ model: hermes("hermes-agent"), prompt: "from the ai sdk", maxRetries: 0 });
    const parts: string[] = [];
    let text = "";
    for await (const part of result.fullStream) {
      parts.push(part.type);
      if (part.type === "text-delta") text += part.text;
    }
    assert.equal(text, "echo: from the ai sdk");
    assert.ok(!parts.includes("error"), `parts: ${parts.join(",")}`);
    assert.equal(parts.at(-1), "finish");
  });

  test("another key cannot continue a session it did not create", async () => {
    const two = await startHarness({ settings: { keys: [KEY, OTHER_KEY] } });
    try {
      const first = await client(two)
        .chat.completions.create({ model: "m", messages: [{ role: "user", content: "secret plans" }] })
        .withResponse();
      const sessionId = first.response.headers.get("x-hermes-session-id")!;
      await assert.rejects(
        client(two, OTHER_KEY).chat.completions.create(
          { model: "m", messages: [{ role: "user", content: "what were the plans?" }] },
          { headers: { "X-Hermes-Session-Id": sessionId } },
        ),
        (error: { status?: number }) => error.status === 404,
      );
    } finally {
      await two.close();
    }
  });
});

describe("chat completions: reasoning, tools and memory", () => {
  test("reasoning streams as reasoning_content deltas", async () => {
    const h = await startHarness({ provider: { script: [{ reasoning: "thinking hard", text: "done" }] } });
    try {
      const stream = await client(h).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "think" }],
        stream: true,
      });
      let reasoning = "";
      let text = "";
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
        reasoning += delta?.reasoning_content ?? "";
        text += delta?.content ?? "";
      }
      assert.equal(reasoning, "thinking hard");
      assert.equal(text, "done");
    } finally {
      await h.close();
    }
  });

  test("a tool-using turn runs the tool server-side; official clients and raw bytes see standard chunks only", async () => {
    const cwd = tempDir("hermes-api-cwd-");
    const toolTurn = (marker: string): ScriptStep[] => [
      {
        text: "Let me look.",
        toolCalls: [{ name: "terminal", arguments: { command: `echo ${marker} > ${marker}.txt` } }],
      },
      (req) => ({ text: `tool said: ${(req.body.messages as Array<{ role: string }>).at(-1)!.role}` }),
    ];
    const h = await startHarness({
      config: `terminal:\n  cwd: ${cwd}\n`,
      provider: { script: [...toolTurn("first"), ...toolTurn("second"), ...toolTurn("third")] },
    });
    try {
      const plain = await client(h).chat.completions.create({ model: "m", messages: [{ role: "user", content: "a" }] });
      assert.equal(plain.choices[0]?.message.content, "tool said: tool");

      const stream = await client(h).chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: "b" }],
        stream: true,
      });
      let streamed = "";
      for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
      assert.equal(streamed, "Let me look.\n\ntool said: tool");

      const raw = await h.request("/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "c" }] }),
      });
      const chunks = standardChunks(await raw.text()) as Array<{ choices: Array<{ delta: { content?: string } }> }>;
      assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""), "Let me look.\n\ntool said: tool");
      for (const marker of ["first", "second", "third"]) {
        assert.equal(readFileSync(join(cwd, `${marker}.txt`), "utf8").trim(), marker);
      }
    } finally {
      await h.close();
    }
  });

  test("X-Hermes-Session-Key keeps memory apart from the shared MEMORY.md", async () => {
    const h = await startHarness({
      provider: {
        script: [
          { toolCalls: [{ name: "memory", arguments: { action: "add", target: "memory", content: "prefers tea" } }] },
          { text: "noted" },
        ],
      },
    });
    try {
      await client(h).chat.completions.create(
        { model: "m", messages: [{ role: "user", content: "remember I prefer tea" }] },
        { headers: { "X-Hermes-Session-Key": "alice" } },
      );
      const scoped = join(h.home, "memories", "scopes", "alice", "MEMORY.md");
      assert.match(readFileSync(scoped, "utf8"), /prefers tea/);
      assert.equal(existsSync(join(h.home, "memories", "MEMORY.md")), false);
    } finally {
      await h.close();
    }
  });
});
