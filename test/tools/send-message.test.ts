import assert from "node:assert/strict";
import { test } from "node:test";
import { TestAdapter } from "../../src/gateway/adapters/test-adapter.js";
import { gatewaySendBackend } from "../../src/gateway/send-backend.js";
import { PlatformSendError } from "../../src/gateway/types.js";
import {
  checkTarget,
  MAX_MESSAGE_CHARS,
  registerSendMessageTool,
  type SendMessageOrigin,
} from "../../src/tools/builtin/send-message.js";
import { type GatewayHarness, type GatewayHarnessOptions, modelRequests, startGateway } from "../gateway/harness.js";

/** A gateway on the test platform whose agents have send_message, as `hermes gateway run` sets it up. */
async function gateway(options: GatewayHarnessOptions = {}): Promise<GatewayHarness> {
  const gw = await startGateway(options);
  registerSendMessageTool(gw.runtime.registry, gatewaySendBackend(gw.runner));
  return gw;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read the tool's JSON result freely
async function call(gw: GatewayHarness, args: Record<string, unknown>, origin?: SendMessageOrigin): Promise<any> {
  const spec = gw.runtime.registry.get("send_message");
  assert.ok(spec, "send_message is registered");
  const ctx = {
    cwd: gw.home,
    signal: new AbortController().signal,
    ...(origin ? { services: { cronOrigin: origin } } : {}),
  };
  return JSON.parse(await spec.handler(args as never, ctx));
}

const HOME = "platforms:\n  test:\n    home_channel: home-1\n";

test("send to a platform goes to its home channel at once, through the ledger, and reports sent", async () => {
  const gw = await gateway({ config: HOME });
  try {
    const result = await call(gw, { target: "test", message: "Deploy finished." });
    assert.deepEqual(
      [result.success, result.target, result.status],
      [true, "test:home-1", "sent"],
      JSON.stringify(result),
    );
    assert.deepEqual(gw.adapter.texts("home-1"), ["Deploy finished."]);
    const record = await gw.store.getDelivery(result.delivery_id);
    assert.deepEqual([record?.state, record?.chatId], ["sent", "home-1"], "the ledger has it, sent");
  } finally {
    await gw.close();
  }
});

test("/sethome's channel wins over config, and platform:chat:thread reaches that thread", async () => {
  const gw = await gateway({ config: HOME });
  try {
    await gw.store.setHomeChannel({ platform: "test", chatId: "ops", threadId: "alerts" });
    assert.equal((await call(gw, { target: "test", message: "one" })).target, "test:ops:alerts");
    const result = await call(gw, { target: "test:room-9:topic-3", message: "two" });
    assert.deepEqual([result.status, result.target], ["sent", "test:room-9:topic-3"]);
    const sent = gw.adapter.sent.map((s) => [s.chatId, s.threadId, s.text]);
    assert.deepEqual(sent, [
      ["ops", "alerts", "one"],
      ["room-9", "topic-3", "two"],
    ]);
  } finally {
    await gw.close();
  }
});

test("a platform that is not set up, or unknown, is refused naming hermes gateway setup; nothing is recorded", async () => {
  const gw = await gateway({ config: HOME });
  try {
    const telegram = await call(gw, { target: "telegram:12345", message: "hi" });
    assert.equal(telegram.success, false);
    assert.match(telegram.error, /telegram is not set up \(set up: test\): run hermes gateway setup telegram/);
    const unknown = await call(gw, { target: "myspace", message: "hi" });
    assert.match(unknown.error, /"myspace" is not a messaging platform here \(set up: test\); hermes gateway setup/);
    assert.deepEqual(await gw.store.recentChats(10), []);
    assert.deepEqual(await gw.store.dueDeliveries(Date.now() + 1000, 10), []);
    assert.equal(gw.adapter.sent.length, 0);
  } finally {
    await gw.close();
  }
});

test("a platform without a home channel is refused, saying to send /sethome or set home_channel", async () => {
  const gw = await gateway();
  try {
    const result = await call(gw, { target: "test", message: "hi" });
    assert.equal(result.success, false);
    assert.match(result.error, /test has no home channel: send \/sethome in the test chat/);
    assert.match(result.error, /platforms\.test\.home_channel in config\.yaml \(or TEST_HOME_CHANNEL/);
    const all = await call(gw, { target: "all", message: "hi" });
    assert.match(all.error, /no platform has a home channel/);
    const origin = await call(gw, { target: "origin", message: "hi" });
    assert.match(origin.error, /origin is the chat this conversation is in, and there is none here/);
  } finally {
    await gw.close();
  }
});

test("targets with control characters, too many parts, lists or excessive length are refused before anything is sent", async () => {
  for (const [target, why] of [
    ["test:chat\u0000x", /control or invisible/],
    ["test:chat\u202ex", /control or invisible/],
    ["test:a:b:c", /is not a target/],
    ["test::b", /is not a target/],
    ["test:a,slack:b", /one target per call/],
    [`test:${"9".repeat(300)}`, /longer than 256/],
    ["te st:1", /is not a platform name/],
    ["local", /local is not a chat/],
    ["", /send needs a target/],
  ] as const) {
    assert.throws(() => checkTarget(target), why, JSON.stringify(target));
  }
  assert.equal(checkTarget("  Telegram:123:7 "), "telegram:123:7", "the platform name in lower case, spaces trimmed");
});

test("secrets are masked before the message leaves; MEDIA: lines are left out and said so", async () => {
  const gw = await gateway({ config: HOME });
  try {
    const token = `ghp_${"a1B2c3D4e5".repeat(4)}`;
    const result = await call(gw, {
      target: "test",
      message: `Token for the CI: ${token}\nOPENAI_API_KEY=sk-proj-${"x9".repeat(20)}\nMEDIA:/tmp/report.pdf\nDone.`,
    });
    assert.equal(result.status, "sent");
    assert.equal(result.redacted, true);
    assert.match(result.note, /1 MEDIA: line\(s\) were left out: send_message sends text only/);
    const [text] = gw.adapter.texts("home-1");
    assert.ok(text && !text.includes(token) && !text.includes("x9x9x9x9"), text);
    assert.ok(!text.includes("MEDIA:") && text.endsWith("Done."), text);
    const only = await call(gw, { target: "test", message: "MEDIA:/tmp/a.png" });
    assert.match(only.error, /no text once its MEDIA: lines are left out/);
  } finally {
    await gw.close();
  }
});

test("a long message is split as replies are, one ledger record per part; one over the limit is refused", async () => {
  const gw = await gateway({ config: HOME, adapter: () => new TestAdapter({ maxMessageLength: 100 }) });
  try {
    const paragraphs = Array.from({ length: 5 }, (_, i) => `Paragraph ${i + 1}: ${"word ".repeat(12).trim()}`);
    const result = await call(gw, { target: "test", message: paragraphs.join("\n\n") });
    assert.equal(result.status, "sent");
    assert.ok(result.parts >= 3 && result.delivery_ids.length === result.parts, JSON.stringify(result));
    const texts = gw.adapter.texts("home-1");
    assert.equal(texts.length, result.parts);
    assert.ok(texts.every((t) => t.length <= 100));
    assert.equal(texts.join("\n\n"), paragraphs.join("\n\n"), "cut at paragraph breaks, nothing lost");
    const tooLong = await call(gw, { target: "test", message: "a".repeat(MAX_MESSAGE_CHARS + 1) });
    assert.match(tooLong.error, new RegExp(`the limit is ${MAX_MESSAGE_CHARS}`));
  } finally {
    await gw.close();
  }
});

test("a first attempt that can pass is reported as retrying and sent by the next sweep; one that cannot is failed", async () => {
  // Real time, moved ahead on demand: a retry waited for inline would go out at once.
  let ahead = 0;
  const gw = await gateway({ config: HOME, runner: { now: () => Date.now() + ahead } });
  try {
    gw.adapter.failNextSends(new PlatformSendError("502 bad gateway", { retryable: true }));
    const retrying = await call(gw, { target: "test", message: "try again later" });
    assert.deepEqual([retrying.success, retrying.status], [true, "retrying"]);
    assert.match(retrying.error, /502 bad gateway; the gateway tries again/);
    assert.equal(gw.adapter.sent.length, 0, "the tool did not wait for the retry");
    ahead += 60_000;
    await gw.runner.deliveries.sweep();
    assert.deepEqual(gw.adapter.texts("home-1"), ["try again later"]);
    assert.equal((await gw.store.getDelivery(retrying.delivery_id))?.state, "sent");

    gw.adapter.failNextSends(new PlatformSendError("400 chat not found", { retryable: false }));
    const failed = await call(gw, { target: "test:gone", message: "hello?" });
    assert.deepEqual([failed.success, failed.status, failed.error], [false, "failed", "400 chat not found"]);
  } finally {
    await gw.close();
  }
});

test("list shows each platform's home channel and the chats sent to lately; a chat user sees no other chat's title", async () => {
  const gw = await gateway({ config: HOME });
  try {
    gw.adapter.inject({ chatId: "chat-1", messageId: "1", text: "hello" });
    await gw.adapter.waitForText(/ok/, "chat-1");
    const route = await gw.store.sessionRoute("agent:main:test:dm:chat-1");
    assert.ok(route);
    await gw.runtime.store.rename(route.sessionId, "Trip planning");
    await call(gw, { target: "test:room-9:topic-3", message: "posted" });

    const listed = await call(gw, { action: "list" });
    assert.equal(listed.success, true);
    assert.deepEqual(listed.platforms, [{ platform: "test", home_channel: "test:home-1" }]);
    assert.deepEqual(
      listed.recent_chats.map((c: Record<string, unknown>) => [c.target, c.thread_id, c.chat_type, c.name]),
      [
        ["test:room-9:topic-3", "topic-3", undefined, undefined],
        ["test:chat-1", undefined, "dm", "Trip planning"],
      ],
    );

    const fromAnotherChat = await call(gw, { action: "list" }, { platform: "test", chatId: "chat-2" });
    assert.equal(fromAnotherChat.this_chat, "test:chat-2");
    assert.ok(fromAnotherChat.recent_chats.every((c: Record<string, unknown>) => c.name === undefined));
    const fromItsOwnChat = await call(gw, { action: "list" }, { platform: "test", chatId: "chat-1" });
    assert.equal(fromItsOwnChat.recent_chats[1].name, "Trip planning");
  } finally {
    await gw.close();
  }
});

test("the agent in a chat sends to another chat and to origin, and is told each was sent", async () => {
  const gw = await gateway({
    config: HOME,
    provider: {
      script: [
        {
          toolCalls: [
            { name: "send_message", arguments: { target: "test:room-9", message: "Standup moved to 10:00." } },
            { name: "send_message", arguments: { target: "origin", message: "Noted here too." } },
          ],
        },
        { text: "Both sent." },
      ],
    },
  });
  try {
    gw.adapter.inject({ chatId: "chat-1", messageId: "1", text: "tell room 9 standup moved" });
    await gw.adapter.waitForText(/Both sent\./, "chat-1");
    assert.deepEqual(gw.adapter.texts("room-9"), ["Standup moved to 10:00."]);
    const inChat = gw.adapter.texts("chat-1").filter((text) => !text.startsWith("⚙"));
    assert.deepEqual(inChat, ["Noted here too.", "Both sent."], "origin is the chat the agent works in");
    const second = modelRequests(gw.fake)[1];
    assert.ok(second, "the model was asked again with the tool results");
    const results = (second.body.messages as Array<{ role: string; content: string }>)
      .filter((m) => m.role === "tool")
      .map((m) => JSON.parse(m.content));
    assert.deepEqual(
      results.map((r) => [r.target, r.status]),
      [
        ["test:room-9", "sent"],
        ["test:chat-1", "sent"],
      ],
    );
  } finally {
    await gw.close();
  }
});
