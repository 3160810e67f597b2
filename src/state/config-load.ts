/**
 * Validating config.yaml, and loading it without the full YAML parser when the file stays in
 * the simple subset that `readSimpleYaml` reads exactly (what `hermes config set` and `hermes
 * setup` write). Values are deep-merged over the defaults by the schema itself; bad values
 * raise a ConfigError naming the key path and what it accepts; unknown keys come back as
 * warnings. The YAML package is imported only when a file needs it.
 */
import { existsSync, readFileSync } from "node:fs";
import { readSimpleYaml } from "../util/simple-yaml.js";
import { readCachedConfig, writeCachedConfig } from "./config-cache.js";
import type { HermesConfig } from "./config-schema.js";
import { hermesHome, hermesPaths } from "./paths.js";

export interface ConfigIssue {
  /** Dotted key path, e.g. `compression.threshold` or `fallback_providers[0].model`. */
  path: string;
  message: string;
}

export class ConfigError extends Error {
  readonly exitCode = 1;
  constructor(
    message: string,
    readonly file: string,
    readonly issues: ConfigIssue[] = [],
  ) {
    super(message);
    this.name = "ConfigError";
  }
}

export interface LoadedConfig {
  config: HermesConfig;
  warnings: string[];
  /** Keys of the original agent's config.yaml that the file sets and we accept without acting on. */
  notActedOn: string[];
  path: string;
}

export interface ValidatedConfig {
  config: HermesConfig;
  warnings: string[];
  notActedOn: string[];
}

export const FILE_LABEL = "config.yaml";

export function formatKeyPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

export function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * config.yaml's content when it is missing, empty or in the simple subset; undefined when only
 * the full parser can read it.
 */
export function readSimpleConfig(path: string): unknown {
  return readSimpleConfigText(readConfigText(path));
}

export function readConfigText(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

function readSimpleConfigText(text: string): unknown {
  if (text.trim() === "") return {};
  return readSimpleYaml(text);
}

/**
 * `loadConfig` for start-up: the same result, with the YAML parser loaded only if needed, and
 * neither it nor the schema when the file is as last validated (see ./config-cache.ts).
 */
export async function loadConfigAsync(options: { home?: string } = {}): Promise<LoadedConfig> {
  const home = options.home ?? hermesHome();
  const path = hermesPaths(home).config;
  const text = readConfigText(path);
  const cached = readCachedConfig(home, path, text);
  if (cached) return { ...cached, path };
  const raw = readSimpleConfigText(text) ?? (await import("./config.js")).parseConfigText(text, path);
  const validated = (await import("./config-validate.js")).validateConfig(raw, path);
  writeCachedConfig(home, path, text, validated);
  return { ...validated, path };
}
