/** How the adapter's REST clients talk to Discord, and the nonce that makes a repeated send harmless. */
import { createHash } from "node:crypto";
import type { RESTOptions } from "discord.js";

export function restOptions(options: {
  apiRoot?: string;
  maxInlineRateLimitMs?: number;
  requestTimeoutMs?: number;
}): Partial<RESTOptions> {
  const maxWait = options.maxInlineRateLimitMs ?? 10_000;
  return {
    ...(options.apiRoot ? { api: options.apiRoot } : {}),
    // The core's delivery ledger retries failed sends with backoff; the client does not add its own.
    retries: 0,
    timeout: options.requestTimeoutMs ?? 15_000,
    rejectOnRateLimit: (limit) => Math.max(limit.retryAfter, limit.timeToReset) > maxWait,
  };
}

/** Discord keeps a nonce for a few minutes and, with `enforce_nonce`, answers a repeat with the first message. */
export function nonceOf(idempotencyKey: string | undefined): { nonce: string; enforce_nonce: true } | undefined {
  if (!idempotencyKey) return undefined;
  return { nonce: createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 25), enforce_nonce: true };
}
