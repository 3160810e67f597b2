/**
 * Slack inbound latency: from the fake sending a DM's `events_api` envelope over Socket Mode to
 * the fake receiving the app's first Web API call for that channel, through the real
 * @slack/socket-mode and @slack/web-api clients and a real gateway with a zero-latency model.
 *
 *   node --import tsx bench/platform-slack.ts [samples]
 */
import { pathToFileURL } from "node:url";
import { DM, dm, finished, startSlackGateway } from "../test/fakes/slack/gateway.js";
import { percentile } from "./stats.js";

export async function measureSlack(
  samples = 30,
): Promise<{ platform: "slack"; p50Ms: number; p95Ms: number; samples: number }> {
  const { slack, close } = await startSlackGateway({ provider: { fallback: { text: "ok" } } });
  const timings: number[] = [];
  try {
    for (let i = 0; i < samples; i++) {
      const seen = slack.calls.length;
      const replies = finished(slack, DM).length;
      const started = performance.now();
      dm(slack, `ping ${i}`);
      const first = await slack
        .waitFor(
          () => slack.calls.slice(seen).some((call) => call.params.channel === DM),
          "the app's first call to the DM",
        )
        .then(() => slack.calls.slice(seen).find((call) => call.params.channel === DM)!);
      timings.push(first.atHr - started);
      // The next sample starts once this turn is answered, so turns never overlap.
      await slack.waitFor(() => finished(slack, DM).length > replies, "the reply");
    }
  } finally {
    await close();
  }
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { platform: "slack", p50Ms: round(percentile(timings, 50)), p95Ms: round(percentile(timings, 95)), samples };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const samples = Number(process.argv[2] ?? 30);
  console.log(JSON.stringify(await measureSlack(samples)));
}
