/**
 * A real gateway with the Telegram platform enabled the way a user enables it (a token and an
 * API root in the environment), talking through grammY to a fake Bot API.
 */
import { createTelegramAdapter } from "../../../src/gateway/adapters/telegram/platform.js";
import { loadConfig } from "../../../src/state/config.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { ALICE, FakeTelegram } from "./server.js";

export interface TelegramGateway {
  gw: GatewayHarness;
  telegram: FakeTelegram;
  /** What the adapter logged. */
  adapterLogs: string[];
  close(): Promise<void>;
}

export async function startTelegramGateway(
  options: GatewayHarnessOptions & {
    telegram?: FakeTelegram;
    pollTimeoutSeconds?: number;
    /** More TELEGRAM_* settings (webhook mode). */
    platformEnv?: Record<string, string>;
  } = {},
): Promise<TelegramGateway> {
  const telegram = options.telegram ?? (await FakeTelegram.start());
  const home = options.home ?? tempDir("hermes-telegram-");
  const platformEnv = {
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.url,
    TELEGRAM_POLL_TIMEOUT: String(options.pollTimeoutSeconds ?? 20),
    ...options.platformEnv,
  };
  const adapterLogs: string[] = [];
  const gw = await startGateway({
    ...options,
    home,
    env: options.env ?? { TELEGRAM_ALLOWED_USERS: String(ALICE.id) },
    extraAdapters: () => [
      createTelegramAdapter({
        // The config.yaml the harness wrote, as the gateway itself would read it.
        config: loadConfig({ home }).config,
        env: platformEnv,
        home,
        log: (line) => adapterLogs.push(line),
      }),
    ],
  }).catch(async (error: unknown) => {
    if (!options.telegram) await telegram.close();
    throw error;
  });
  return {
    gw,
    telegram,
    adapterLogs,
    async close() {
      await gw.close();
      if (!options.telegram) await telegram.close();
    },
  };
}
