/**
 * What a plugin says about itself: `plugin.yaml` in its directory, or the `hermes` field of its
 * `package.json` (npm packages, and directories that are packages). Unknown `provides` values
 * are kept; they only describe the plugin to `hermes plugins info`.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

export type PluginSource = "directory" | "npm";

export interface PluginManifest {
  name: string;
  version: string;
  description: string;
  /** Absolute path of the ES module that exports `register(api)`. */
  entry: string;
  /** What it adds: tools, hooks, commands, memory, context_engine, platform, cli. */
  provides: string[];
  /** Environment variables it needs; missing ones keep it from loading, with a message. */
  requiresEnv: string[];
  dir: string;
  source: PluginSource;
}

export class ManifestError extends Error {}

const NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const DEFAULT_ENTRIES = ["index.js", "index.mjs", "dist/index.js"];

function stringList(value: unknown, field: string, file: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value;
  throw new ManifestError(`${file}: ${field} must be a list of strings`);
}

function text(value: unknown, field: string, file: string, fallback: string): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "string" || typeof value === "number") return String(value);
  throw new ManifestError(`${file}: ${field} must be a string`);
}

async function parseYamlFile(path: string): Promise<Record<string, unknown>> {
  const { parse } = await import("yaml");
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ManifestError(`${path} is not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ManifestError(`${path} must be a mapping with at least a name`);
  }
  return parsed as Record<string, unknown>;
}

function parseJsonFile(path: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ManifestError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  throw new ManifestError(`${path} must be a JSON object`);
}

/** The package's ES entry: `hermes.entry`, then `exports["."]` (import), `module`, `main`. */
function packageEntry(pkg: Record<string, unknown>): string | undefined {
  const exported = pkg.exports;
  if (typeof exported === "string") return exported;
  if (exported && typeof exported === "object") {
    const root = (exported as Record<string, unknown>)["."] ?? exported;
    if (typeof root === "string") return root;
    if (root && typeof root === "object") {
      const conditions = root as Record<string, unknown>;
      for (const key of ["import", "default", "node"]) if (typeof conditions[key] === "string") return conditions[key];
    }
  }
  for (const key of ["module", "main"]) if (typeof pkg[key] === "string") return pkg[key];
  return undefined;
}

/** Reads the manifest of the plugin in `dir`; throws ManifestError with the file and the problem. */
export async function readManifest(dir: string, source: PluginSource): Promise<PluginManifest> {
  const yamlPath = join(dir, "plugin.yaml");
  const jsonPath = join(dir, "package.json");
  let fields: Record<string, unknown>;
  let file: string;
  let entry: string | undefined;
  if (existsSync(yamlPath)) {
    file = yamlPath;
    fields = await parseYamlFile(yamlPath);
    entry = typeof fields.entry === "string" ? fields.entry : undefined;
  } else if (existsSync(jsonPath)) {
    file = jsonPath;
    const pkg = parseJsonFile(jsonPath);
    const extra = (pkg.hermes && typeof pkg.hermes === "object" ? pkg.hermes : {}) as Record<string, unknown>;
    fields = { ...extra, name: pkg.name, version: pkg.version, description: pkg.description };
    entry = typeof extra.entry === "string" ? extra.entry : packageEntry(pkg);
  } else {
    throw new ManifestError(`${dir} has neither plugin.yaml nor package.json`);
  }
  const name = text(fields.name, "name", file, "");
  if (!NAME.test(name)) throw new ManifestError(`${file}: name must be a plugin name such as "my-plugin"`);
  entry ??= DEFAULT_ENTRIES.find((candidate) => existsSync(join(dir, candidate)));
  if (!entry) throw new ManifestError(`${file}: no entry module (set entry:, or add index.js)`);
  const entryPath = resolve(dir, entry);
  if (!entryPath.startsWith(resolve(dir)))
    throw new ManifestError(`${file}: entry must be inside the plugin directory`);
  return {
    name,
    version: text(fields.version, "version", file, "0.0.0"),
    description: text(fields.description, "description", file, ""),
    entry: entryPath,
    provides: stringList(fields.provides, "provides", file),
    requiresEnv: stringList(fields.requires_env ?? fields.requiresEnv, "requires_env", file),
    dir,
    source,
  };
}
