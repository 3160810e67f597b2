/**
 * config.yaml as last validated, kept in `$HERMES_HOME/cache/config-validated.json` and reused
 * while the file's text and the CLI build are the same. Building the schema of every key and
 * validating against it was the largest single item of a one-shot run's module start-up; a
 * start that finds its config here reads one JSON file and never builds the schema. Only a build
 * with an id (the bundled CLI, see util/build-id.ts) reads or writes it, since from source
 * nothing tells a changed schema apart. A damaged or foreign file is ignored and replaced.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildId } from "../util/build-id.js";
import type { ValidatedConfig } from "./config-load.js";

const FORMAT = 1;

interface CacheFile {
  format: number;
  build: string;
  /** The config file validated, as warnings name it. */
  path: string;
  /** Its text, compared whole: a hash would load node:crypto, which a one-shot run avoids. */
  text: string;
  result: ValidatedConfig;
}

export function configCachePath(home: string): string {
  return join(home, "cache", "config-validated.json");
}

/** The validated config for `text`, when the cache holds it for this build. */
export function readCachedConfig(home: string, path: string, text: string): ValidatedConfig | undefined {
  const build = buildId();
  if (!build) return undefined;
  let file: Partial<CacheFile>;
  try {
    file = JSON.parse(readFileSync(configCachePath(home), "utf8")) as Partial<CacheFile>;
  } catch {
    return undefined;
  }
  if (file.format !== FORMAT || file.build !== build || file.path !== path || file.text !== text) return undefined;
  return file.result;
}

/** Keeps `result` for the next start; only when JSON carries it whole (no value JSON cannot hold). */
export function writeCachedConfig(home: string, path: string, text: string, result: ValidatedConfig): void {
  const build = buildId();
  if (!build) return;
  const json = JSON.stringify({ format: FORMAT, build, path, text, result } satisfies CacheFile);
  const { isDeepStrictEqual } = process.getBuiltinModule("node:util");
  if (!isDeepStrictEqual((JSON.parse(json) as CacheFile).result, result)) return;
  const target = configCachePath(home);
  try {
    mkdirSync(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.tmp`;
    // config.yaml may hold keys: the copy is the owner's alone.
    writeFileSync(temporary, json, { mode: 0o600 });
    renameSync(temporary, target);
  } catch {
    // A read-only home validates again next time.
  }
}
