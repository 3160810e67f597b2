/**
 * Loading and editing config.yaml with the full YAML parser. Edits go through the YAML
 * Document API so comments survive, and every write is atomic. Validation and the quick
 * loader that start-up uses live in ./config-load.ts, which does not load the parser.
 */
import { existsSync, statSync } from "node:fs";
import { isMap, isScalar, isSeq, parseDocument, type Document as YamlDocument } from "yaml";
import { atomicWriteFile } from "../util/atomic-write.js";
import type { AnySchema } from "../util/schema/index.js";
import { ConfigError, type LoadedConfig, readConfigText, readSimpleConfig, valueAt } from "./config-load.js";
import { configSchema } from "./config-schema.js";
import { validateConfig } from "./config-validate.js";
import { schemaAt, schemaKind } from "./config-walk.js";
import { isEnvVarName, readDotEnv, setEnvValue, unsetEnvValue } from "./dotenv.js";
import { hermesHome, hermesPaths } from "./paths.js";

export {
  ConfigError,
  type ConfigIssue,
  formatKeyPath,
  type LoadedConfig,
  loadConfigAsync,
} from "./config-load.js";
export { validateConfig } from "./config-validate.js";

function readDocument(path: string): YamlDocument {
  return parseDocumentText(readConfigText(path), path);
}

function parseDocumentText(text: string, path: string): YamlDocument {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    const first = doc.errors[0]!;
    const where = first.linePos?.[0] ? ` at line ${first.linePos[0].line}, column ${first.linePos[0].col}` : "";
    // The parser repeats the position at the end of its message; it is said once, above.
    const reason = (first.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigError(`${path}: YAML syntax error${where}: ${reason}`, path);
  }
  const root = doc.contents;
  if (root !== null && !isMap(root) && !(isScalar(root) && root.value === null)) {
    throw new ConfigError(`${path}: the file must be a mapping of settings (key: value lines)`, path);
  }
  return doc;
}

/** config.yaml's text as a plain value, with the full YAML parser. */
export function parseConfigText(text: string, path: string): unknown {
  return parseDocumentText(text, path).toJS();
}

/** Load config.yaml; the full YAML parser runs only when the file goes beyond the simple subset. */
export function loadConfig(options: { home?: string } = {}): LoadedConfig {
  const path = hermesPaths(options.home ?? hermesHome()).config;
  const raw = readSimpleConfig(path) ?? readDocument(path).toJS();
  return { ...validateConfig(raw, path), path };
}

function splitKeyPath(keyPath: string): string[] {
  const parts = keyPath.split(".");
  if (!keyPath || parts.some((p) => p === "")) throw new ConfigError(`"${keyPath}" is not a valid key path`, keyPath);
  return parts;
}

/** Read one dotted key (`compression.threshold`, `fallback_providers.0.model`) from a config. */
export function getConfigValue(config: unknown, keyPath: string): unknown {
  return valueAt(config, splitKeyPath(keyPath));
}

const SECRET_SUFFIX = /_(API_KEY|TOKEN|SECRET|PASSWORD)$/i;

/** Undotted names that look like secrets or environment variables belong in .env, not config.yaml. */
export function isSecretKey(keyPath: string): boolean {
  if (keyPath.includes(".") || !isEnvVarName(keyPath)) return false;
  return SECRET_SUFFIX.test(keyPath) || /^[A-Z][A-Z0-9_]*$/.test(keyPath);
}

