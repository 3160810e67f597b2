/**
 * Validating config.yaml, and loading it without the full YAML parser when the file stays in
 * the simple subset that `readSimpleYaml` reads exactly (what `hermes config set` and `hermes
 * setup` write). Values are deep-merged over the defaults by the schema itself; bad values
 * raise a ConfigError naming the key path and what it accepts; unknown keys come back as
 * warnings. The YAML package is imported only when a file needs it.
 */
import { existsSync, readFileSync } from "node:fs";
import { readSimpleYaml } from "../util/simple-yaml.js";
import { applyRenamedKeys, classifyKeys } from "./config-original.js";
import { configSchema, type HermesConfig } from "./config-schema.js";
import { closestName, dropNulls } from "./config-walk.js";
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

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

/**
 * Validate a parsed config.yaml value. Throws ConfigError; unknown keys become warnings. The
 * original agent's names are read under ours (see ./config-original.ts).
 */
export function validateConfig(raw: unknown, file = FILE_LABEL): ValidatedConfig {
  const written = dropNulls(raw ?? {});
  const renamed = applyRenamedKeys(written, file);
  const input = renamed.value;
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const issues = result.error.issues.map((issue) => {
      const path = formatKeyPath(issue.path);
      const got = describeValue(valueAt(input, issue.path));
      const subject = path || "the file";
      return { path, message: `${subject} must be ${issue.message} (got ${got})` };
    });
    throw new ConfigError(issues.map((i) => `${file}: ${i.message}`).join("\n"), file, issues);
  }
  // The file as written: a key set to nothing is still a key the file sets.
  const keys = classifyKeys(raw ?? {});
  const unknown = keys.unknown.map(({ path, known }) => {
    const last = path.split(".").at(-1) ?? path;
    const guess = closestName(last, known);
    const hint = guess ? ` (did you mean "${guess}"?)` : "";
    return `${file}: unknown key "${path}" is ignored${hint}`;
  });
  return { config: result.data, warnings: [...renamed.warnings, ...unknown], notActedOn: keys.notActedOn };
}

/**
 * config.yaml's content when it is missing, empty or in the simple subset; undefined when only
 * the full parser can read it.
 */
export function readSimpleConfig(path: string): unknown {
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  if (text.trim() === "") return {};
  return readSimpleYaml(text);
}

/** `loadConfig` for start-up: the same result, with the YAML parser loaded only if needed. */
export async function loadConfigAsync(options: { home?: string } = {}): Promise<LoadedConfig> {
  const path = hermesPaths(options.home ?? hermesHome()).config;
  const raw = readSimpleConfig(path);
  if (raw === undefined) return (await import("./config.js")).loadConfig(options);
  return { ...validateConfig(raw, path), path };
}
