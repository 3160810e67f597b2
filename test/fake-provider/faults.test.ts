/** Each fault of the fake provider, observed with plain fetch over real HTTP. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeFrames } from "./eventstream.js";
import { startFakeProvider } from "./server.js";
import type { FakeProvider, ScriptedTurn } from "./types.js";

async function withFake(script: ScriptedTurn[], run: (fake: FakeProvider) => Promise<void>): Promise<void> {
  const fake = await startFakeProvider({ script });
  try {
    await run(fake);
  } finally {
    await fake.close();
  }
}

function post(fake: FakeProvider, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
  return fetch(`${fake.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

const chatStream = { model: "m", stream: true, messages: [{ role: "user", content: "hi" }] };

/** Reads SSE events until the body ends or fails; returns what arrived and the failure, if any. */
async function readEvents(response: Response): Promise<{ events: string[]; error: unknown }> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += value;
    }
  } catch (err) {
    error = err;
  }
  return { events: text.split("\n\n").filter((event) => event !== ""), error };
}

const longTurn: ScriptedTurn = { text: "one two three four five six", toolCalls: [{ name: "f", arguments: { a: 1 } }] };

test("a status fault sends each protocol's error body and the given headers", async () => {
  const fault = { kind: "status", status: 429, message: "rate limited", headers: { "retry-after": "3" } } as const;
  await withFake([{ fault }, { fault }, { fault }, { fault }], async (fake) => {
    const chat = await post(fake, "/v1/chat/completions", { model: "m" });
    assert.equal(chat.status, 429);
    assert.equal(chat.headers.get("retry-after"), "3");
    assert.deepEqual(await chat.json(), {
      error: { message: "rate limited", type: "requests", param: null, code: "rate_limit_exceeded" },
    });
    const responses = await post(fake, "/v1/responses", { model: "m", stream: true });
    assert.equal(((await responses.json()) as { error: { message: string } }).error.message, "rate limited");
    const anthropic = await post(fake, "/v1/messages", { model: "m" });
    assert.deepEqual(await anthropic.json(), {
      type: "error",
      error: { type: "rate_limit_error", message: "rate limited" },
    });
    const bedrock = await post(fake, "/model/m/converse-stream", {});
    assert.equal(bedrock.status, 429);
    assert.match(bedrock.headers.get("x-amzn-errortype") ?? "", /^ThrottlingException/);
    assert.deepEqual(await bedrock.json(), { message: "rate limited" });
  });
});

test("a status fault can carry a verbatim body", async () => {
  await withFake([{ fault: { kind: "status", status: 400, body: { detail: "custom" } } }], async (fake) => {
    const res = await post(fake, "/v1/chat/completions", { model: "m" });
    assert.equal(res.status, 400);
    assert.deepEqual(await res.json(), { detail: "custom" });
  });
});

test("disconnect closes the socket after N chunks and the reader errors", async () => {
  await withFake([{ ...longTurn, fault: { kind: "disconnect", afterChunks: 3 } }], async (fake) => {
    const res = await post(fake, "/v1/chat/completions", chatStream);
    assert.equal(res.status, 200);
    const { events, error } = await readEvents(res);
    assert.equal(events.length, 3);
    assert.ok(error instanceof Error, "the body read fails");
  });
});

test("disconnect on a non-streaming request drops the connection without a reply", async () => {
  await withFake([{ fault: { kind: "disconnect", afterChunks: 0 } }], async (fake) => {
    await assert.rejects(post(fake, "/v1/messages", { model: "m" }), TypeError);
  });
});

test("stall stops sending after N chunks but keeps the connection open", async () => {
  await withFake([{ ...longTurn, fault: { kind: "stall", afterChunks: 2 } }], async (fake) => {
    const res = await post(fake, "/v1/chat/completions", chatStream, AbortSignal.timeout(300));
    const { events, error } = await readEvents(res);
    assert.equal(events.length, 2);
    assert.equal((error as Error).name, "TimeoutError");
  });
});

test("close() ends a stalled stream instead of waiting for it", { timeout: 2000 }, async () => {
  const fake = await startFakeProvider({ script: [{ text: "never", fault: { kind: "stall", afterChunks: 1 } }] });
  const res = await post(fake, "/v1/messages", { model: "m", stream: true });
  const reader = res.body!.getReader();
  assert.equal((await reader.read()).done, false);
  await fake.close();
  await assert.rejects(reader.read());
});