/** Turn a command-line string into a value: booleans, numbers and JSON are parsed; strings stay strings. */
export function parseConfigValue(raw: string, schema?: AnySchema): unknown {
  const kind = schema ? schemaKind(schema) : undefined;
  if (kind === "string" || kind === "enum") return raw;
  if (kind === "array" && !raw.trimStart().startsWith("[")) {
    return raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  }
  const trimmed = raw.trim();
  if (trimmed === "true") return true;
  if (trimmed === "false") return false;
  if (trimmed === "null") return null;
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(trimmed)) return Number(trimmed);
  if (/^[[{"]/.test(trimmed)) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return raw;
    }
  }
  return raw;
}

type YamlKey = string | number;

function docPath(parts: string[]): YamlKey[] {
  return parts.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** Make every ancestor of `path` a collection, replacing empty (null) ones with mappings. */
function ensureParents(doc: YamlDocument, path: YamlKey[], keyPath: string, file: string): void {
  for (let i = 1; i < path.length; i++) {
    const prefix = path.slice(0, i);
    const node = doc.getIn(prefix, true);
    if (node === undefined || isMap(node) || isSeq(node)) continue;
    if (isScalar(node) && node.value === null) {
      doc.setIn(prefix, doc.createNode({}));
      continue;
    }
    throw new ConfigError(`cannot set ${keyPath}: ${prefix.join(".")} holds a value, not a mapping`, file);
  }
}

function writeDocument(path: string, doc: YamlDocument): void {
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o644;
  const empty = isMap(doc.contents) && doc.contents.items.length === 0 && !doc.commentBefore && !doc.comment;
  atomicWriteFile(path, empty ? "" : String(doc), { mode });
}

export interface ConfigWriteResult {
  target: "config" | "env";
  /** The file written. */
  path: string;
  /** The key as stored (env names are upper-cased). */
  key: string;
  value?: unknown;
  warnings: string[];
}

/**
 * Set one key. Secret-looking or env-var-shaped names go to `.env` (mode 0600); everything else
 * goes to config.yaml, validated before the file is replaced so a bad value never lands on disk.
 */
export function setConfigValue(home: string, keyPath: string, rawValue: string): ConfigWriteResult {
  if (isSecretKey(keyPath)) {
    const key = keyPath.toUpperCase();
    return { target: "env", path: setEnvValue(home, key, rawValue), key, warnings: [] };
  }
  const path = hermesPaths(home).config;
  const parts = splitKeyPath(keyPath);
  const value = parseConfigValue(rawValue, schemaAt(configSchema, parts));
  const doc = readDocument(path);
  if (!isMap(doc.contents)) doc.contents = doc.createNode({}) as typeof doc.contents;
  const yamlPath = docPath(parts);
  ensureParents(doc, yamlPath, keyPath, path);
  doc.setIn(yamlPath, value);
  const { warnings } = validateConfig(doc.toJS(), path);
  writeDocument(path, doc);
  return { target: "config", path, key: keyPath, value, warnings };
}

/** Remove one key (from `.env` for secrets). `removed` is false when it was not set. */
export function unsetConfigValue(home: string, keyPath: string): ConfigWriteResult & { removed: boolean } {
  if (isSecretKey(keyPath)) {
    const key = keyPath.toUpperCase();
    const had = Object.hasOwn(readDotEnv(home), key);
    return { target: "env", path: unsetEnvValue(home, key), key, warnings: [], removed: had };
  }
  const path = hermesPaths(home).config;
  const yamlPath = docPath(splitKeyPath(keyPath));
  const doc = readDocument(path);
  let present = false;
  try {
    present = doc.hasIn(yamlPath);
  } catch {
    present = false;
  }
  if (!present) return { target: "config", path, key: keyPath, warnings: [], removed: false };
  doc.deleteIn(yamlPath);
  // Drop mappings the removal left empty, so `unset` does not leave `compression: {}` behind.
  for (let i = yamlPath.length - 1; i > 0; i--) {
    const parent = doc.getIn(yamlPath.slice(0, i), true);
    if (isMap(parent) && parent.items.length === 0) doc.deleteIn(yamlPath.slice(0, i));
    else break;
  }
  const { warnings } = validateConfig(doc.toJS(), path);
  writeDocument(path, doc);
  return { target: "config", path, key: keyPath, warnings, removed: true };
}
