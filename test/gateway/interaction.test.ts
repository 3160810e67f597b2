import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { lastToolResults } from "../helpers/agent-harness.js";
import { tempDir } from "../state/temp-dir.js";
import { modelRequests, startGateway } from "./harness.js";

function victim(): string {
  const dir = join(tempDir("hermes-gw-victim-"), "victim");
  mkdirSync(join(dir, "inner"), { recursive: true });
  return dir;
}

const deleteTurn = (dir: string) => ({ toolCalls: [{ name: "terminal", arguments: { command: `rm -r ${dir}` } }] });
const echoResult = {
  fallback: (req: Parameters<typeof lastToolResults>[0]) => ({ text: `result: ${lastToolResults(req)[0] ?? ""}` }),
};
const NO_SANDBOX = 'sandbox:\n  mode: "off"\n';

for (const [answer, runs] of [
  ["/approve", true],
  ["/deny", false],
] as const) {
  test(`a dangerous command asks in the chat and ${answer} decides it`, async () => {
    const dir = victim();
    const gw = await startGateway({ config: NO_SANDBOX, provider: { script: [deleteTurn(dir)], ...echoResult } });
    try {
      gw.adapter.inject({ messageId: "1", text: "clean up" });
      const prompt = await gw.adapter.waitForText(/needs your approval/);
      assert.match(prompt, new RegExp(`rm -r ${dir}`));
      assert.match(prompt, /\/approve session/);
      gw.adapter.inject({ messageId: "2", text: answer });
      await gw.adapter.waitForText(/^result:/);
      assert.equal(existsSync(dir), !runs);
    } finally {
      await gw.close();
    }
  });
}

for (const buttons of ["shown", "failing"] as const) {
  test(`approval buttons ${buttons === "shown" ? "replace the text prompt" : "that fail fall back to the text prompt"}`, async () => {
    const dir = victim();
    const gw = await startGateway({
      config: NO_SANDBOX,
      adapter: () => {
        const adapter = new TestAdapter({ buttons: true });
        if (buttons === "failing") adapter.askApproval = () => Promise.reject(new Error("no keyboard"));
        return adapter;
      },
      provider: { script: [deleteTurn(dir)], ...echoResult },
    });
    try {
      gw.adapter.inject({ messageId: "1", text: "clean up" });
      if (buttons === "shown") {
        await gw.adapter.waitFor(() => gw.adapter.prompts.length === 1);
        assert.match(JSON.stringify(gw.adapter.prompts[0]), new RegExp(`rm -r ${dir}`));
        assert.ok(!gw.adapter.texts().some((text) => /needs your approval/.test(text)));
      } else {
        assert.match(await gw.adapter.waitForText(/needs your approval/), new RegExp(`rm -r ${dir}`));
        assert.ok(gw.logs.some((line) => /approval buttons failed \(no keyboard\); asking in text/.test(line)));
      }
      gw.adapter.inject({ messageId: "2", text: "/approve" });
      await gw.adapter.waitForText(/^result:/);
      assert.equal(existsSync(dir), false);
    } finally {
      await gw.close();
    }
  });
}

test("an approval nobody answers is a denial", async () => {
  const dir = victim();
  const gw = await startGateway({
    config: NO_SANDBOX,
    provider: { script: [deleteTurn(dir)], ...echoResult },
    runner: { approvalTimeoutMs: 50 },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "clean up" });
    const result = await gw.adapter.waitForText(/^result:/);
    assert.match(result, /denied|not approved|refused/i);
    assert.equal(existsSync(dir), true);
  } finally {
    await gw.close();
  }
});

test("a clarify question is answered by the chat's next message", async () => {
  const gw = await startGateway({
    provider: {
      script: [
        { toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "blue"] } }] },
      ],
      ...echoResult,
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "paint it" });
    const question = await gw.adapter.waitForText(/Which colour\?/);
    assert.match(question, /1\. red\n2\. blue/);
    gw.adapter.inject({ messageId: "2", text: "2" });
    assert.match(await gw.adapter.waitForText(/^result:/), /blue/);
    assert.equal(modelRequests(gw.fake).length, 2, "the answer did not start a run of its own");
  } finally {
    await gw.close();
  }
});

test("agent.clarify_timeout bounds how long a chat question waits for its answer", async () => {
  const gw = await startGateway({
    provider: {
      script: [{ toolCalls: [{ name: "clarify", arguments: { question: "Which colour?" } }] }],
      ...echoResult,
    },
    config: "agent:\n  clarify_timeout: 1\n",
  });
  try {
    const asked = Date.now();
    gw.adapter.inject({ messageId: "1", text: "paint it" });
    await gw.adapter.waitForText(/Which colour\?/);
    await gw.adapter.waitForText(/^result:/);
    // Without the setting the question would wait five approval timeouts (300 s).
    assert.ok(Date.now() - asked < 60_000, "the run went on without an answer");
  } finally {
    await gw.close();
  }
});

