import assert from "node:assert/strict";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { buildSessionKey } from "../../src/gateway/session-key.js";
import { modelRequests, startGateway, userTexts } from "./harness.js";

const perUser = { groupSessionsPerUser: true, threadSessionsPerUser: false };

test("session keys follow the original's layout for DMs, groups and threads", () => {
  const base = { platform: "telegram", userId: "42" };
  assert.equal(buildSessionKey({ ...base, chatType: "dm", chatId: "42" }, perUser), "agent:main:telegram:dm:42");
  assert.equal(
    buildSessionKey({ ...base, chatType: "dm", chatId: "42", threadId: "7" }, perUser),
    "agent:main:telegram:dm:42:7",
  );
  assert.equal(
    buildSessionKey({ ...base, chatType: "group", chatId: "-100" }, perUser),
    "agent:main:telegram:group:-100:42",
  );
  assert.equal(
    buildSessionKey({ ...base, chatType: "group", chatId: "-100" }, { ...perUser, groupSessionsPerUser: false }),
    "agent:main:telegram:group:-100",
  );
  // A thread is one conversation unless thread_sessions_per_user is on.
  assert.equal(
    buildSessionKey({ ...base, chatType: "group", chatId: "-100", threadId: "9" }, perUser),
    "agent:main:telegram:group:-100:9",
  );
  assert.equal(
    buildSessionKey(
      { ...base, chatType: "group", chatId: "-100", threadId: "9" },
      { ...perUser, threadSessionsPerUser: true },
    ),
    "agent:main:telegram:group:-100:9:42",
  );
});

test("a colon inside an id cannot make two chats share a key", () => {
  const a = buildSessionKey({ platform: "x", userId: "u", chatType: "group", chatId: "a:b" }, perUser);
  const b = buildSessionKey({ platform: "x", userId: "b:u", chatType: "group", chatId: "a" }, perUser);
  assert.notEqual(a, b);
});

test("a DM is answered in its chat, continues its session, and two chats never share one", async () => {
  const gw = await startGateway({ provider: { fallback: (req) => ({ text: `reply to ${userTexts(req).at(-1)}` }) } });
  try {
    gw.adapter.inject({ chatId: "chat-a", messageId: "1", text: "hello from a" });
    await gw.adapter.waitForText(/reply to hello from a/);
    gw.adapter.inject({ chatId: "chat-a", messageId: "2", text: "second from a" });
    await gw.adapter.waitForText(/reply to second from a/);
    gw.adapter.inject({ chatId: "chat-b", userId: "user-1", messageId: "3", text: "hello from b" });
    await gw.adapter.waitForText(/reply to hello from b/);

    const sent = gw.adapter.sent;
    assert.deepEqual(
      sent.map((s) => [s.chatId, s.current, s.replyTo]),
      [
        ["chat-a", "reply to hello from a", "1"],
        ["chat-a", "reply to second from a", "2"],
        ["chat-b", "reply to hello from b", "3"],
      ],
    );
    const requests = modelRequests(gw.fake);
    assert.deepEqual(userTexts(requests[1]!), ["hello from a", "second from a"], "chat a's second turn sees its first");
    assert.deepEqual(userTexts(requests[2]!), ["hello from b"], "chat b sees nothing of chat a");
    const a = await gw.store.sessionRoute("agent:main:test:dm:chat-a");
    const b = await gw.store.sessionRoute("agent:main:test:dm:chat-b");
    assert.ok(a && b && a.sessionId !== b.sessionId);
    assert.equal((await gw.runtime.store.getSession(a.sessionId))?.source, "test");
  } finally {
    await gw.close();
  }
});

test("after a restart the chat continues the same stored session", async () => {
  const gw = await startGateway({ provider: { fallback: (req) => ({ text: `seen ${userTexts(req).length}` }) } });
  try {
    gw.adapter.inject({ messageId: "1", text: "first" });
    await gw.adapter.waitForText(/seen 1/);
    await gw.restart();
    gw.adapter.inject({ messageId: "2", text: "second" });
    await gw.adapter.waitForText(/seen 2/);
    assert.deepEqual(userTexts(modelRequests(gw.fake)[1]!), ["first", "second"]);
  } finally {
    await gw.close();
  }
});