test("malformed_chunk inserts a non-JSON data line after N chunks and carries on", async () => {
  await withFake([{ text: "abc", fault: { kind: "malformed_chunk", afterChunks: 1 } }], async (fake) => {
    const { events, error } = await readEvents(await post(fake, "/v1/chat/completions", chatStream));
    assert.equal(error, undefined);
    assert.equal(events[1], 'data: {"malformed": tru');
    assert.equal(events.at(-1), "data: [DONE]");
    const bad = events.filter((event) => {
      try {
        JSON.parse(event.slice("data: ".length));
        return false;
      } catch {
        return event !== "data: [DONE]";
      }
    });
    assert.equal(bad.length, 1);
  });
});

test("malformed_chunk on the Bedrock stream is a well-framed event with a broken payload", async () => {
  await withFake([{ text: "abc", fault: { kind: "malformed_chunk", afterChunks: 0 } }], async (fake) => {
    const res = await post(fake, "/model/m/converse-stream", { messages: [] });
    assert.equal(res.headers.get("content-type"), "application/vnd.amazon.eventstream");
    const frames = decodeFrames(new Uint8Array(await res.arrayBuffer()));
    assert.equal(frames[0]?.payload.toString(), '{"malformed": tru');
    assert.equal(frames[1]?.headers[":event-type"], "messageStart");
  });
});

test("truncated_tool_json cuts the arguments in half", async () => {
  const turn: ScriptedTurn = {
    toolCalls: [{ id: "c1", name: "write", arguments: { path: "a.txt", content: "hello" } }],
    fault: { kind: "truncated_tool_json" },
  };
  await withFake([turn, turn], async (fake) => {
    const full = JSON.stringify({ path: "a.txt", content: "hello" });
    const res = await post(fake, "/v1/chat/completions", { model: "m" });
    const body = (await res.json()) as {
      choices: Array<{ message: { tool_calls: Array<{ function: { arguments: string } }> } }>;
    };
    assert.equal(
      body.choices[0]?.message.tool_calls[0]?.function.arguments,
      full.slice(0, Math.floor(full.length / 2)),
    );
    const { events } = await readEvents(await post(fake, "/v1/messages", { model: "m", stream: true }));
    const partial = events
      .map((event) => event.split("\ndata: ")[1] ?? "")
      .map((data) => JSON.parse(data) as { delta?: { partial_json?: string } })
      .map((data) => data.delta?.partial_json ?? "")
      .join("");
    assert.equal(partial, full.slice(0, Math.floor(full.length / 2)));
  });
});

test("empty replies carry no content and no tool calls", async () => {
  const turn: ScriptedTurn = { text: "ignored", toolCalls: [{ name: "f", arguments: "{}" }], fault: { kind: "empty" } };
  await withFake([turn, turn], async (fake) => {
    const chat = (await (await post(fake, "/v1/chat/completions", { model: "m" })).json()) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
    };
    assert.equal(chat.choices[0]?.message.content, "");
    assert.equal(chat.choices[0]?.message.tool_calls, undefined);
    assert.equal(chat.choices[0]?.finish_reason, "stop");
    const { events } = await readEvents(await post(fake, "/v1/messages", { model: "m", stream: true }));
    assert.deepEqual(
      events.map((event) => event.split("\n")[0]),
      ["event: message_start", "event: ping", "event: message_delta", "event: message_stop"],
    );
  });
});

test("a length finish uses each protocol's own name", async () => {
  const turn: ScriptedTurn = { text: "cut", finish: "length" };
  await withFake([turn, turn], async (fake) => {
    const chat = (await (await post(fake, "/v1/chat/completions", { model: "m" })).json()) as {
      choices: Array<{ finish_reason: string }>;
    };
    assert.equal(chat.choices[0]?.finish_reason, "length");
    const bedrock = (await (await post(fake, "/model/m/converse", { messages: [] })).json()) as { stopReason: string };
    assert.equal(bedrock.stopReason, "max_tokens");
  });
});

test("chunkDelayMs spaces the stream chunks out", async () => {
  await withFake([{ text: "abc", chunkDelayMs: 25 }], async (fake) => {
    const started = performance.now();
    const { events } = await readEvents(await post(fake, "/v1/chat/completions", chatStream));
    assert.ok(events.length >= 5);
    assert.ok(performance.now() - started >= 25 * (events.length - 1) - 5);
  });
});
