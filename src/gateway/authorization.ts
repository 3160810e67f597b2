/**
 * Who may talk to the agent, checked in the original's order: the platform's allow-all flag,
 * its user allowlist and group allowlist, users approved through DM pairing, then the
 * gateway-wide allowlist and allow-all flag, and last what the platform's adapter vouches for (a
 * Discord role, an admitted bot). Everyone else is refused: a direct message may get
 * a pairing code (or nothing, as configured); group chatter from strangers is ignored.
 */
import { randomInt } from "node:crypto";
import type { GatewayStore, PairingLimits, PairingRequest } from "../state/gateway-store.js";
import type { GatewaySettings } from "./settings.js";
import type { InboundMessage } from "./types.js";

export type AuthDecision =
  | { allowed: true; admin: boolean; via: string }
  | { allowed: false; action: "pair" | "ignore"; why: string };

/** Codes avoid 0/O and 1/I, which are easy to misread when typed from a screen. */
export const PAIRING_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
export const PAIRING_CODE_LENGTH = 8;
export const PAIRING_LIMITS: PairingLimits = {
  ttlMs: 60 * 60_000,
  perUserIntervalMs: 600_000,
  maxPendingPerPlatform: 3,
};

export function newPairingCode(): string {
  let code = "";
  for (let i = 0; i < PAIRING_CODE_LENGTH; i++) code += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return code;
}

function listed(list: Set<string>, message: InboundMessage): boolean {
  return list.has(message.userId) || (message.userName !== undefined && list.has(message.userName));
}

export async function authorize(
  message: InboundMessage,
  settings: GatewaySettings,
  store: GatewayStore,
  vouch?: (message: InboundMessage) => Promise<string | undefined>,
): Promise<AuthDecision> {
  const approved = await store.approvedUser(message.platform, message.userId);
  const admin = approved?.admin ?? false;
  const access = settings.access(message.platform);
  if (access.allowAll) return { allowed: true, admin, via: "platform allow-all" };
  if (listed(access.allowedUsers, message)) return { allowed: true, admin, via: "platform allowlist" };
  if (message.chatType !== "dm" && access.allowedGroups.has(message.chatId)) {
    return { allowed: true, admin, via: "group allowlist" };
  }
  if (approved) return { allowed: true, admin, via: "pairing" };
  if (listed(settings.allowedUsers, message)) return { allowed: true, admin, via: "gateway allowlist" };
  if (settings.allowAllUsers) return { allowed: true, admin, via: "gateway allow-all" };
  const vouched = await vouch?.(message);
  if (vouched) return { allowed: true, admin, via: vouched };
  if (message.chatType !== "dm") return { allowed: false, action: "ignore", why: "not allowed in this group" };
  return { allowed: false, action: settings.unauthorizedDm, why: "not an allowed user" };
}

/**
 * A pairing code for an unknown user's DM, or undefined when the limits say no (one code per
 * user per ten minutes, three waiting per platform): those messages get no reply, so a stranger
 * cannot make the bot talk by sending more.
 */
export async function requestPairing(
  message: InboundMessage,
  store: GatewayStore,
): Promise<PairingRequest | undefined> {
  const result = await store.createPairingRequest(
    {
      platform: message.platform,
      code: newPairingCode(),
      userId: message.userId,
      userName: message.userName ?? null,
      chatId: message.chatId,
      createdAt: 0,
      expiresAt: 0,
    },
    PAIRING_LIMITS,
  );
  return result.created ? result.request : undefined;
}

export function pairingReply(request: PairingRequest): string {
  return [
    "I only talk to people my owner has approved.",
    `Your pairing code is ${request.code} (valid for one hour).`,
    `Ask the owner to run: hermes pairing approve ${request.platform} ${request.code}`,
  ].join("\n");
}
