/**
 * Bearer-key checks in constant time. Keys are compared as SHA-256 digests, so neither a key's
 * length nor the position of the first wrong byte shows in the timing, and every configured key
 * is compared on every request. Each key has a namespace (a digest prefix) that scopes the
 * sessions, responses and runs it creates.
 */
import { createHash, timingSafeEqual } from "node:crypto";

export interface KeyRing {
  /** The namespace of the key the header carries, or undefined when it carries none we accept. */
  authenticate(authorization: string | undefined): string | undefined;
  /** More than one key is configured: namespaces then separate what each key sees. */
  readonly shared: boolean;
}

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

export function namespaceFor(key: string): string {
  return `k${digest(`hermes-api-namespace:${key}`).toString("hex").slice(0, 16)}`;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match?.[1];
}

export function createKeyRing(keys: readonly string[]): KeyRing {
  const entries = keys.map((key) => ({ digest: digest(key), namespace: namespaceFor(key) }));
  return {
    shared: entries.length > 1,
    authenticate(authorization) {
      const token = bearerToken(authorization);
      const presented = digest(token ?? "");
      let found: string | undefined;
      for (const entry of entries) {
        // No early exit: the time taken does not say which key matched.
        if (timingSafeEqual(presented, entry.digest) && token !== undefined) found ??= entry.namespace;
      }
      return found;
    },
  };
}
