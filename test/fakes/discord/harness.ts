/**
 * A real gateway with the Discord adapter (real discord.js) connected to a fake Discord. The
 * adapter is built the way `hermes gateway` builds it: from config.yaml and the environment
 * through the platform module.
 */

import { createAdapter } from "../../../src/gateway/adapters/discord/platform.js";
import type { PlatformAdapter } from "../../../src/gateway/types.js";
import { loadConfig } from "../../../src/state/config.js";
import type { FakeProviderOptions } from "../../fake-provider/types.js";
import { type GatewayHarness, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { type FakeDiscord, type FakeUser, startFakeDiscord } from "./server.js";
import { snowflake } from "./state.js";

export interface DiscordGateway {
  gw: GatewayHarness;
  fake: FakeDiscord;
  /** A user on the allowlist. */
  alice: FakeUser;
  adapter(): PlatformAdapter;
  /** What the adapter logged. */
  logs: string[];
  close(): Promise<void>;
}

export async function startDiscordGateway(
  options: {
    /** Extra config.yaml lines; a function gets the fake, to name its channels. */
    config?: string | ((fake: FakeDiscord) => string);
    provider?: FakeProviderOptions;
    /** Extra environment; a function gets the fake, to name its roles. */
    env?: Record<string, string> | ((fake: FakeDiscord) => Record<string, string>);
  } = {},
): Promise<DiscordGateway> {
  const fake = await startFakeDiscord();
  const alice: FakeUser = { id: snowflake(), username: "alice" };
  const home = tempDir("hermes-discord-");
  const env = {
    TEST_ALLOWED_USERS: "user-1",
    DISCORD_ALLOWED_USERS: alice.id,
    DISCORD_BOT_TOKEN: fake.token,
    DISCORD_API_ROOT: fake.apiRoot,
    ...(typeof options.env === "function" ? options.env(fake) : options.env),
  };
  let current: PlatformAdapter | undefined;
  const logs: string[] = [];
  try {
    const gw = await startGateway({
      home,
      env,
      ...(options.config
        ? { config: typeof options.config === "function" ? options.config(fake) : options.config }
        : {}),
      ...(options.provider ? { provider: options.provider } : {}),
      extraAdapters: () => {
        const { config } = loadConfig({ home });
        current = createAdapter({ config, env, home, log: (line) => logs.push(line) }) as PlatformAdapter;
        return [current];
      },
    });
    await fake.gateway.untilLive();
    return {
      gw,
      fake,
      alice,
      adapter: () => current as PlatformAdapter,
      logs,
      async close() {
        await gw.close();
        await fake.close();
      },
    };
  } catch (error) {
    await fake.close();
    throw error;
  }
}
