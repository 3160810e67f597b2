/**
 * auth.json: pooled credentials per provider (plus any other sections, kept as they are).
 *
 * Several processes (the CLI, the gateway, cron jobs) share the file, so every write happens
 * under a lock file and replaces the file atomically with mode 0600. A file that cannot be
 * parsed is reported and left alone: overwriting it could destroy the user's only copy of a
 * token. Credentials seeded from environment variables are never written.
 */
import { readFileSync } from "node:fs";
import { atomicWriteFile } from "../util/atomic-write.js";
import type { CredentialRecord } from "../util/credential-record.js";
import { isEnvSeeded } from "../util/credential-record.js";
import { z } from "../util/schema/index.js";
import { type FileLockOptions, FileLockTimeoutError, withFileLock } from "./file-lock.js";

export const AUTH_STORE_VERSION = 1;

export interface AuthStoreData {
  version: number;
  /** Provider id → its credentials. */
  credentialPool: Record<string, CredentialRecord[]>;
  /** Other sections (for example OAuth provider state) are preserved untouched. */
  [section: string]: unknown;
}

export class AuthStoreError extends Error {
  override name = "AuthStoreError";
  constructor(
    readonly path: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${path}: ${detail}`, options);
  }
}

const LAST_STATUSES = ["ok", "exhausted", "dead"] as const;
const nullableNumber = z.number().nullable().optional().default(null);

const recordSchema = z.looseObject({
  id: z.string().min(1),
  label: z.string().optional(),
  authType: z.string().default("api_key"),
  priority: z.number().default(0),
  source: z.string().default("manual"),
  accessToken: z.string(),
  refreshToken: z.string().nullable().optional(),
  expiresAt: z.number().nullable().optional(),
  tokenUpdatedAt: z.number().nullable().optional(),
  baseUrl: z.string().nullable().optional(),
  // A status another version wrote that this one does not know reads as "not known yet".
  lastStatus: z.preprocess(
    (value) => (typeof value === "string" && !(LAST_STATUSES as readonly string[]).includes(value) ? null : value),
    z.enum(LAST_STATUSES).nullable().optional().default(null),
  ),
  lastStatusAt: nullableNumber,
  lastErrorCode: nullableNumber,
  lastErrorReason: z.string().nullable().optional().default(null),
  lastErrorResetAt: nullableNumber,
  requestCount: z.number().int().nonnegative().default(0),
});

const storeSchema = z.looseObject({
  version: z.number().int().default(AUTH_STORE_VERSION),
  credentialPool: z.record(z.string(), z.array(recordSchema)).default({}),
});

/**
 * The original Python Hermes writes `credential_pool` with snake_case record fields. Such a file
 * is read as ours and written back in its own shape, so the original can still read it.
 */
const ORIGINAL_SHAPE = Symbol("auth.json written by the original");
const toCamel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const toSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [rename(key), inner]));
}

function mapPool(pool: unknown, rename: (key: string) => string): unknown {
  if (!pool || typeof pool !== "object" || Array.isArray(pool)) return pool;
  return Object.fromEntries(
    Object.entries(pool).map(([provider, records]) => [
      provider,
      Array.isArray(records) ? records.map((record) => renameKeys(record, rename)) : records,
    ]),
  );
}

function isOriginalShape(json: unknown): json is Record<string, unknown> {
  return Boolean(json && typeof json === "object" && "credential_pool" in json && !("credentialPool" in json));
}

function fromOriginalShape(json: Record<string, unknown>): Record<string, unknown> {
  const { credential_pool: pool, ...rest } = json;
  return { ...rest, credentialPool: mapPool(pool, toCamel) };
}

function toOriginalShape(data: AuthStoreData): Record<string, unknown> {
  const { credentialPool, ...rest } = data;
  return { ...rest, credential_pool: mapPool(credentialPool, toSnake) };
}

/** Whether the file at `path` is in the original's shape now. */
function diskHasOriginalShape(path: string): boolean {
  try {
    return isOriginalShape(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    return false;
  }
}

export function emptyAuthStore(): AuthStoreData {
  return { version: AUTH_STORE_VERSION, credentialPool: {} };
}

function parseStore(path: string, text: string): AuthStoreData {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AuthStoreError(path, `not valid JSON (${(error as Error).message}); fix or remove the file`, {
      cause: error,
    });
  }
  const original = isOriginalShape(json);
  if (original) json = fromOriginalShape(json as Record<string, unknown>);
  const parsed = storeSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join(".") || "(top level)";
    throw new AuthStoreError(path, `unexpected content at ${where}: ${issue?.message}; fix or remove the file`);
  }
  const data = parsed.data as AuthStoreData;
  for (const records of Object.values(data.credentialPool)) {
    for (const record of records) record.label ??= record.id;
  }
  if (original) Object.defineProperty(data, ORIGINAL_SHAPE, { value: true, enumerable: false });
  return data;
}

function readStore(path: string): AuthStoreData {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyAuthStore();
    throw new AuthStoreError(path, `cannot be read (${(error as Error).message})`, { cause: error });
  }
  return text.trim() === "" ? emptyAuthStore() : parseStore(path, text);
}

/** Reads auth.json; a missing file is an empty store, an unreadable one an AuthStoreError. */
export function loadAuthStore(path: string): AuthStoreData {
  return readStore(path);
}

function withoutEnvEntries(data: AuthStoreData): AuthStoreData {
  const credentialPool: Record<string, CredentialRecord[]> = {};
  for (const [provider, records] of Object.entries(data.credentialPool ?? {})) {
    credentialPool[provider] = records.filter((record) => !isEnvSeeded(record));
  }
  return { ...data, version: data.version ?? AUTH_STORE_VERSION, credentialPool };
}

function writeStore(path: string, data: AuthStoreData): void {
  const kept = withoutEnvEntries(data);
  const original = (data as { [ORIGINAL_SHAPE]?: boolean })[ORIGINAL_SHAPE] === true || diskHasOriginalShape(path);
  const body = original ? toOriginalShape(kept) : kept;
  atomicWriteFile(path, `${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
}

async function locked<T>(path: string, fn: () => T | Promise<T>, options?: FileLockOptions): Promise<T> {
  try {
    return await withFileLock(`${path}.lock`, fn, options);
  } catch (error) {
    if (error instanceof FileLockTimeoutError) {
      throw new AuthStoreError(path, `locked by another process (${error.lockPath}); try again`, { cause: error });
    }
    throw error;
  }
}

/** Replaces the whole store. Refuses (AuthStoreError) when the file on disk is corrupt. */
export async function saveAuthStore(path: string, data: AuthStoreData, options?: FileLockOptions): Promise<void> {
  await locked(
    path,
    () => {
      readStore(path);
      writeStore(path, data);
    },
    options,
  );
}

/**
 * Read-modify-write under the lock, so concurrent writers never lose each other's changes.
 * `mutate` may edit the data in place or return a replacement; it may be async (for example
 * an OAuth refresh, which must not run in two processes at once).
 */
export async function updateAuthStore(
  path: string,
  mutate: (data: AuthStoreData) => AuthStoreData | undefined | Promise<AuthStoreData | undefined>,
  options?: FileLockOptions,
): Promise<AuthStoreData> {
  return locked(
    path,
    async () => {
      const current = readStore(path);
      const next = (await mutate(current)) ?? current;
      writeStore(path, next);
      return next;
    },
    options,
  );
}

const stamp = (value: number | null | undefined) => value ?? Number.NEGATIVE_INFINITY;

/** Whether the disk copy holds a token pair newer than the one in memory. */
function diskTokenIsNewer(memory: CredentialRecord, disk: CredentialRecord): boolean {
  if (disk.accessToken === memory.accessToken && (disk.refreshToken ?? null) === (memory.refreshToken ?? null)) {
    return false;
  }
  if (typeof disk.tokenUpdatedAt === "number" || typeof memory.tokenUpdatedAt === "number") {
    return stamp(disk.tokenUpdatedAt) > stamp(memory.tokenUpdatedAt);
  }
  // Refresh tokens are single-use: a different one on disk means another process refreshed.
  return Boolean(disk.refreshToken) && disk.refreshToken !== memory.refreshToken;
}

/**
 * Merges the disk copy of a provider's pool into the in-memory one: newer token pairs (another
 * process refreshed) and newer status marks are adopted, request counts keep the larger, and
 * entries only on disk (added elsewhere) are appended. Nothing in either copy is lost.
 */
export function mergeFromDisk(memory: CredentialRecord[], disk: CredentialRecord[]): CredentialRecord[] {
  const diskById = new Map(disk.map((record) => [record.id, record]));
  const merged = memory.map((mine) => {
    const theirs = diskById.get(mine.id);
    if (!theirs) return { ...mine };
    const out: CredentialRecord = { ...mine, requestCount: Math.max(mine.requestCount, theirs.requestCount) };
    if (diskTokenIsNewer(mine, theirs)) {
      out.accessToken = theirs.accessToken;
      out.refreshToken = theirs.refreshToken ?? null;
      out.expiresAt = theirs.expiresAt ?? null;
      out.tokenUpdatedAt = theirs.tokenUpdatedAt ?? null;
    }
    if (stamp(theirs.lastStatusAt) > stamp(mine.lastStatusAt)) {
      out.lastStatus = theirs.lastStatus;
      out.lastStatusAt = theirs.lastStatusAt;
      out.lastErrorCode = theirs.lastErrorCode;
      out.lastErrorReason = theirs.lastErrorReason;
      out.lastErrorResetAt = theirs.lastErrorResetAt;
    }
    return out;
  });
  const known = new Set(memory.map((record) => record.id));
  for (const record of disk) if (!known.has(record.id)) merged.push({ ...record });
  return merged;
}

/**
 * Writes one provider's pool, merged with what is on disk, and returns the merged entries
 * (env-seeded ones included) for the caller to adopt.
 */
export async function persistPoolEntries(
  path: string,
  provider: string,
  entries: CredentialRecord[],
  options?: FileLockOptions,
): Promise<CredentialRecord[]> {
  let merged: CredentialRecord[] = [];
  await updateAuthStore(
    path,
    (data) => {
      merged = mergeFromDisk(entries, data.credentialPool[provider] ?? []);
      data.credentialPool[provider] = merged;
      return data;
    },
    options,
  );
  return merged;
}
