/**
 * A real gateway whose Mattermost adapter talks to a fake Mattermost on loopback, plus helpers
 * to play its users: a direct message, a channel post that mentions the bot, a thread reply.
 */

import { MattermostAdapter, type MattermostAdapterOptions } from "../../../src/gateway/adapters/mattermost/adapter.js";
import { STREAM_CURSOR } from "../../../src/gateway/reply-stream.js";
import { type GatewayHarness, type GatewayHarnessOptions, startGateway } from "../../gateway/harness.js";
import { tempDir } from "../../state/temp-dir.js";
import { type FakeMattermost, startFakeMattermost } from "./server.js";
import type { FakeChannel, FakePost, FakeUser } from "./state.js";

export interface MattermostWorld {
  alice: FakeUser;
  stranger: FakeUser;
  otherBot: FakeUser;
  /** Alice's direct message channel with the bot. */
  dm: FakeChannel;
  town: FakeChannel;
  /** A second public channel, for free-response and allowlist tests. */
  lounge: FakeChannel;
}

export interface MattermostGateway {
  gw: GatewayHarness;
  mm: FakeMattermost;
  world: MattermostWorld;
  adapters: MattermostAdapter[];
  close(): Promise<void>;
}

export function buildWorld(mm: FakeMattermost): MattermostWorld {
  const alice = mm.state.addUser("alice");
  const stranger = mm.state.addUser("mallory");
  const otherBot = mm.state.addUser("otherbot", true);
  return {
    alice,
    stranger,
    otherBot,
    dm: mm.state.addChannel("D", `${mm.bot.id}__${alice.id}`, ""),
    town: mm.state.addChannel("O", "town-square", "Town Square"),
    lounge: mm.state.addChannel("O", "lounge", "Lounge"),
  };
}

export async function startMattermostGateway(
  options: Omit<GatewayHarnessOptions, "adapter"> & {
    adapter?: Partial<MattermostAdapterOptions>;
    /** Channel rules, given the world's channels (defaults: mention required, no lists). */
    rules?: (world: MattermostWorld) => Partial<MattermostAdapterOptions["rules"]>;
    /** More config.yaml lines that name the world's ids (channel prompts). */
    worldConfig?: (world: MattermostWorld) => string;
    /** Wait for the WebSocket before returning (default true). */
    waitForConnection?: boolean;
  } = {},
): Promise<MattermostGateway> {
  const { adapter: adapterOptions, rules, worldConfig, waitForConnection, ...harness } = options;
  const mm = await startFakeMattermost();
  const world = buildWorld(mm);
  const adapters: MattermostAdapter[] = [];
  const home = options.home ?? tempDir("hermes-mattermost-");
  let gw: GatewayHarness;
  try {
    gw = await startGateway({
      ...harness,
      config: `${options.config ?? ""}${worldConfig?.(world) ?? ""}`,
      home,
      env: options.env ?? { TEST_ALLOWED_USERS: "user-1", MATTERMOST_ALLOWED_USERS: world.alice.id },
      extraAdapters: () => {
        const adapter = new MattermostAdapter({
          serverUrl: mm.url,
          token: mm.state.token,
          home,
          log: () => undefined,
          ...adapterOptions,
          rules: {
            requireMention: true,
            freeResponseChannels: new Set(),
            allowedChannels: new Set(),
            replyInThreads: true,
            ...rules?.(world),
          },
        });
        adapters.push(adapter);
        return [adapter];
      },
    });
  } catch (error) {
    await mm.close();
    throw error;
  }
  if (waitForConnection !== false) await mm.waitFor(() => mm.connected, "the WebSocket connection");
  return {
    gw,
    mm,
    world,
    adapters,
    async close() {
      await gw.close();
      await mm.close();
    },
  };
}

/** Alice (or `user`) writes to the bot directly. */
export function dm(mm: FakeMattermost, world: MattermostWorld, text: string, user = world.alice): FakePost {
  return mm.userPost(user, world.dm, text);
}

/** A channel post that mentions the bot as people write it: `@hermes ...`. */
export function mention(
  mm: FakeMattermost,
  channel: FakeChannel,
  user: FakeUser,
  text: string,
  rootId?: string,
): FakePost {
  return mm.userPost(user, channel, `@${mm.bot.username} ${text}`, rootId ? { root_id: rootId } : {});
}

/** The bot's posts in a channel as they read now, streaming previews left out. */
export function finished(mm: FakeMattermost, channel: FakeChannel): FakePost[] {
  return mm.state.visible(channel.id).filter((p) => !p.message.endsWith(STREAM_CURSOR));
}

/** Polls a condition the fake cannot see (gateway logs, adapter state) until it holds. */
export async function until(test: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
