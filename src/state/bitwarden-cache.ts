/**
 * The Bitwarden secrets of the last fetch, kept for `secrets.bitwarden.cache_ttl_seconds` so a
 * one-shot run does not call bws each time.
 *
 * One file, `$HERMES_HOME/cache/bitwarden-secrets.json` (mode 0600, written atomically). The
 * secrets in it are encrypted with AES-256-GCM under a key derived (HKDF-SHA256, fresh salt per
 * write) from the access token, so the file is useless to whoever lacks the token. It names the
 * (token, project id, server URL) it was fetched for by a hash; changing any of them misses the
 * cache and the next fetch replaces the file. The time of the fetch is authenticated too, so
 * editing it cannot stretch the file's life.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { atomicWriteFile } from "../util/atomic-write.js";
import { nodeCrypto } from "../util/node-crypto.js";

export interface CachedSecret {
  key: string;
  value: string;
}

export interface BitwardenCacheKey {
  token: string;
  projectId: string;
  serverUrl: string;
}

interface CacheFile {
  version: 1;
  id: string;
  fetchedAt: number;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

const KEY_INFO = "hermes bitwarden secrets cache v1";

export function bitwardenCachePath(home: string): string {
  return join(home, "cache", "bitwarden-secrets.json");
}

function cacheId(key: BitwardenCacheKey): string {
  const material = JSON.stringify(["hermes bitwarden cache id", key.token, key.projectId, key.serverUrl]);
  return nodeCrypto().createHash("sha256").update(material).digest("hex");
}

function encryptionKey(token: string, salt: Buffer): Buffer {
  return Buffer.from(nodeCrypto().hkdfSync("sha256", token, salt, KEY_INFO, 32));
}

function isCacheFile(value: unknown): value is CacheFile {
  if (value === null || typeof value !== "object") return false;
  const file = value as Record<string, unknown>;
  return (
    file.version === 1 &&
    typeof file.fetchedAt === "number" &&
    ["id", "salt", "iv", "tag", "data"].every((field) => typeof file[field] === "string")
  );
}

function isSecretList(value: unknown): value is CachedSecret[] {
  return (
    Array.isArray(value) && value.every((item) => typeof item?.key === "string" && typeof item?.value === "string")
  );
}

/** The cached secrets for `key` if fetched less than `ttlSeconds` ago; undefined on any miss. */
export function readBitwardenCache(
  home: string,
  key: BitwardenCacheKey,
  ttlSeconds: number,
  now = Date.now(),
): CachedSecret[] | undefined {
  const path = bitwardenCachePath(home);
  if (ttlSeconds <= 0 || !existsSync(path)) return undefined;
  try {
    const file: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (!isCacheFile(file) || file.id !== cacheId(key)) return undefined;
    const age = now - file.fetchedAt;
    if (age < 0 || age >= ttlSeconds * 1000) return undefined;
    const crypto = nodeCrypto();
    const decipher = crypto.createDecipheriv(
      "aes-256-gcm",
      encryptionKey(key.token, Buffer.from(file.salt, "base64")),
      Buffer.from(file.iv, "base64"),
    );
    decipher.setAAD(Buffer.from(`${file.id}:${file.fetchedAt}`));
    decipher.setAuthTag(Buffer.from(file.tag, "base64"));
    const plain = Buffer.concat([decipher.update(Buffer.from(file.data, "base64")), decipher.final()]);
    const secrets: unknown = JSON.parse(plain.toString("utf8"));
    return isSecretList(secrets) ? secrets : undefined;
  } catch {
    // Unreadable, tampered with or from another token: as good as absent; the next fetch replaces it.
    return undefined;
  }
}

export function writeBitwardenCache(
  home: string,
  key: BitwardenCacheKey,
  secrets: readonly CachedSecret[],
  now = Date.now(),
): void {
  const crypto = nodeCrypto();
  const id = cacheId(key);
  const salt = crypto.randomBytes(16);
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", encryptionKey(key.token, salt), iv);
  cipher.setAAD(Buffer.from(`${id}:${now}`));
  const plain = JSON.stringify(secrets.map(({ key: name, value }) => ({ key: name, value })));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const file: CacheFile = {
    version: 1,
    id,
    fetchedAt: now,
    salt: salt.toString("base64"),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
  atomicWriteFile(bitwardenCachePath(home), `${JSON.stringify(file)}\n`, { mode: 0o600 });
}

/** With caching off (`cache_ttl_seconds: 0`) no earlier file is left behind. */
export function removeBitwardenCache(home: string): void {
  rmSync(bitwardenCachePath(home), { force: true });
}
