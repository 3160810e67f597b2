/**
 * Building a provider's credential pool for a run: the keys stored in auth.json (`hermes auth
 * add`) plus keys found in the provider's environment variables. Environment keys live only in
 * memory (source `env:VAR`); status changes of stored keys are written back under the lock.
 */
import { CredentialPool, type PoolStrategy } from "../llm/credential-pool.js";
import { resolveProvider } from "../llm/providers.js";
import { loadAuthStore, persistPoolEntries } from "../state/auth-store.js";
import { hermesPaths } from "../state/paths.js";
import { type CredentialRecord, isEnvSeeded, newApiKeyRecord } from "../util/credential-record.js";

export type Env = Record<string, string | undefined>;

export interface PoolConfig {
  credential_pool_strategies?: Record<string, PoolStrategy>;
}

/** The catalog id for a provider name or alias (unknown names are kept as given, lower-cased). */
export function canonicalProvider(provider: string): string {
  return resolveProvider(provider)?.id ?? provider.trim().toLowerCase();
}

export function poolStrategy(config: PoolConfig, provider: string): PoolStrategy {
  return config.credential_pool_strategies?.[canonicalProvider(provider)] ?? "fill_first";
}

/**
 * The pool's records: keys from the provider's environment variables first (they are what a
 * single-key setup already uses), then the stored ones. A stored key equal to an environment key
 * is listed once, as the stored entry, so its status persists.
 */
export function poolRecords(stored: CredentialRecord[], provider: string, env: Env): CredentialRecord[] {
  const spec = resolveProvider(provider);
  const storedKeys = new Set(stored.map((record) => record.accessToken));
  const fromEnv: Array<[string, string]> = [];
  for (const name of spec?.keyEnvVars ?? []) {
    const value = env[name]?.trim();
    if (value && !storedKeys.has(value) && !fromEnv.some(([, seen]) => seen === value)) fromEnv.push([name, value]);
  }
  const lowest = stored.reduce((min, record) => Math.min(min, record.priority), 0);
  const envRecords = fromEnv.map(
    ([name, value], i): CredentialRecord =>
      newApiKeyRecord({
        id: `env-${name}`,
        label: name,
        priority: lowest - fromEnv.length + i,
        source: `env:${name}`,
        accessToken: value,
      }),
  );
  return [...envRecords, ...stored.map((record) => ({ ...record }))];
}

/**
 * The pool for `provider`, or undefined when it has no key at all. Throws AuthStoreError
 * (naming the file) when auth.json cannot be read or parsed; the file is never rewritten then.
 */
export function loadCredentialPool(
  home: string,
  provider: string,
  config: PoolConfig,
  env: Env = process.env,
  options: { now?: () => number } = {},
): CredentialPool | undefined {
  const id = canonicalProvider(provider);
  const store = loadAuthStore(hermesPaths(home).auth);
  const entries = poolRecords(store.credentialPool[id] ?? [], id, env);
  if (entries.length === 0) return undefined;
  return new CredentialPool({
    provider: id,
    entries,
    strategy: poolStrategy(config, id),
    ...(options.now ? { now: options.now } : {}),
  });
}

/**
 * Writes the pool's stored entries (status, counts, rotation order) back to auth.json, merged
 * with what other processes wrote meanwhile, and adopts the merged view. A pool made only of
 * environment keys writes nothing. Throws AuthStoreError, writing nothing, on a corrupt file.
 */
export async function persistPool(home: string, pool: CredentialPool): Promise<void> {
  const entries = pool.entries();
  if (entries.every(isEnvSeeded)) return;
  const merged = await persistPoolEntries(hermesPaths(home).auth, pool.provider, entries);
  pool.replaceEntries(merged);
}
