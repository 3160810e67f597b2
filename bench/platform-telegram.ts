/**
 * Telegram inbound latency: from the fake queueing a DM (answering the held long poll) to the
 * fake receiving the bot's first call for that chat (typing or a message), through real grammY
 * and a real gateway with a zero-latency model.
 *
 *   node --import tsx bench/platform-telegram.ts [samples]
 */
import { pathToFileURL } from "node:url";
import { startTelegramGateway } from "../test/fakes/telegram/gateway.js";
import { ALICE } from "../test/fakes/telegram/server.js";
import { percentile } from "./stats.js";

const OUTBOUND = new Set(["sendChatAction", "sendMessage"]);

export async function measureTelegram(
  samples = 30,
): Promise<{ platform: "telegram"; p50Ms: number; p95Ms: number; samples: number }> {
  const tg = await startTelegramGateway({ provider: { fallback: { text: "ok" } } });
  const timings: number[] = [];
  try {
    const toChat = (method: string, chatId: unknown) => OUTBOUND.has(method) && Number(chatId) === ALICE.id;
    for (let i = 0; i < samples; i++) {
      const seen = tg.telegram.calls.length;
      const replies = tg.telegram.messagesIn(ALICE.id).length;
      const started = performance.now();
      tg.telegram.userMessage({ text: `ping ${i}` });
      const first = await tg.telegram.waitForCall(
        (call) => tg.telegram.calls.indexOf(call) >= seen && toChat(call.method, call.params.chat_id),
      );
      timings.push(first.atHr - started);
      // The next sample starts once this turn is answered, so turns never overlap.
      await tg.telegram.waitForMessages(() => tg.telegram.messagesIn(ALICE.id).length > replies);
    }
  } finally {
    await tg.close();
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    platform: "telegram",
    p50Ms: round(percentile(timings, 50)),
    p95Ms: round(percentile(timings, 95)),
    samples,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const samples = Number(process.argv[2] ?? 30);
  console.log(JSON.stringify(await measureTelegram(samples)));
}
