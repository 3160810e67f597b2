/**
 * Where a home's stores live: `state.db` beside config.yaml (the default), or the PostgreSQL
 * database config.yaml names (`store.backend: postgres`, URL from HERMES_DATABASE_URL or
 * `store.postgres_url`). Every store opener takes the result: a file path or a postgres:// URL.
 */
import { ConfigError } from "./config-load.js";
import { hermesPaths } from "./paths.js";

export interface StoreSettings {
  backend: "sqlite" | "postgres";
  postgres_url: string;
}

export function resolveStoreLocation(
  home: string,
  store: StoreSettings,
  env: Record<string, string | undefined> = process.env,
): string {
  if (store.backend !== "postgres") return hermesPaths(home).stateDb;
  const url = env.HERMES_DATABASE_URL?.trim() || store.postgres_url.trim();
  if (!/^postgres(ql)?:\/\/./i.test(url)) {
    throw new ConfigError(
      url
        ? `store.postgres_url is not a postgres:// URL (got "${url.replace(/:[^:@/]*@/, ":***@")}")`
        : "store.backend is postgres but no database is named: set HERMES_DATABASE_URL or store.postgres_url (postgres://user:password@host:5432/db)",
      "config.yaml",
    );
  }
  return url;
}

/**
 * The store location of `home` as its config.yaml and the environment say. The config loader
 * (and the YAML parser behind it) loads only here, never with this module.
 */
export async function storeLocation(
  home: string,
  env: Record<string, string | undefined> = process.env,
): Promise<string> {
  const { loadConfig } = await import("./config.js");
  return resolveStoreLocation(home, loadConfig({ home }).config.store, env);
}
