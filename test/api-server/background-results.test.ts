import assert from "node:assert/strict";
import { test } from "node:test";
import { backgroundScript, chatParent, HeldChildren, lastUserText } from "../helpers/background-subagents.js";
import { type Harness, startHarness } from "./harness.js";

type ApiMessage = { role: string; content: string | null };

async function apiServerWith(held: HeldChildren, goal: string): Promise<Harness> {
  return startHarness({
    config: "learning:\n  mode: off\n",
    provider: {
      fallback: backgroundScript(held, chatParent(held, goal)),
    },
  });
}

async function chat(h: Harness, text: string, sessionId?: string): Promise<{ sessionId: string; answer: string }> {
  const response = await h.request("/v1/chat/completions", {
    method: "POST",
    body: JSON.stringify({ model: "hermes-agent", messages: [{ role: "user", content: text }] }),
    ...(sessionId ? { headers: { "X-Hermes-Session-Id": sessionId } } : {}),
  });
  assert.equal(response.status, 200, await response.clone().text());
  const body = (await response.json()) as { choices: Array<{ message: { content: string } }> };
  return { sessionId: response.headers.get("x-hermes-session-id")!, answer: body.choices[0]!.message.content };
}

async function messages(h: Harness, sessionId: string): Promise<ApiMessage[]> {
  const response = await h.request(`/api/sessions/${sessionId}/messages`);
  return ((await response.json()) as { data: ApiMessage[] }).data;
}

/** Reads the session until `count` messages are stored (bounded). */
async function untilMessages(h: Harness, sessionId: string, count: number): Promise<ApiMessage[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stored = await messages(h, sessionId);
    if (stored.length >= count) return stored;
    if (Date.now() > deadline) throw new Error(`only ${stored.length} of ${count} messages were stored`);
  }
}

test("an API session's background subagent reports in a turn of its own, stored in the session", async () => {
  const held = new HeldChildren();
  const h = await apiServerWith(held, "tally the votes");
  try {
    const first = await chat(h, "dispatch");
    assert.equal(first.answer, "Started it in the background.");
    held.release("tally the votes", { text: "Yes 12, no 5." });
    // dispatch, the tool call and its answer, the reply; then the result turn and its answer.
    const stored = await untilMessages(h, first.sessionId, 6);
    assert.match(
      String(stored[4]?.content),
      /^\[Background subagent result bg_\w+ — this is not a message from the user\]/,
    );
    assert.equal(stored[4]?.role, "user");
    assert.equal(stored[5]?.role, "assistant");
    assert.match(String(stored[5]?.content), /^parent read: .*Yes 12, no 5\./s);

    // That turn is a run the server started: listed under the session, named by its trigger.
    const listed = await h.request(`/v1/runs?session_id=${first.sessionId}`);
    const runs = ((await listed.json()) as { data: Array<{ id: string; trigger?: Record<string, unknown> }> }).data;
    assert.equal(runs.length, 1);
    assert.deepEqual(runs[0]?.trigger, {
      type: "background_result",
      delegation_id: String(stored[4]?.content).match(/bg_\w+/)?.[0],
      goal: "tally the votes",
    });
    const events = await (await h.request(`/v1/runs/${runs[0]!.id}/events`)).text();
    assert.match(events, /event: message\.delta/);
    assert.match(events, /event: run\.completed\ndata: \{"output":"parent read: /);

    const next = await chat(h, "and now?", first.sessionId);
    assert.equal(next.answer, "answered: and now?");
    const sent = h.fake.requests.at(-1)!.body.messages as ApiMessage[];
    assert.ok(
      sent.some((m) => m.role === "user" && String(m.content).startsWith("[Background subagent result")),
      "the client's next turn continues after the result",
    );
  } finally {
    held.release("@parent", { text: "unused" });
    await h.close();
  }
});

test("a result for a session in the middle of a turn waits for that turn to end", async () => {
  const held = new HeldChildren();
  const h = await apiServerWith(held, "check the mirrors");
  try {
    const first = await chat(h, "dispatch");
    const busy = chat(h, "wait here", first.sessionId);
    await held.arrived("@parent");
    held.release("check the mirrors", { text: "All mirrors are in sync." });
    await h.runtime.background.idle();
    held.release("@parent", { text: "done waiting" });
    assert.equal((await busy).answer, "done waiting", "the client's turn was not disturbed");
    const stored = await untilMessages(h, first.sessionId, 8);
    assert.deepEqual(
      stored.slice(4).map((m) => [m.role, String(m.content).slice(0, 27)]),
      [
        ["user", "wait here"],
        ["assistant", "done waiting"],
        ["user", "[Background subagent result"],
        ["assistant", "parent read: [Background su"],
      ],
    );
  } finally {
    await h.close();
  }
});

test("a run that dispatches a background subagent names it in subagent.completed; its result comes in the run that names it back", async () => {
  const held = new HeldChildren();
  const h = await apiServerWith(held, "index the archive");
  try {
    const started = await h.request("/v1/runs", { method: "POST", body: JSON.stringify({ input: "dispatch" }) });
    assert.equal(started.status, 202);
    const parent = (await started.json()) as { id: string; session_id: string };
    const parentEvents = await (await h.request(`/v1/runs/${parent.id}/events`)).text();
    const completed = parentEvents
      .split("\n\n")
      .find((block) => block.includes("event: subagent.completed"))
      ?.match(/^data: (.*)$/m)?.[1];
    const { background } = JSON.parse(completed ?? "{}") as {
      background?: Array<{ delegation_id: string; goal: string }>;
    };
    assert.equal(background?.length, 1);
    assert.match(background![0]!.delegation_id, /^bg_\w+$/);
    assert.equal(background![0]!.goal, "index the archive");

    held.release("index the archive", { text: "Archive indexed." });
    await untilMessages(h, parent.session_id, 6);
    const listed = await h.request(`/v1/runs?session_id=${parent.session_id}`);
    const runs = ((await listed.json()) as { data: Array<{ id: string; trigger?: { delegation_id?: string } }> }).data;
    assert.deepEqual(
      runs.map((r) => r.trigger?.delegation_id ?? r.id),
      [background![0]!.delegation_id, parent.id],
      "the follow-up run, newest first, names the subagent the parent run dispatched",
    );
  } finally {
    held.release("@parent", { text: "unused" });
    await h.close();
  }
});

test("a result's run still going when the server stops is interrupted, and the server stops", async () => {
  const held = new HeldChildren();
  const parent = backgroundScript(held, chatParent(held, "summarise the logs"));
  const h = await startHarness({
    config: "learning:\n  mode: off\n",
    provider: {
      // The parent's answer to the result never comes: only stopping the run ends its turn.
      fallback: (req) =>
        lastUserText(req).startsWith("[Background subagent result") ? held.answer("@result-turn") : parent(req),
    },
  });
  let sessionId = "";
  try {
    sessionId = (await chat(h, "dispatch")).sessionId;
    held.release("summarise the logs", { text: "Nothing unusual." });
    await held.arrived("@result-turn");
    const listed = await h.request(`/v1/runs?session_id=${sessionId}&status=running`);
    assert.equal(((await listed.json()) as { data: unknown[] }).data.length, 1, "the result's run is under way");
  } finally {
    await h.close();
    held.release("@result-turn", { text: "too late" });
  }
});
