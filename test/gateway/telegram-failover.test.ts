/**
 * Two `hermes gateway run` processes with one Telegram bot on one PostgreSQL database: one polls,
 * the other stands by (the fake Bot API answers two pollers with 409, as Telegram does). The
 * owner is SIGKILLed; the standby takes over polling and answers the next message.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { readProcessState } from "../../src/gateway/process-state.js";
import { startFakeProvider } from "../fake-provider/server.js";
import { until } from "../fakes/slack/gateway.js";
import { ALICE, FakeTelegram } from "../fakes/telegram/server.js";
import { postgresOrSkip } from "../helpers/postgres.js";
import { tempDir } from "../state/temp-dir.js";
import { userTexts } from "./harness.js";

const db = postgresOrSkip();

function startGateway(home: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["dist/cli/main.js", "gateway", "run"], {
    env: { ...process.env, HERMES_HOME: home, OPENROUTER_API_KEY: "", ...env },
    stdio: ["ignore", "ignore", "ignore"],
  });
}

if (db) {
  test("postgres: two gateway processes share a Telegram bot; when the polling one is killed the other takes over", {
    timeout: 120_000,
  }, async () => {
    const url = await db.database();
    const telegram = await FakeTelegram.start();
    const model = await startFakeProvider({ fallback: (req) => ({ text: `answer to ${userTexts(req).at(-1)}` }) });
    const env = {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      TELEGRAM_ALLOWED_USERS: String(ALICE.id),
      TELEGRAM_POLL_TIMEOUT: "2",
      HERMES_GATEWAY_OWNERSHIP_CHECK_SECONDS: "0.2",
      // The killed owner may die holding the chat's session lease (its turn was just ending).
      HERMES_GATEWAY_SESSION_LEASE_SECONDS: "3",
    };
    const homes = [tempDir("hermes-tg-a-"), tempDir("hermes-tg-b-")];
    for (const home of homes) {
      writeFileSync(
        join(home, "config.yaml"),
        `model:\n  default: m\n  provider: custom\n  base_url: ${model.url}/v1\nstore:\n  backend: postgres\n  postgres_url: ${url}\n`,
      );
    }
    const children = homes.map((home) => startGateway(home, env));
    // Replies stream into a preview that is edited: what counts is the text the chat shows.
    const shown = (text: string) => telegram.messages.filter((m) => m.text === `answer to ${text}`).length;
    const answered = (text: string) => until(() => shown(text) > 0, `the answer to "${text}"`, 60_000);
    try {
      const health = () => homes.map((home) => readProcessState(home)?.platforms.telegram?.state);
      await until(() => health().every((state) => state !== undefined), "both gateways to report", 60_000);
      assert.deepEqual(health().sort(), ["connected", "standby"]);
      telegram.userMessage({ text: "before" });
      await answered("before");

      const owner = health().indexOf("connected");
      const killedAt = performance.now();
      children[owner]!.kill("SIGKILL");
      await once(children[owner]!, "exit");
      const poll = await telegram.waitForCall((call) => call.method === "getUpdates" && call.atHr > killedAt, 60_000);
      telegram.userMessage({ text: "after" });
      await answered("after");
      assert.equal(telegram.conflicts, 0, "never two pollers at once");
      assert.ok(poll.atHr - killedAt < 30_000);
      assert.deepEqual([shown("before"), shown("after")], [1, 1]);
    } finally {
      await Promise.all(
        children
          .filter((child) => child.exitCode === null && child.signalCode === null)
          .map((child) => {
            const exited = once(child, "exit");
            child.kill("SIGTERM");
            return exited;
          }),
      );
      await telegram.close();
      await model.close();
    }
  });
}
