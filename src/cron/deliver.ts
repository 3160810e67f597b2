/**
 * Where a job's output goes, recorded in the gateway's delivery ledger: the gateway sends it
 * (now, or when it next starts) with the ledger's retries, so a delivery is never reported sent
 * before a platform accepted it. Targets: `local` (the output file only), `origin` (the chat the
 * job was made in), `all` (every home channel), a platform (its home channel) or
 * `platform:chat[:thread]`; comma lists, de-duplicated (the rules live in state/delivery-targets.ts,
 * which the send_message tool follows too).
 */
import { randomUUID } from "node:crypto";
import type { CronDeliveryResult, CronJob } from "../state/cron-store.js";
import { addressKey, deliveryTargets, resolveDeliveryTarget } from "../state/delivery-targets.js";
import type { GatewayStore } from "../state/gateway-store.js";

/** Where a delivered message is also written (the gateway's `DeliveryBody.mirror`). */
export interface DeliveryMirror {
  sessionKey: string;
  text: string;
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
    const resolved = await resolveDeliveryTarget(target, {
      origin: job.origin,
      noOrigin: "the job was not made from a chat, so it has no origin",
      store,
      homeFromConfig,
    });
    if (typeof resolved === "string") {
      results.push({ target, state: "failed", error: resolved });
      continue;
    }
    for (const address of resolved) {
      const key = addressKey(address);
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
