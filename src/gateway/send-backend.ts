/**
 * What `send_message` sends through. A target is resolved with cron's rules
 * (state/delivery-targets.ts), only to platforms that are set up, and the text is split the way
 * replies are. In the gateway process each part goes out at once through the running delivery
 * queue, so the tool can say it was sent, or why the first attempt failed. In any other process
 * (the terminal) the parts are recorded in the delivery ledger, which the gateway's sweep sends
 * within seconds, or when it next starts (within 24 hours).
 */
import { randomUUID } from "node:crypto";
import type { HermesConfig } from "../state/config-schema.js";
import {
  addressKey,
  type DeliveryAddress,
  homeChannelOf,
  noHomeChannel,
  resolveDeliveryTarget,
} from "../state/delivery-targets.js";
import type { GatewayStore, RecentChat } from "../state/gateway-store.js";
import { configuredHomeChannel } from "../state/home-channel.js";
import type { SessionStore } from "../state/session-store.js";
import type {
  SendMessageBackend,
  SendMessageOrigin,
  SendOutcome,
  SentDelivery,
} from "../tools/builtin/send-message.js";
import type { DeliveryQueue } from "./delivery.js";
import { catalogEntry, type Env, messagingPlatforms } from "./platform-catalog.js";
import { processAlive, readProcessState } from "./process-state.js";
import type { GatewayRunner } from "./runner.js";
import { splitMessage } from "./split-message.js";

/** Longest message per platform, as their adapters take them, for splitting outside the gateway. */
const MESSAGE_LIMITS: Record<string, number> = { telegram: 4096, discord: 2000, slack: 3900, email: 50_000 };
const DEFAULT_MESSAGE_LIMIT = 4000;
const RECENT_CHATS = 20;

export interface SendBackendOptions {
  store: GatewayStore;
  config: HermesConfig;
  home: string;
  env?: Env;
  /** The gateway's running delivery queue: parts are sent at once. Without it they wait in the ledger. */
  deliveries?: DeliveryQueue;
  /** Platforms that may be addressed (the gateway: those it runs). Default: those config and the environment turn on. */
  platforms?: () => readonly string[];
  /** The longest message a platform takes (the gateway: its adapter's). */
  messageLimit?: (platform: string) => number | undefined;
  /** The sessions, to name recent chats by their conversation's title. */
  sessions?: Pick<SessionStore, "getSession">;
  close?: () => void;
}

function notSetUp(platform: string, allowed: readonly string[]): string {
  const setUp = allowed.length ? `set up: ${allowed.join(", ")}` : "no platform is set up";
  const known = catalogEntry(platform) !== undefined;
  return known
    ? `${platform} is not set up (${setUp}): run hermes gateway setup ${platform}, then (re)start the gateway`
    : `"${platform}" is not a messaging platform here (${setUp}); hermes gateway setup lists the platforms`;
}

/** "agent:main:<platform>:<chat type>:..." → the chat type. */
const chatTypeOf = (sessionKey: string | null) => sessionKey?.split(":")[3];

