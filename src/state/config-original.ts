/**
 * Reading a config.yaml written for the original agent. Keys it renamed here are moved to our
 * names before validation; keys of features we do not have are accepted without a warning and
 * reported as "not acted on"; anything neither side knows is still an unknown key (a typo).
 */
import { type AnySchema, ArraySchema, ObjectSchema, RecordSchema } from "../util/schema/index.js";
import { configSchema } from "./config-schema.js";
import { schemaAt, unwrapSchema } from "./config-walk.js";
import { ORIGINAL_CONFIG_DEFAULTS } from "./original-config-keys.js";

/** The original's name → ours, for settings both have under different names. */
export const RENAMED_KEYS: Readonly<Record<string, string>> = {
  "auxiliary.title_generation": "auxiliary.title",
  "auxiliary.background_review": "auxiliary.review",
  "security.allow_private_urls": "web.allow_private_urls",
  // The gateway's limits: turns running at once across chats, and agents kept in memory.
  max_concurrent_sessions: "gateway.max_concurrent_runs",
  max_live_sessions: "gateway.agent_cache.max_agents",
};

/**
 * Fields the original reads inside entries of its open mappings and lists (so they are not in
 * its defaults) that we accept without acting on them. `*` stands for any entry name or index.
 */
const ORIGINAL_ENTRY_FIELDS = [
  "providers.*.rate_limit_delay",
  "providers.*.request_timeout_seconds",
  "providers.*.stale_timeout_seconds",
  "custom_providers[*].rate_limit_delay",
  "custom_providers[*].request_timeout_seconds",
  "custom_providers[*].stale_timeout_seconds",
  // Tool use inside sampling: our client never offers tools to a sampling request.
  "mcp_servers.*.sampling.max_tool_rounds",
  "mcp_servers.*.sampling.expose_client_tools",
];

interface OriginalKeyIndex {
  keys: Set<string>;
  /** Each section holding original keys (every proper prefix of a key), with the names directly in it. */
  sections: Map<string, Set<string>>;
}

let index: OriginalKeyIndex | undefined;

/** Built on first use: a file that only holds keys we know never needs it. */
function originalKeys(): OriginalKeyIndex {
  if (index) return index;
  const keys = new Set([...ORIGINAL_CONFIG_DEFAULTS.map(([key]) => key), ...ORIGINAL_ENTRY_FIELDS]);
  const sections = new Map<string, Set<string>>([["", new Set()]]);
  for (const key of keys) {
    const parts = key.split(".");
    for (let i = 0; i < parts.length; i++) {
      const section = parts.slice(0, i).join(".");
      const names = sections.get(section) ?? new Set<string>();
      names.add(parts[i]!);
      sections.set(section, names);
    }
  }
  index = { keys, sections };
  return index;
}

/** The path with entry names and indexes replaced the way the key list writes them. */
function lookupForm(path: string): string {
  return path
    .replace(/^moa\.presets\.[^.]+/, "moa.presets.default")
    .replace(/^providers\.[^.]+\./, "providers.*.")
    .replace(/^mcp_servers\.[^.]+\./, "mcp_servers.*.")
    .replace(/^custom_providers\[\d+\]/, "custom_providers[*]");
}

export function isOriginalKey(path: string): boolean {
  return originalKeys().keys.has(lookupForm(path));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function valueAtPath(root: Record<string, unknown>, parts: string[]): unknown {
  let current: unknown = root;
  for (const part of parts) current = isPlainObject(current) ? current[part] : undefined;
  return current;
}

function removeAtPath(root: Record<string, unknown>, parts: string[]): void {
  const parent = valueAtPath(root, parts.slice(0, -1));
  if (isPlainObject(parent)) delete parent[parts.at(-1)!];
  // A section left empty by the move would otherwise read as a key of its own.
  for (let depth = parts.length - 1; depth > 0; depth--) {
    const section = valueAtPath(root, parts.slice(0, depth));
    if (!isPlainObject(section) || Object.keys(section).length > 0) break;
    const holder = valueAtPath(root, parts.slice(0, depth - 1));
    if (isPlainObject(holder)) delete holder[parts[depth - 1]!];
  }
}

function setAtPath(root: Record<string, unknown>, parts: string[], value: unknown): void {
  let current = root;
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(current[part])) current[part] = {};
    current = current[part] as Record<string, unknown>;
  }
  current[parts.at(-1)!] = value;
}

function cloneDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneDeep);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, cloneDeep(inner)]));
}

/**
 * The config with the original's names moved to ours. When both names are set, ours wins (for a
 * mapping: key by key) and a warning names both.
 */
export function applyRenamedKeys(input: unknown, file: string): { value: unknown; warnings: string[] } {
  if (!isPlainObject(input)) return { value: input, warnings: [] };
  const present = Object.keys(RENAMED_KEYS).filter((from) => valueAtPath(input, from.split(".")) !== undefined);
  if (present.length === 0) return { value: input, warnings: [] };
  const value = cloneDeep(input) as Record<string, unknown>;
  const warnings: string[] = [];
  for (const from of present) {
    const to = RENAMED_KEYS[from]!;
    const theirs = valueAtPath(value, from.split("."));
    const ours = valueAtPath(value, to.split("."));
    removeAtPath(value, from.split("."));
    // null is the original's "not set" (max_concurrent_sessions: null, no limit of its own): ours applies.
    if (theirs === null) continue;
    if (ours === undefined) {
      setAtPath(value, to.split("."), theirs);
      continue;
    }
    warnings.push(`${file}: both "${from}" (the original's name) and "${to}" are set; "${to}" is used`);
    if (isPlainObject(ours) && isPlainObject(theirs)) setAtPath(value, to.split("."), { ...theirs, ...ours });
  }
  return { value, warnings };
}

export interface KeyReport {
  /** Keys nobody knows, with the names known where they sit (for "did you mean"). */
  unknown: Array<{ path: string; known: string[] }>;
  /** Keys of the original's that we accept but do not act on, as written in the file. */
  notActedOn: string[];
}

/** The schema governing an original name that we read under another name. */
function renamedSchema(path: string): AnySchema | undefined {
  const to = RENAMED_KEYS[path];
  return to ? schemaAt(configSchema, to.split(".")) : undefined;
}

function isRenameSection(path: string): boolean {
  return Object.keys(RENAMED_KEYS).some((from) => from.startsWith(`${path}.`));
}

/** Sorts every key the file sets: known to us, the original's only, or unknown. Reads the file's own names. */
export function classifyKeys(input: unknown): KeyReport {
  const report: KeyReport = { unknown: [], notActedOn: [] };
  walk(configSchema, input, "", report);
  return report;
}

function walk(schema: AnySchema | undefined, value: unknown, prefix: string, report: KeyReport): void {
  const shaped = schema ? unwrapSchema(schema) : undefined;
  if (shaped instanceof ArraySchema) {
    if (Array.isArray(value)) {
      value.forEach((inner, i) => {
        walk(shaped.element as AnySchema, inner, `${prefix}[${i}]`, report);
      });
    }
    return;
  }
  if (!isPlainObject(value)) return;
  const shape = shaped instanceof ObjectSchema ? (shaped.shape as Record<string, AnySchema>) : undefined;
  const recordValue = shaped instanceof RecordSchema ? (shaped.valueType as AnySchema) : undefined;
  if (shaped && !shape && !recordValue) return;
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const child = shape?.[key] ?? recordValue ?? renamedSchema(path);
    if (child) walk(child, inner, path, report);
    else if (isOriginalKey(path)) report.notActedOn.push(path);
    else if ((originalKeys().sections.has(lookupForm(path)) || isRenameSection(path)) && isPlainObject(inner)) {
      walk(undefined, inner, path, report);
    } else report.unknown.push({ path, known: knownNames(prefix, shape) });
  }
}

/** The names either side knows where `prefix` sits, for suggestions. */
function knownNames(prefix: string, shape: Record<string, AnySchema> | undefined): string[] {
  const original = originalKeys().sections.get(lookupForm(prefix)) ?? [];
  return [...new Set([...Object.keys(shape ?? {}), ...original])];
}
