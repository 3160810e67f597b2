import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { startTelegramGateway } from "../../fakes/telegram/gateway.js";
import { ALICE } from "../../fakes/telegram/server.js";
import { modelRequests, userTexts } from "../harness.js";

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

test("with a webhook URL, updates pushed by Telegram are answered and only the right secret is taken", async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/telegram/hook`;
  const secret = "a-secret_only-telegram-knows";
  const tg = await startTelegramGateway({
    platformEnv: { TELEGRAM_WEBHOOK_URL: url, TELEGRAM_WEBHOOK_PORT: String(port), TELEGRAM_WEBHOOK_SECRET: secret },
    provider: { fallback: (req) => ({ text: `echo ${userTexts(req).at(-1)}` }) },
  });
  try {
    assert.deepEqual(tg.telegram.webhook, { url, secret });
    const setWebhook = tg.telegram.callsOf("setWebhook")[0];
    assert.deepEqual(setWebhook?.params.allowed_updates, ["message", "callback_query"]);
    assert.equal(tg.telegram.callsOf("getUpdates").length, 0, "no polling in webhook mode");

    // One at a time: a second message while the first is answered would interrupt it.
    tg.telegram.userMessage({ text: "over the webhook" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "echo over the webhook"));
    tg.telegram.userMessage({ text: "and a second" });
    await tg.telegram.waitForMessages((messages) => messages.some((m) => m.text === "echo and a second"));
    assert.equal(tg.telegram.messagesIn(ALICE.id).length, 2);

    const forged = JSON.stringify({
      update_id: 99_999,
      message: { message_id: 50, date: 1, chat: { id: ALICE.id, type: "private" }, from: ALICE, text: "forged" },
    });
    const attempts: Array<Record<string, string>> = [{}, { "x-telegram-bot-api-secret-token": "guess" }];
    for (const headers of attempts) {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: forged,
      });
      assert.equal(response.status, 401);
    }
    assert.equal((await fetch(`http://127.0.0.1:${port}/elsewhere`, { method: "POST" })).status, 404);
    await tg.gw.runner.idle();
    assert.deepEqual(
      modelRequests(tg.gw.fake).map((r) => userTexts(r).at(-1)),
      ["over the webhook", "and a second"],
      "the forged update reached nobody",
    );
    await tg.gw.runner.adapter("telegram")?.checkAlive?.();
  } finally {
    await tg.close();
  }
});