test("/new starts a fresh conversation; /help lists the commands; an unknown command says so", async () => {
  const gw = await startGateway({
    // With the question off, /new acts at once as it always did (slash-confirm.test.ts covers asking).
    config: "approvals:\n  destructive_slash_confirm: false\n",
    provider: { fallback: (req) => ({ text: `turns ${(req.body.messages as unknown[]).length}` }) },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "one" });
    await gw.adapter.waitForText(/^turns/);
    const before = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    gw.adapter.inject({ messageId: "2", text: "/new" });
    await gw.adapter.waitForText(/Started a new conversation/);
    gw.adapter.inject({ messageId: "3", text: "two" });
    await gw.adapter.waitFor((sent) => sent.filter((s) => /^turns/.test(s.current)).length === 2);
    const after = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    assert.notEqual(after?.sessionId, before?.sessionId);
    const [first, second] = modelRequests(gw.fake).map((r) => (r.body.messages as unknown[]).length);
    assert.equal(first, second, "the new conversation starts as short as the first did");

    gw.adapter.inject({ messageId: "4", text: "/help" });
    const help = await gw.adapter.waitForText(/^Commands:/);
    for (const name of ["/new", "/stop", "/approve", "/deny", "/status", "/queue", "/steer", "/sethome", "/yolo"]) {
      assert.ok(help.includes(name), `${name} is listed`);
    }
    gw.adapter.inject({ messageId: "5", text: "/frobnicate" });
    await gw.adapter.waitForText(/Unknown command \/frobnicate/);
  } finally {
    await gw.close();
  }
});

test("/undo forgets the last exchange and /retry answers it again", async () => {
  const gw = await startGateway({
    provider: { fallback: (req) => ({ text: `seen ${(req.body.messages as unknown[]).length}` }) },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "first" });
    await gw.adapter.waitForText(/^seen/);
    gw.adapter.inject({ messageId: "2", text: "second" });
    await gw.adapter.waitFor((sent) => sent.length === 2);
    gw.adapter.inject({ messageId: "3", text: "/undo -y" });
    await gw.adapter.waitForText(/Forgot the last exchange \("second"\)/);
    gw.adapter.inject({ messageId: "4", text: "/retry" });
    await gw.adapter.waitFor((sent) => sent.length === 4);
    const requests = modelRequests(gw.fake);
    const texts = (r: (typeof requests)[number]) =>
      (r.body.messages as Array<{ role: string; content: string }>)
        .filter((m) => m.role === "user")
        .map((m) => m.content);
    // After /undo the last message is "first": /retry asks it again, without the undone exchange.
    assert.deepEqual(texts(requests[2]!), ["first"]);
    assert.equal(requests.length, 3);
    const id = (await gw.store.sessionRoute("agent:main:test:dm:chat-1"))!.sessionId;
    const stored = await gw.runtime.store.getMessages(id);
    assert.deepEqual(
      stored.filter((m) => m.role === "user").map((m) => m.content),
      ["first"],
      "the undone exchange is gone from the transcript and the retried one is there once",
    );
  } finally {
    await gw.close();
  }
});

test("/sethome makes the chat the platform's home channel", async () => {
  const gw = await startGateway();
  try {
    gw.adapter.inject({ chatId: "home-chat", messageId: "1", text: "/sethome" });
    await gw.adapter.waitForText(/home channel/);
    assert.equal((await gw.store.homeChannel("test"))?.chatId, "home-chat");
  } finally {
    await gw.close();
  }
});

test("/reasoning sets the effort the next turns ask for; /verbose cycles the tool progress shown in the chat", async () => {
  const gw = await startGateway({
    provider: {
      script: [{ text: "one" }, { toolCalls: [{ name: "todo", arguments: { todos: [] } }] }, { text: "two" }],
    },
  });
  try {
    gw.adapter.inject({ messageId: "1", text: "/reasoning high" });
    await gw.adapter.waitForText(/Reasoning effort set to high/);
    gw.adapter.inject({ messageId: "2", text: "think" });
    await gw.adapter.waitForText(/^one$/);
    assert.equal(modelRequests(gw.fake)[0]?.body.reasoning_effort, "high");
    gw.adapter.inject({ messageId: "3", text: "/reasoning" });
    await gw.adapter.waitForText(/Reasoning effort: high/);

    gw.adapter.inject({ messageId: "4", text: "/verbose off" });
    await gw.adapter.waitForText(/Tool progress here: off/);
    gw.adapter.inject({ messageId: "5", text: "plan" });
    await gw.adapter.waitForText(/^two$/);
    assert.ok(!gw.adapter.texts().some((t) => t.startsWith("⚙")), "no progress lines with /verbose off");
    gw.adapter.inject({ messageId: "6", text: "/verbose" });
    await gw.adapter.waitForText(/Tool progress here: new/);
  } finally {
    await gw.close();
  }
});

test("a webhook-style answer for a platform with no /sethome goes to platforms.<p>.home_channel", async () => {
  const gw = await startGateway({ config: "platforms:\n  test:\n    home_channel: configured-home\n" });
  try {
    const target = await gw.runner.replyTarget({
      platform: "webhook",
      chatId: "r",
      chatType: "dm",
      userId: "w",
      messageId: "1",
      text: "x",
      deliverTo: { platform: "test" },
    });
    assert.deepEqual(target, { platform: "test", chatId: "configured-home", threadId: null });
    await gw.store.setHomeChannel({ platform: "test", chatId: "set-by-command", threadId: null });
    const later = await gw.runner.replyTarget({
      platform: "webhook",
      chatId: "r",
      chatType: "dm",
      userId: "w",
      messageId: "2",
      text: "x",
      deliverTo: { platform: "test" },
    });
    assert.equal(later.chatId, "set-by-command", "/sethome wins over config");
  } finally {
    await gw.close();
  }
});
