import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { TelegramAdapter } from "../../../src/gateway/adapters/telegram/adapter.js";
import { OffsetStore } from "../../../src/gateway/adapters/telegram/polling.js";
import { startTelegramGateway } from "../../fakes/telegram/gateway.js";
import { ALICE, FakeTelegram } from "../../fakes/telegram/server.js";
import { tempDir } from "../../state/temp-dir.js";
import { modelRequests, userTexts } from "../harness.js";

/** Waits for a condition that has no event of its own, checking every 10 ms. */
async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const echo = {
  fallback: (req: Parameters<typeof userTexts>[0]) => ({ text: `echo ${userTexts(req).at(-1) ?? ""}` }),
};

test("a long poll cut mid-conversation resumes: nothing lost, nothing doubled", async () => {
  const tg = await startTelegramGateway({ provider: echo });
  try {
    tg.telegram.userMessage({ text: "one" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "echo one"));

    await until(() => tg.telegram.heldPolls > 0, "the next long poll");
    assert.equal(tg.telegram.dropHeldPolls(), 1);
    // The first delivery after that is cut too: the updates must come again, once.
    tg.telegram.cutNextDeliveries(1);
    tg.telegram.userMessage({ text: "two" });
    tg.telegram.userMessage({ text: "three" });
    await tg.telegram.waitForMessages(
      (messages) => messages.some((m) => m.text === "echo two") && messages.some((m) => m.text === "echo three"),
    );
    const asked = modelRequests(tg.gw.fake).map((r) => userTexts(r).at(-1));
    assert.deepEqual(asked.sort(), ["one", "three", "two"]);
    for (const text of ["echo one", "echo two", "echo three"]) {
      assert.equal(tg.telegram.messagesIn(ALICE.id).filter((m) => m.text === text).length, 1, text);
    }
    assert.ok(!tg.gw.logs.some((line) => /ignored a repeat/.test(line)), "no update was handed over twice");
  } finally {
    await tg.close();
  }
});

test("after a restart old updates are not handled again: the offset is kept on disk", async () => {
  const tg = await startTelegramGateway({ provider: echo });
  try {
    const first = tg.telegram.userMessage({ text: "before the restart" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "echo before the restart"));
    // As if the bot died before its next poll could confirm what it had read.
    tg.telegram.forgetConfirmations();
    const callsBefore = tg.telegram.calls.length;
    await tg.gw.restart();
    const saved = JSON.parse(readFileSync(join(tg.gw.home, "gateway", "telegram-offset.json"), "utf8"));
    assert.equal(saved.lastUpdateId, first.update_id);
    const firstPoll = await tg.telegram.waitForCall(
      (call) => call.method === "getUpdates" && tg.telegram.calls.indexOf(call) >= callsBefore,
    );
    assert.equal(firstPoll.params.offset, (first.update_id as number) + 1);

    tg.telegram.userMessage({ text: "after the restart" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "echo after the restart"));
    const asked = modelRequests(tg.gw.fake).map((r) => userTexts(r).at(-1));
    assert.deepEqual(asked, ["before the restart", "after the restart"]);
    assert.ok(!tg.gw.logs.some((line) => /ignored a repeat/.test(line)), "the old update never came back");
  } finally {
    await tg.close();
  }
});

test("a 429 with retry_after is honoured: the send is retried no sooner than Telegram asked", async () => {
  const tg = await startTelegramGateway({ provider: { fallback: { text: "ok" } } });
  try {
    tg.telegram.failNext("sendMessage", { code: 429, description: "Too Many Requests: retry after 1", retryAfter: 1 });
    tg.telegram.userMessage({ text: "hi" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "ok"));
    const [refused, accepted] = tg.telegram.callsOf("sendMessage");
    assert.equal(refused?.status, 429);
    assert.equal(accepted?.status, 200);
    const waited = (accepted?.at ?? 0) - (refused?.at ?? 0);
    assert.ok(waited >= 950, `the retry waited ${waited} ms`);
  } finally {
    await tg.close();
  }
});

test("a poll answered 401 ends the listener and reports it; checkAlive then fails", async () => {
  const telegram = await FakeTelegram.start();
  const adapter = new TelegramAdapter({ token: telegram.token, apiRoot: telegram.url, home: tempDir("hermes-tg-") });
  try {
    let lost: Error | undefined;
    await adapter.connect({ inbound: async () => true, listenerLost: (error) => (lost = error) });
    await adapter.checkAlive();
    await until(() => telegram.heldPolls > 0, "the first long poll");
    telegram.failNext("getUpdates", { code: 401, description: "Unauthorized" });
    telegram.dropHeldPolls();
    await until(() => lost !== undefined, "the listener to be reported lost");
    assert.match(lost?.message ?? "", /telegram polling stopped.*401: Unauthorized/);
    assert.ok(!lost?.message.includes(telegram.token), "the token is never in an error");
    await assert.rejects(adapter.checkAlive(), /not running/);
  } finally {
    await adapter.disconnect();
    await telegram.close();
  }
});

test("when the Bot API stays unreachable the poll loop gives up and reports the listener lost", async () => {
  const telegram = await FakeTelegram.start();
  const adapter = new TelegramAdapter({ token: telegram.token, apiRoot: telegram.url, home: tempDir("hermes-tg-") });
  try {
    let lost: Error | undefined;
    await adapter.connect({ inbound: async () => true, listenerLost: (error) => (lost = error) });
    await until(() => telegram.heldPolls > 0, "the first long poll");
    await telegram.close();
    await until(() => lost !== undefined, "the listener to be reported lost");
    assert.match(lost?.message ?? "", /telegram polling stopped: Network request for 'getUpdates' failed/);
  } finally {
    await adapter.disconnect();
  }
});

test("a wrong token fails to connect with a clear error", async () => {
  const telegram = await FakeTelegram.start();
  const adapter = new TelegramAdapter({ token: "123:wrong", apiRoot: telegram.url, home: tempDir("hermes-tg-") });
  try {
    await assert.rejects(
      adapter.connect({ inbound: async () => true, listenerLost: () => undefined }),
      /could not sign in .*401: Unauthorized/,
    );
  } finally {
    await adapter.disconnect();
    await telegram.close();
  }
});

test("a saved offset counts only for the same bot and for a day", () => {
  const home = tempDir("hermes-tg-");
  const store = new OffsetStore(home, "7000001");
  assert.equal(store.load(), undefined);
  store.save(1234);
  assert.equal(store.load(), 1234);
  assert.equal(new OffsetStore(home, "7000002").load(), undefined, "another bot's offset is not used");
  const saved = JSON.parse(readFileSync(store.path, "utf8"));
  writeFileSync(store.path, JSON.stringify({ ...saved, savedAt: Date.now() - 25 * 3_600_000 }));
  assert.equal(store.load(), undefined, "a day-old offset is dropped (Telegram no longer holds what it covered)");
  writeFileSync(store.path, "{ not json");
  assert.equal(store.load(), undefined);
});