export function sendMessageBackend(options: SendBackendOptions): SendMessageBackend {
  const { store, config, home } = options;
  const env = options.env ?? process.env;
  const platforms = options.platforms ?? (() => messagingPlatforms(config, env));
  const homeFromConfig = (platform: string) => configuredHomeChannel(config, platform, env);
  const limitOf = (platform: string) =>
    options.messageLimit?.(platform) ?? MESSAGE_LIMITS[platform] ?? DEFAULT_MESSAGE_LIMIT;

  const gatewayRunning = (): boolean | undefined => {
    if (options.deliveries) return undefined;
    const state = readProcessState(home);
    return state !== undefined && processAlive(state.pid);
  };

  const title = async (chat: RecentChat): Promise<string | undefined> => {
    if (!chat.sessionKey || !options.sessions) return undefined;
    const route = await store.sessionRoute(chat.sessionKey);
    const session = route ? await options.sessions.getSession(route.sessionId) : null;
    return session?.title ?? undefined;
  };

  const deliverTo = async (address: DeliveryAddress, text: string): Promise<SentDelivery> => {
    const parts = splitMessage(text, limitOf(address.platform));
    const result: SentDelivery = { target: addressKey(address), deliveryIds: [], status: "sent" };
    for (const [index, part] of parts.entries()) {
      if (!options.deliveries) {
        const id = randomUUID();
        await store.recordDelivery({ id, ...address, body: { text: part }, idempotencyKey: `hermes-send-${id}` });
        result.deliveryIds.push(id);
        result.status = "queued";
        continue;
      }
      const outcome = await options.deliveries.deliver({ ...address, text: part, retryLater: true });
      result.deliveryIds.push(outcome.record.id);
      if (outcome.state === "failed") {
        const rest = parts.length - index - 1;
        result.status = "failed";
        result.error = rest ? `${outcome.error} (the other ${rest} part(s) were not sent)` : outcome.error;
        break;
      }
      if (outcome.state === "pending") {
        result.status = "retrying";
        result.error = `${outcome.error}; the gateway tries again`;
      }
    }
    return result;
  };

  return {
    available: () => platforms().length > 0,

    async list(origin: SendMessageOrigin | null) {
      const allowed = platforms();
      const homes = [];
      for (const platform of allowed) {
        const homeChannel = await homeChannelOf(platform, store, homeFromConfig);
        homes.push({
          platform,
          home_channel: homeChannel ? addressKey(homeChannel) : null,
          ...(homeChannel ? {} : { how_to_set: noHomeChannel(platform) }),
        });
      }
      const recent = [];
      for (const chat of await store.recentChats(RECENT_CHATS * 2)) {
        // An id with a colon cannot be written as a target.
        if (!allowed.includes(chat.platform) || `${chat.chatId}${chat.threadId ?? ""}`.includes(":")) continue;
        if (recent.length >= RECENT_CHATS) break;
        const own = origin?.platform === chat.platform && origin.chatId === chat.chatId;
        // A chat user is not shown what other conversations are about; the terminal's owner is.
        const name = origin && !own ? undefined : await title(chat);
        const type = chatTypeOf(chat.sessionKey);
        recent.push({
          target: addressKey(chat),
          platform: chat.platform,
          chat_id: chat.chatId,
          ...(chat.threadId ? { thread_id: chat.threadId } : {}),
          ...(type ? { chat_type: type } : {}),
          ...(name ? { name } : {}),
          last_message_at: new Date(chat.lastSentAt).toISOString(),
        });
      }
      const running = gatewayRunning();
      return {
        platforms: homes,
        recent_chats: recent,
        ...(origin ? { this_chat: addressKey({ ...origin, threadId: origin.threadId ?? null }) } : {}),
        ...(running !== undefined ? { gateway_running: running } : {}),
      };
    },

    async send({ target, text, origin }): Promise<SendOutcome> {
      const allowed = platforms();
      const named = target === "origin" || target === "all" ? undefined : target.split(":")[0];
      if (named !== undefined && !allowed.includes(named)) throw new Error(notSetUp(named, allowed));
      const resolved = await resolveDeliveryTarget(target, {
        origin,
        noOrigin:
          "origin is the chat this conversation is in, and there is none here; name a platform or platform:chat_id",
        store,
        homeFromConfig,
      });
      if (typeof resolved === "string") throw new Error(resolved);
      const seen = new Set<string>();
      const addresses = resolved.filter((address) => {
        const key = addressKey(address);
        if (!allowed.includes(address.platform) || seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const [first] = resolved;
      if (addresses.length === 0 || !first) {
        throw new Error(
          target === "all" || !first
            ? "no platform that is set up has a home channel; action list says how to set one"
            : notSetUp(first.platform, allowed),
        );
      }
      const deliveries: SentDelivery[] = [];
      for (const address of addresses) deliveries.push(await deliverTo(address, text));
      const running = gatewayRunning();
      if (running === undefined) return { deliveries };
      return {
        deliveries,
        gatewayRunning: running,
        note: running
          ? "the running gateway sends it within seconds"
          : "no gateway is running: it is sent when one starts (hermes gateway run, or hermes gateway start) within 24 hours",
      };
    },

    close: options.close,
  };
}

/** The gateway process's backend: its platforms, its adapters' limits, sends through its ledger at once. */
export function gatewaySendBackend(runner: GatewayRunner): SendMessageBackend {
  const { runtime } = runner;
  return sendMessageBackend({
    store: runner.store,
    config: runtime.config,
    home: runtime.home,
    deliveries: runner.deliveries,
    platforms: () => runner.platforms().filter((platform) => platform !== "webhook"),
    messageLimit: (platform) => runner.adapter(platform)?.maxMessageLength,
    sessions: runtime.store,
  });
}

/** The terminal's backend: the gateway store opens here, on the tool's first call. */
export async function openLedgerSendBackend(input: {
  storeLocation: string;
  config: HermesConfig;
  home: string;
  sessions?: Pick<SessionStore, "getSession">;
  env?: Env;
}): Promise<SendMessageBackend> {
  const { openGatewayStore } = await import("../state/gateway-store.js");
  const store = await openGatewayStore(input.storeLocation);
  return sendMessageBackend({ ...input, store, close: () => store.close() });
}
