import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { probe } from "../../../src/gateway/adapters/telegram/platform.js";
import { enabledPlatforms } from "../../../src/gateway/platforms.js";
import type { InboundMessage } from "../../../src/gateway/types.js";
import { DEFAULT_CONFIG } from "../../../src/state/config-defaults.js";
import { startTelegramGateway } from "../../fakes/telegram/gateway.js";
import { ALICE, type BotMessage, FakeTelegram } from "../../fakes/telegram/server.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

function context(telegram: FakeTelegram, token = telegram.token) {
  return {
    config: DEFAULT_CONFIG,
    env: { TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: telegram.url },
    home: tempDir("hermes-tg-"),
    log: () => undefined,
  };
}

test("TELEGRAM_BOT_TOKEN and TELEGRAM_API_ROOT enable the platform, and its adapter hears messages", async () => {
  const telegram = await FakeTelegram.start();
  const { env, home } = context(telegram);
  const { adapters, notices } = await enabledPlatforms(DEFAULT_CONFIG, { home, env, log: () => undefined });
  assert.deepEqual(notices, []);
  assert.deepEqual(
    adapters.map((a) => a.platform),
    ["telegram"],
  );
  const [adapter] = adapters;
  try {
    const heard: InboundMessage[] = [];
    let notify: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      notify = resolve;
    });
    await adapter?.connect({
      inbound: async (message) => {
        heard.push(message);
        notify();
        return true;
      },
      listenerLost: (error) => assert.fail(error),
    });
    const group = { id: -500, type: "group" as const, title: "Friends" };
    telegram.userMessage({ chat: group, text: "/status@hermes_test_bot", replyTo: 3 });
    await arrived;
    assert.deepEqual(heard[0], {
      platform: "telegram",
      chatId: "-500",
      chatType: "group",
      chatName: "Friends",
      userId: String(ALICE.id),
      userName: "alice",
      text: "/status@hermes_test_bot",
      messageId: "1",
      replyTo: "3",
      sentAt: heard[0]?.sentAt,
    });
    assert.ok(telegram.callsOf("deleteWebhook").length === 1, "a leftover webhook is removed before polling");
  } finally {
    await adapter?.disconnect();
    await telegram.close();
  }
});

test("probe names the bot, and a refused token says which setting to check", async () => {
  const telegram = await FakeTelegram.start();
  try {
    assert.deepEqual(await probe(context(telegram), 5000), { ok: true, detail: "@hermes_test_bot (7000001)" });
    const refused = await probe(context(telegram, "7000001:not-the-token"), 5000);
    assert.equal(refused.ok, false);
    assert.match(refused.hint ?? "", /TELEGRAM_BOT_TOKEN/);
    assert.ok(!JSON.stringify(refused).includes("not-the-token"), "the token is not repeated back");
  } finally {
    await telegram.close();
  }
});

test("a question's choices are buttons; a press answers with the choice's text", async () => {
  const tg = await startTelegramGateway({
    provider: {
      script: [
        { toolCalls: [{ name: "clarify", arguments: { question: "Which colour?", choices: ["red", "blue"] } }] },
      ],
      fallback: (req) => {
        const messages = req.body.messages as Array<{ role: string; content: string }>;
        return { text: `result: ${messages.at(-1)?.content ?? ""}` };
      },
    },
  });
  try {
    tg.telegram.userMessage({ text: "paint it" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.replyMarkup));
    const prompt = tg.telegram.messages.find((m) => m.replyMarkup) as BotMessage;
    assert.match(prompt.text, /Which colour\?/);
    tg.telegram.press({ message: prompt, data: "q:1" });
    const answered = (m: BotMessage) => /^result:/.test(m.text) && !m.text.endsWith(" ▉");
    await tg.telegram.waitForMessages((messages) => messages.some(answered));
    const result = tg.telegram.messages.find(answered) as BotMessage;
    assert.match(result.text, /blue/);
    assert.match(prompt.text, /Answered: blue by @alice/);
    assert.equal(prompt.replyMarkup, undefined);
    assert.equal(modelRequests(tg.gw.fake).length, 2, "the press answered the question, it started no run");
  } finally {
    await tg.close();
  }
});

test("a voice note is downloaded as audio and named to the model", async () => {
  const voice = Buffer.from("OggS fake voice bytes");
  const tg = await startTelegramGateway({ provider: { fallback: { text: "heard it" } } });
  try {
    tg.telegram.userMessage({ voice });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "heard it"));
    const request = modelRequests(tg.gw.fake)[0];
    const messages = request?.body.messages as Array<{ role: string; content: string }>;
    const text = String(messages.filter((m) => m.role === "user").at(-1)?.content);
    const saved = /The user sent a audio: voice\.ogg \(audio\/ogg, \d+ bytes\) saved at (\S+)\]/.exec(text)?.[1];
    assert.ok(saved, text);
    assert.deepEqual(readFileSync(saved), voice);
  } finally {
    await tg.close();
  }
});

test("telegram.allowed_chats limits the groups the bot answers in; DMs are not affected", async () => {
  const tg = await startTelegramGateway({
    config: "telegram:\n  allowed_chats: [-700]\n",
    provider: { fallback: (req) => ({ text: `echo ${userTexts(req).at(-1)}` }) },
  });
  try {
    tg.telegram.userMessage({ chat: { id: -800, type: "group", title: "Elsewhere" }, text: "ignored" });
    tg.telegram.userMessage({ chat: { id: -700, type: "group", title: "Ours" }, text: "in the group" });
    tg.telegram.userMessage({ text: "in a DM" });
    await tg.telegram.waitForMessages(
      (messages) =>
        messages.some((m) => m.text === "echo in the group") && messages.some((m) => m.text === "echo in a DM"),
    );
    const asked = modelRequests(tg.gw.fake).map((r) => userTexts(r).at(-1));
    assert.deepEqual(asked.sort(), ["in a DM", "in the group"]);
    assert.equal(tg.telegram.messagesIn(-800).length, 0);
  } finally {
    await tg.close();
  }
});
