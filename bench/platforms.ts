/**
 * Messaging platforms, each through its real SDK against its local fake with a zero-latency
 * model: time from the inbound event to the bot's first outbound call (target ≤ 50 ms p50), and
 * the RSS of a `hermes gateway run` with all four platforms connected.
 * Run alone with: node --import tsx bench/platforms.ts (needs `npm run build` for the RSS figure)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startFakeProvider } from "../test/fake-provider/server.js";
import { startFakeDiscord } from "../test/fakes/discord/server.js";
import { startMailWorld } from "../test/fakes/email/mail-world.js";
import { startFakeSlack } from "../test/fakes/slack/server.js";
import { FakeTelegram } from "../test/fakes/telegram/server.js";
import { measureDiscord } from "./platform-discord.js";
import { measureEmail } from "./platform-email.js";
import { measureSlack } from "./platform-slack.js";
import { measureTelegram } from "./platform-telegram.js";
import { printTable, type Row } from "./stats.js";

const MIB = 1024 * 1024;
const PLATFORMS = ["telegram", "discord", "slack", "email"];

function rssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN);
  return (kib * 1024) / MIB;
}

/** Starts `hermes gateway run` with every platform on, waits until all four are connected, reads its RSS. */
async function gatewayRss(): Promise<Row> {
  const provider = await startFakeProvider({ fallback: { text: "ok" } });
  const telegram = await FakeTelegram.start();
  const discord = await startFakeDiscord();
  const slackTokens = { botToken: "xoxb-bench-bot", appToken: "xapp-bench-app" };
  const slack = await startFakeSlack(slackTokens);
  const mail = await startMailWorld({ idle: true });
  const home = mkdtempSync(join(tmpdir(), "hermes-bench-platforms-"));
  writeFileSync(
    join(home, "config.yaml"),
    `model:\n  default: m\n  provider: custom\n  base_url: ${provider.url}/v1\n`,
  );
  const child = spawn(process.execPath, ["dist/cli/main.js", "gateway", "run"], {
    env: {
      ...process.env,
      ...mail.env(),
      HERMES_HOME: home,
      API_SERVER_ENABLED: "",
      OPENROUTER_API_KEY: "",
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      DISCORD_BOT_TOKEN: discord.token,
      DISCORD_API_ROOT: discord.apiRoot,
      SLACK_BOT_TOKEN: slackTokens.botToken,
      SLACK_APP_TOKEN: slackTokens.appToken,
      SLACK_API_ROOT: slack.apiUrl,
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the gateway exited: ${stderr}`);
      let connected = 0;
      try {
        const state = JSON.parse(readFileSync(join(home, "gateway", "state.json"), "utf8"));
        connected = PLATFORMS.filter((p) => state.platforms?.[p]?.state === "connected").length;
      } catch {
        // Not written yet.
      }
      if (connected === PLATFORMS.length) break;
      if (Date.now() > deadline) throw new Error(`not all platforms connected within 60 s: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return {
      figure: "gateway RSS with Telegram, Discord, Slack and email connected",
      value: `${rssMiB(child.pid as number).toFixed(1)} MiB`,
    };
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    await Promise.all([provider.close(), telegram.close(), discord.close(), slack.close(), mail.close()]);
    rmSync(home, { recursive: true, force: true });
  }
}

export async function benchPlatforms(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const measure of [measureTelegram, measureDiscord, measureSlack, measureEmail]) {
    const result = await measure();
    rows.push({
      figure: `${result.platform}: inbound event → first outbound call, p50 (${result.samples} turns)`,
      value: `${result.p50Ms.toFixed(1)} ms (p95 ${result.p95Ms.toFixed(1)} ms)`,
      baseline: "target ≤ 50 ms p50",
    });
  }
  rows.push(await gatewayRss());
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  printTable("Messaging platforms", await benchPlatforms());
}