test("a session idle past session_reset.idle_minutes starts afresh; the old one stays stored", async () => {
  let clock = Date.now();
  const gw = await startGateway({
    config: "session_reset:\n  mode: idle\n  idle_minutes: 30\n",
    provider: { fallback: (req) => ({ text: `seen ${userTexts(req).length}` }) },
    runner: { now: () => clock },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "first" });
    await gw.adapter.waitForText(/seen 1/);
    const before = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    clock += 31 * 60_000;
    gw.adapter.inject({ messageId: "2", text: "much later" });
    await gw.adapter.waitFor((sent) => sent.length === 2);
    assert.equal(gw.adapter.sent[1]?.current, "seen 1", "the new session does not carry the old exchange");
    const after = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    assert.notEqual(after?.sessionId, before?.sessionId);
    assert.ok(await gw.runtime.store.getSession(before!.sessionId), "the old session is kept");
  } finally {
    await gw.close();
  }
});

async function compressBetweenTurns(inPlace: boolean): Promise<void> {
  const { isSummaryRequest, SUMMARY_TEXT } = await import("../agent/context-fixtures.js");
  let summaries = 0;
  let turns = 0;
  const gw = await startGateway({
    // Indented: continues the harness's model: mapping.
    config:
      "  context_length: 40000\n  min_context_length: 0\n" +
      `compression:\n  threshold: 0.95\n  protect_first_n: 1\n  protect_last_n: 1\n  in_place: ${inPlace}\n`,
    provider: {
      fallback: (req) => {
        if (isSummaryRequest(req)) {
          summaries += 1;
          return { text: SUMMARY_TEXT };
        }
        turns += 1;
        // The third reply reports a prompt of 36k tokens: past 85% of the 40k window.
        return {
          text: `answer ${turns} ${"long ".repeat(4000)}`,
          usage: { input: turns === 3 ? 36_000 : 1000, output: 5000 },
        };
      },
    },
  });
  try {
    let firstSession: string | undefined;
    for (let n = 0; n < 3; n++) {
      gw.adapter.inject({ messageId: String(n), text: `question ${n}` });
      while (turns < n + 1) await new Promise((resolve) => setTimeout(resolve, 5));
      // The turn is in its lane; idle() waits for it, its reply and any compression after it.
      await gw.runner.idle();
      assert.equal(summaries, n === 2 ? 1 : 0, `after turn ${n + 1}`);
      firstSession ??= (await gw.store.sessionRoute("agent:main:test:dm:chat-1"))?.sessionId;
    }
    const route = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    const session = await gw.runtime.store.getSession(route!.sessionId);
    if (inPlace) {
      assert.equal(route!.sessionId, firstSession, "the chat keeps its session");
      const stored = await gw.runtime.store.getMessages(route!.sessionId);
      assert.ok(JSON.stringify(stored).includes("Active Task"), "its stored conversation is the compacted one");
    } else {
      assert.equal(session?.parentSessionId, firstSession, "the route points at the continued (child) session");
    }
    gw.adapter.inject({ messageId: "3", text: "question 3" });
    while (turns < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    const next = modelRequests(gw.fake)
      .filter((r) => !isSummaryRequest(r))
      .at(-1)!;
    assert.ok(JSON.stringify(next.body.messages).includes("Active Task"), "the next turn starts from the summary");
  } finally {
    await gw.close();
  }
}

test("a session past 85% of its window is compressed between turns, in place: the chat keeps its session", () =>
  compressBetweenTurns(true));

test("with compression.in_place false the chat's route follows the compressed conversation to its child session", () =>
  compressBetweenTurns(false));

test("<platform>.channel_prompts adds its line to the system prompt in that channel only", async () => {
  const gw = await startGateway({
    adapter: () => new TestAdapter({ platform: "slack" }),
    env: { SLACK_ALLOWED_USERS: "user-1" },
    config: "slack:\n  channel_prompts:\n    C-french: Answer in French.\n",
    provider: { fallback: { text: "ok" } },
  });
  try {
    gw.adapter.inject({ chatId: "C-french", messageId: "1", text: "hello" });
    await gw.adapter.waitForText(/^ok$/, "C-french");
    gw.adapter.inject({ chatId: "C-other", messageId: "2", text: "hello" });
    await gw.adapter.waitForText(/^ok$/, "C-other");
    const systems = modelRequests(gw.fake).map((r) =>
      JSON.stringify((r.body.messages as Array<{ role: string }>).filter((m) => m.role === "system")),
    );
    assert.deepEqual(
      systems.map((s) => s.includes("Answer in French.")),
      [true, false],
    );
  } finally {
    await gw.close();
  }
});
