import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import type { RecordedRequest } from "../fake-provider/types.js";
import { type Harness, KEY, OTHER_KEY, startHarness } from "./harness.js";

function lastUser(req: RecordedRequest): string {
  const users = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

/** The user and assistant texts of the conversation the model was last sent. */
function sentConversation(h: Harness): string[] {
  const messages = h.fake.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  return messages.filter((m) => m.role !== "system").map((m) => m.content);
}

const client = (h: Harness, apiKey = KEY) => new OpenAI({ apiKey, baseURL: `${h.url}/v1`, maxRetries: 0 });

describe("responses through the official openai client", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      settings: { keys: [KEY, OTHER_KEY] },
      provider: { fallback: (req) => ({ text: `echo: ${lastUser(req)}` }) },
    });
  });
  after(() => h.close());

  test("a response is stored and previous_response_id continues its conversation", async () => {
    const first = await client(h).responses.create({ model: "hermes-agent", input: "one" });
    assert.equal(first.status, "completed");
    assert.equal(first.output_text, "echo: one");
    const fetched = await client(h).responses.retrieve(first.id);
    assert.equal(fetched.id, first.id);
    assert.equal(fetched.output_text, "echo: one");

    const second = await client(h).responses.create({ model: "m", input: "two", previous_response_id: first.id });
    assert.equal(second.output_text, "echo: two");
    assert.equal(second.previous_response_id, first.id);
    assert.deepEqual(sentConversation(h), ["one", "echo: one", "two"]);
  });

  test("continuing from an older response branches without the newer turns", async () => {
    const root = await client(h).responses.create({ model: "m", input: "root" });
    await client(h).responses.create({ model: "m", input: "branch A", previous_response_id: root.id });
    const b = await client(h).responses.create({ model: "m", input: "branch B", previous_response_id: root.id });
    assert.deepEqual(sentConversation(h), ["root", "echo: root", "branch B"]);
    await client(h).responses.create({ model: "m", input: "after B", previous_response_id: b.id });
    assert.deepEqual(sentConversation(h), ["root", "echo: root", "branch B", "echo: branch B", "after B"]);
  });

  test("a named conversation continues from its newest response", async () => {
    await client(h).responses.create({ model: "m", input: "c1", conversation: "trip-planning" } as never);
    await client(h).responses.create({ model: "m", input: "c2", conversation: "trip-planning" } as never);
    assert.deepEqual(sentConversation(h), ["c1", "echo: c1", "c2"]);
  });

  test("store: false keeps nothing: the response cannot be fetched and no session is written", async () => {
    const before = (await h.runtime.store.stats()).sessions;
    const response = await client(h).responses.create({ model: "m", input: "forget me", store: false });
    assert.equal(response.output_text, "echo: forget me");
    assert.equal((await h.runtime.store.stats()).sessions, before);
    await assert.rejects(client(h).responses.retrieve(response.id), (e: { status?: number }) => e.status === 404);
  });

  test("a deleted response is gone, and another key never sees a response", async () => {
    const response = await client(h).responses.create({ model: "m", input: "mine" });
    await assert.rejects(
      client(h, OTHER_KEY).responses.retrieve(response.id),
      (e: { status?: number }) => e.status === 404,
    );
    await assert.rejects(
      client(h, OTHER_KEY).responses.create({ model: "m", input: "x", previous_response_id: response.id }),
      (e: { status?: number }) => e.status === 404,
    );
    const deleted = await h.request(`/v1/responses/${response.id}`, { method: "DELETE" });
    assert.deepEqual(await deleted.json(), { id: response.id, object: "response.deleted", deleted: true });
    await assert.rejects(client(h).responses.retrieve(response.id), (e: { status?: number }) => e.status === 404);
  });

  test("a streamed response yields standard events ending in response.completed", async () => {
    const stream = await client(h).responses.create({ model: "m", input: "stream please", stream: true });
    const types: string[] = [];
    let text = "";
    let completed: { output_text?: string; id: string } | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");
    assert.equal(text, "echo: stream please");
    const stored = await client(h).responses.retrieve(completed!.id);
    assert.equal(stored.output_text, "echo: stream please");
  });

  test("bad input is a 400 naming the parameter", async () => {
    await assert.rejects(
      client(h).responses.create({
        model: "m",
        input: "x",
        previous_response_id: "resp_a",
        conversation: "c",
      } as never),
      (e: { status?: number }) => e.status === 400,
    );
    const response = await h.request("/v1/responses", { method: "POST", body: JSON.stringify({ model: "m" }) });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { param: string } }).error.param, "input");
  });
});

test("tool calls come back as completed function_call items followed by their outputs", async () => {
  const h = await startHarness({
    provider: {
      script: [
        {
          toolCalls: [
            { id: "call_1", name: "todo", arguments: { todos: [{ id: "1", content: "pack", status: "pending" }] } },
          ],
        },
        { text: "listed" },
        {
          toolCalls: [
            { id: "call_2", name: "todo", arguments: { todos: [{ id: "2", content: "go", status: "pending" }] } },
          ],
        },
        { text: "listed again" },
      ],
    },
  });
  try {
    const response = await client(h).responses.create({ model: "m", input: "make a list" });
    const types = response.output.map((item) => item.type as string);
    assert.deepEqual(types, ["function_call", "function_call_output", "message"]);
    const call = response.output[0] as { status: string; call_id: string; name: string; arguments: string };
    assert.equal(call.status, "completed");
    assert.equal(call.call_id, "call_1");
    assert.equal(call.name, "todo");
    assert.deepEqual(JSON.parse(call.arguments).todos[0].content, "pack");
    assert.equal((response.output[1] as unknown as { call_id: string }).call_id, "call_1");
    assert.equal(response.output_text, "listed");

    // Streamed, the same items arrive as they happen, with the ids of the final object.
    const stream = await client(h).responses.create({ model: "m", input: "again", stream: true });
    const added: Array<{ type: string; id?: string }> = [];
    let completed: { output: Array<{ type: string; id?: string }> } | undefined;
    for await (const event of stream) {
      if (event.type === "response.output_item.added") added.push(event.item as { type: string; id?: string });
      if (event.type === "response.completed") completed = event.response as unknown as typeof completed;
    }
    assert.deepEqual(
      added.map((item) => item.type),
      ["function_call", "function_call_output", "message"],
    );
    assert.deepEqual(
      added.map((item) => item.id),
      completed!.output.map((item) => item.id),
    );
  } finally {
    await h.close();
  }
});
