/**
 * Where a job's output goes, recorded in the gateway's delivery ledger: the gateway sends it
 * (now, or when it next starts) with the ledger's retries, so a delivery is never reported sent
 * before a platform accepted it. Targets: `local` (the output file only), `origin` (the chat the
 * job was made in), `all` (every home channel), a platform (its home channel) or
 * `platform:chat[:thread]`; comma lists, de-duplicated.
 */
import { randomUUID } from "node:crypto";
import type { CronDeliveryResult, CronJob } from "../state/cron-store.js";
import type { GatewayStore } from "../state/gateway-store.js";

/** Where a delivered message is also written (the gateway's `DeliveryBody.mirror`). */
export interface DeliveryMirror {
  sessionKey: string;
  text: string;
}

interface Address {
  platform: string;
  chatId: string;
  threadId: string | null;
}

/** Platforms a home channel may be set for (the ones `all` looks at). */
const KNOWN_PLATFORMS = ["telegram", "discord", "slack", "email", "signal", "matrix", "whatsapp", "mattermost", "test"];

async function resolveTarget(
  target: string,
  job: CronJob,
  store: GatewayStore,
  homeFromConfig: (platform: string) => string | undefined,
): Promise<Address[] | string> {
  if (target === "origin") {
    if (!job.origin) return "the job was not made from a chat, so it has no origin";
    return [{ platform: job.origin.platform, chatId: job.origin.chatId, threadId: job.origin.threadId ?? null }];
  }
  if (target === "all") {
    const homes: Address[] = [];
    for (const platform of KNOWN_PLATFORMS) {
      const home = await homeOf(platform, store, homeFromConfig);
      if (home) homes.push(home);
    }
    return homes.length ? homes : "no platform has a home channel (send /sethome in a chat)";
  }
  const [platform, chatId, threadId] = target.split(":");
  if (!platform) return `"${target}" is not a delivery target`;
  if (chatId) return [{ platform, chatId, threadId: threadId ?? null }];
  const home = await homeOf(platform, store, homeFromConfig);
  return home ? [home] : `${platform} has no home channel (send /sethome there)`;
}

async function homeOf(
  platform: string,
  store: GatewayStore,
  homeFromConfig: (platform: string) => string | undefined,
): Promise<Address | undefined> {
  const home = await store.homeChannel(platform);
  if (home) return { platform, chatId: home.chatId, threadId: home.threadId };
  const configured = homeFromConfig(platform);
  return configured ? { platform, chatId: configured, threadId: null } : undefined;
}

/** Splits `deliver` into targets, without repeats (`local` means none). */
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

/**
 * `mirror`: what the job's own chat keeps of the delivery in its transcript (`cron.mirror_delivery`).
 * Only the `origin` target carries it: a broadcast or another chat is never made part of a
 * conversation.
 */
export async function queueDeliveries(
  job: CronJob,
  deliver: string,
  text: string,
  store: GatewayStore,
  homeFromConfig: (platform: string) => string | undefined = () => undefined,
  mirror?: DeliveryMirror,
): Promise<CronDeliveryResult[]> {
  const results: CronDeliveryResult[] = [];
  const seen = new Set<string>();
  for (const target of deliveryTargets(deliver)) {
    const resolved = await resolveTarget(target, job, store, homeFromConfig);
    if (typeof resolved === "string") {
      results.push({ target, state: "failed", error: resolved });
      continue;
    }
    for (const address of resolved) {
      const key = `${address.platform}:${address.chatId}${address.threadId ? `:${address.threadId}` : ""}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const id = randomUUID();
      await store.recordDelivery({
        id,
        platform: address.platform,
        chatId: address.chatId,
        threadId: address.threadId,
        sessionKey: `cron:${job.id}`,
        body: mirror && target === "origin" ? { text, mirror } : { text },
        idempotencyKey: `hermes-cron-${id}`,
      });
      results.push({ target: key, state: "queued" });
    }
  }
  return results;
}
