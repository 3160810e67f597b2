/**
 * How a delivery target names the chats a message goes to, shared by cron job output and the
 * agent's `send_message` tool: `origin` (the chat the request came from), `all` (every home
 * channel), a platform name (its home channel) or `platform:chat[:thread]`. A home channel is the
 * one `/sethome` stored, else the one config.yaml or the environment names.
 */
import type { GatewayStore } from "./gateway-store.js";

export interface DeliveryAddress {
  platform: string;
  chatId: string;
  threadId: string | null;
}

/** Platforms a home channel may be set for (the ones `all` looks at). */
export const HOME_CHANNEL_PLATFORMS: readonly string[] = [
  "telegram",
  "discord",
  "slack",
  "email",
  "signal",
  "matrix",
  "whatsapp",
  "mattermost",
  "test",
];

export interface TargetContext {
  /** What `origin` means here; without it `origin` is refused with `noOrigin`. */
  origin?: { platform: string; chatId: string; threadId?: string | null } | null;
  /** Why there is no origin, in words the caller's user understands. */
  noOrigin: string;
  store: Pick<GatewayStore, "homeChannel">;
  /** The home channel config.yaml or the environment gives a platform (see home-channel.ts). */
  homeFromConfig: (platform: string) => string | undefined;
}

/** `platform:chat[:thread]` of an address, the form a target names it by. */
export function addressKey(address: DeliveryAddress): string {
  return `${address.platform}:${address.chatId}${address.threadId ? `:${address.threadId}` : ""}`;
}

/** What to do about a platform with no home channel. */
export function noHomeChannel(platform: string): string {
  const variable = `${platform.toUpperCase().replaceAll(/[^A-Z0-9]/g, "_")}_HOME_CHANNEL`;
  return (
    `${platform} has no home channel: send /sethome in the ${platform} chat that should be it, or set ` +
    `platforms.${platform}.home_channel in config.yaml (or ${variable} in .env)`
  );
}

/** Splits a comma list of targets, without repeats (`local` means none). */
export function deliveryTargets(deliver: string): string[] {
  return [
    ...new Set(
      deliver
        .split(",")
        .map((t) => t.trim())
        .filter((t) => t && t !== "local"),
    ),
  ];
}

/** The home channel of `platform`: `/sethome` first, then config.yaml and the environment. */
export async function homeChannelOf(
  platform: string,
  store: Pick<GatewayStore, "homeChannel">,
  homeFromConfig: (platform: string) => string | undefined,
): Promise<DeliveryAddress | undefined> {
  const home = await store.homeChannel(platform);
  if (home) return { platform, chatId: home.chatId, threadId: home.threadId };
  const configured = homeFromConfig(platform);
  return configured ? { platform, chatId: configured, threadId: null } : undefined;
}

/** The chats one target names, or why it names none. */
export async function resolveDeliveryTarget(
  target: string,
  context: TargetContext,
): Promise<DeliveryAddress[] | string> {
  const { store, homeFromConfig } = context;
  if (target === "origin") {
    const origin = context.origin;
    if (!origin) return context.noOrigin;
    return [{ platform: origin.platform, chatId: origin.chatId, threadId: origin.threadId ?? null }];
  }
  if (target === "all") {
    const homes: DeliveryAddress[] = [];
    for (const platform of HOME_CHANNEL_PLATFORMS) {
      const home = await homeChannelOf(platform, store, homeFromConfig);
      if (home) homes.push(home);
    }
    return homes.length ? homes : "no platform has a home channel (send /sethome in a chat)";
  }
  const [platform, chatId, threadId] = target.split(":");
  if (!platform) return `"${target}" is not a delivery target`;
  if (chatId) return [{ platform, chatId, threadId: threadId ?? null }];
  const home = await homeChannelOf(platform, store, homeFromConfig);
  return home ? [home] : noHomeChannel(platform);
}
