import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { toolEvent } from "../../src/api-server/runs/events.js";
import { isSummaryRequest, SUMMARY_TEXT } from "../agent/context-fixtures.js";
import type { RecordedRequest } from "../fake-provider/types.js";
import { type Harness, KEY, startHarness } from "./harness.js";

function lastUser(req: RecordedRequest): string {
  const users = (req.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

/** The user and assistant texts of the conversation the model was last sent. */
function sentConversation(h: Harness): string[] {
  const turns = h.fake.requests.filter((r) => r.method === "POST" && !isSummaryRequest(r));
  const messages = turns.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  return messages.filter((m) => m.role !== "system").map((m) => m.content);
}

const summaries = (h: Harness) => h.fake.requests.filter(isSummaryRequest).length;
const client = (h: Harness) => new OpenAI({ apiKey: KEY, baseURL: `${h.url}/v1`, maxRetries: 0 });
// Each reply is about 600 tokens: a 4,000-token window at a 0.5 threshold compresses within a few turns.
const PADDING = " filler".repeat(340);

describe("compression behind the API server", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({
      // Indented: continues the harness's model: mapping.
      config:
        "  context_length: 4000\n  min_context_length: 0\n" +
        "compression:\n  threshold: 0.5\n  protect_first_n: 1\n  protect_last_n: 2\n",
      provider: {
        fallback: (req) =>
          isSummaryRequest(req) ? { text: SUMMARY_TEXT } : { text: `echo: ${lastUser(req)}${PADDING}` },
      },
    });
  });
  after(() => h.close());

  test("a chat-completions session is compacted in place: its id stays the one the client holds", async () => {
    const first = await client(h)
      .chat.completions.create({ model: "hermes-agent", messages: [{ role: "user", content: "turn 0" }] })
      .withResponse();
    const sessionId = first.response.headers.get("x-hermes-session-id")!;
    const before = summaries(h);
    for (let n = 1; n < 8 && summaries(h) === before; n++) {
      const reply = await client(h)
        .chat.completions.create(
          { model: "hermes-agent", messages: [{ role: "user", content: `turn ${n}` }] },
          { headers: { "X-Hermes-Session-Id": sessionId } },
        )
        .withResponse();
      assert.equal(reply.response.headers.get("x-hermes-session-id"), sessionId);
    }
    assert.ok(summaries(h) > before, "the conversation was compressed");
    const messages = (await (await h.request(`/api/sessions/${sessionId}/messages`)).json()) as {
      data: Array<{ content: unknown }>;
    };
    assert.ok(JSON.stringify(messages.data).includes("Active Task"), "the session holds the compacted conversation");
    assert.ok(!JSON.stringify(messages.data).includes('"echo: turn 0'), "the condensed turns are archived");
  });

  test("continuing the Responses API from a response before a compression still sees that conversation", async () => {
    const root = await client(h).responses.create({ model: "m", input: "root question" });
    let previous = root.id;
    const before = summaries(h);
    for (let n = 1; n < 8 && summaries(h) === before; n++) {
      previous = (await client(h).responses.create({ model: "m", input: `step ${n}`, previous_response_id: previous }))
        .id;
    }
    assert.ok(summaries(h) > before, "the conversation was compressed");
    await client(h).responses.create({ model: "m", input: "a branch", previous_response_id: root.id });
    assert.deepEqual(
      sentConversation(h).map((text) => text.replace(PADDING, "")),
      ["root question", "echo: root question", "a branch"],
    );
  });
});

test("the Runs API reports a compaction as compaction.started and compaction.completed, without its summary", () => {
  assert.deepEqual(toolEvent({ type: "compaction", id: "c1", phase: "started" }), {
    event: "compaction.started",
    data: { compaction_id: "c1" },
  });
  assert.deepEqual(
    toolEvent({ type: "compaction", id: "c1", phase: "finished", compressed: true, summary: "secret plans" }),
    { event: "compaction.completed", data: { compaction_id: "c1", compressed: true } },
  );
  assert.deepEqual(
    toolEvent({ type: "compaction", id: "c2", phase: "finished", compressed: false, reason: "nothing to condense" }),
    { event: "compaction.completed", data: { compaction_id: "c2", compressed: false, reason: "nothing to condense" } },
  );
});
