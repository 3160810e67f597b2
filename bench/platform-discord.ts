/**
 * Discord inbound latency: from the fake dispatching a DM's MESSAGE_CREATE to the fake receiving
 * the bot's first REST call for that channel (typing or a message), through real discord.js and
 * a real gateway with a zero-latency model.
 *
 *   node --import tsx bench/platform-discord.ts [samples]
 */
import { pathToFileURL } from "node:url";
import { startDiscordGateway } from "../test/fakes/discord/harness.js";
import { percentile } from "./stats.js";

export async function measureDiscord(
  samples = 30,
): Promise<{ platform: "discord"; p50Ms: number; p95Ms: number; samples: number }> {
  const d = await startDiscordGateway({
    config: "discord:\n  reactions: false\n",
    provider: { fallback: { text: "ok" } },
  });
  const timings: number[] = [];
  try {
    const dm = d.fake.dmChannel(d.alice).id;
    const toChannel = (path: string) => path === `/channels/${dm}/typing` || path === `/channels/${dm}/messages`;
    for (let i = 0; i < samples; i++) {
      const seen = d.fake.calls.length;
      const replies = d.fake.botMessages(dm).length;
      const started = performance.now();
      d.fake.userSays({ channel: "dm", user: d.alice, content: `ping ${i}` });
      const first = await d.fake.waitFor(
        () => d.fake.calls.slice(seen).find((call) => toChannel(call.path)),
        20_000,
        "the bot's first call",
      );
      timings.push(first.atHr - started);
      // The next sample starts once this turn is answered, so turns never overlap.
      await d.fake.waitFor(() => d.fake.botMessages(dm).length > replies, 20_000, "the reply");
    }
  } finally {
    await d.close();
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { platform: "discord", p50Ms: round(percentile(timings, 50)), p95Ms: round(percentile(timings, 95)), samples };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const samples = Number(process.argv[2] ?? 30);
  console.log(JSON.stringify(await measureDiscord(samples)));
}
