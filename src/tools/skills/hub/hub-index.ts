/**
 * Hub indexes: a JSON document listing skills with the URL of each one's artifact (a `.tar.gz`
 * or a SKILL.md) and the artifact's sha256, configured under `skills.hubs`:
 *
 *   { "skills": [{ "name": "release-notes", "description": "...", "url": "release-notes.tgz",
 *                  "sha256": "<64 hex digits>" }] }
 *
 * Relative URLs are read against the index's own URL.
 */
import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SKILL_NAME_PATTERN } from "../frontmatter.js";
import { download, HubError, hasScheme } from "./net.js";

/** The largest index document read. */
const MAX_INDEX_BYTES = 5 * 1024 * 1024;

export type HubTrust = "trusted" | "community";

/** One entry of `skills.hubs` in config.yaml. */
export interface HubConfig {
  name: string;
  url: string;
  trust: HubTrust;
}

export interface HubEntry {
  hub: string;
  trust: HubTrust;
  name: string;
  description: string;
  /** Absolute URL of the artifact. */
  url: string;
  sha256: string;
}

export interface HubIndex {
  hub: HubConfig;
  entries: HubEntry[];
  /** Entries left out because they were malformed, one line each. */
  warnings: string[];
}

/** The index URL as an absolute URL: plain paths become file URLs. */
export function indexUrl(hub: HubConfig): string {
  if (hasScheme(hub.url, "http:", "https:", "file:")) return hub.url;
  if (isAbsolute(hub.url)) return pathToFileURL(hub.url).href;
  return pathToFileURL(resolve(hub.url)).href;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One index entry, or what is wrong with it. */
function readEntry(item: unknown, hub: HubConfig, base: string): HubEntry | string {
  if (!isRecord(item)) return "is not an object";
  const { name, description, url, sha256 } = item;
  if (typeof name !== "string" || !SKILL_NAME_PATTERN.test(name)) {
    return 'has no valid "name" (lowercase letters, digits, hyphens)';
  }
  if (typeof url !== "string" || !url) return `(${name}) has no "url"`;
  if (typeof sha256 !== "string" || !/^[0-9a-fA-F]{64}$/.test(sha256)) {
    return `(${name}) has no "sha256" of 64 hex digits`;
  }
  let absolute: URL;
  try {
    absolute = new URL(url, base);
  } catch {
    return `(${name}) has an unusable url "${url}"`;
  }
  // A local index may point to local files; one served over the network only to http(s).
  const allowed = new URL(base).protocol === "file:" ? ["file:", "http:", "https:"] : ["http:", "https:"];
  if (!allowed.includes(absolute.protocol))
    return `(${name}) points to ${absolute.protocol} URLs, which this hub may not`;
  return {
    hub: hub.name,
    trust: hub.trust,
    name,
    description: typeof description === "string" ? description.replace(/\s+/g, " ").trim() : "",
    url: absolute.href,
    sha256: sha256.toLowerCase(),
  };
}

/** Parses an index document fetched from `base`. Throws a HubError when it is not an index at all. */
export function parseHubIndex(text: string, hub: HubConfig, base = indexUrl(hub)): HubIndex {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new HubError(`hub "${hub.name}": the index at ${hub.url} is not JSON (${(error as Error).message})`);
  }
  const list = isRecord(data) ? data.skills : undefined;
  if (!Array.isArray(list)) {
    throw new HubError(`hub "${hub.name}": the index at ${hub.url} has no "skills" list`);
  }
  const entries: HubEntry[] = [];
  const warnings: string[] = [];
  for (const [i, item] of list.entries()) {
    const entry = readEntry(item, hub, base);
    const where = `hub "${hub.name}": skills[${i}]`;
    if (typeof entry === "string") warnings.push(`${where} ${entry}; skipped`);
    else if (entries.some((e) => e.name === entry.name)) {
      warnings.push(`${where}: "${entry.name}" is listed twice; the first one counts`);
    } else entries.push(entry);
  }
  return { hub, entries, warnings };
}

/** Downloads and parses one hub's index. */
export async function loadHubIndex(hub: HubConfig): Promise<HubIndex> {
  const url = indexUrl(hub);
  let bytes: Buffer;
  try {
    bytes = await download(url, { maxBytes: MAX_INDEX_BYTES });
  } catch (error) {
    throw new HubError(`hub "${hub.name}": ${(error as Error).message}`);
  }
  return parseHubIndex(bytes.toString("utf8"), hub, url);
}

export interface HubSearch {
  matches: HubEntry[];
  /** Hubs that could not be read, and malformed entries, one line each. */
  warnings: string[];
  /** How many hubs answered. */
  reachable: number;
}

/** Entries of every hub whose name or description holds `query` (all entries for an empty query). */
export async function searchHubs(hubs: readonly HubConfig[], query = ""): Promise<HubSearch> {
  const needle = query.trim().toLowerCase();
  const result: HubSearch = { matches: [], warnings: [], reachable: 0 };
  const loaded = await Promise.allSettled(hubs.map((hub) => loadHubIndex(hub)));
  for (const outcome of loaded) {
    if (outcome.status === "rejected") {
      result.warnings.push((outcome.reason as Error).message);
      continue;
    }
    result.reachable++;
    result.warnings.push(...outcome.value.warnings);
    for (const entry of outcome.value.entries) {
      const haystack = `${entry.name}\n${entry.description}`.toLowerCase();
      if (!needle || haystack.includes(needle)) result.matches.push(entry);
    }
  }
  return result;
}

/**
 * The hub entry `spec` names: `hub-name/skill-name`, or a bare skill name looked up in every hub
 * (it must be in exactly one). Throws a HubError saying what to do when it is not found.
 */
export async function findHubEntry(hubs: readonly HubConfig[], spec: string): Promise<HubEntry> {
  const slash = spec.indexOf("/");
  const hubName = slash === -1 ? undefined : spec.slice(0, slash);
  const skill = slash === -1 ? spec : spec.slice(slash + 1);
  if (!hubs.length) {
    throw new HubError(
      `"${spec}" is not a file, folder or URL, and no skills hubs are configured (add one under skills.hubs in config.yaml)`,
    );
  }
  const candidates = hubName === undefined ? hubs : hubs.filter((hub) => hub.name === hubName);
  if (!candidates.length) {
    throw new HubError(`no hub named "${hubName}" in skills.hubs (configured: ${hubs.map((h) => h.name).join(", ")})`);
  }
  const found: HubEntry[] = [];
  const failures: string[] = [];
  for (const hub of candidates) {
    try {
      const entry = (await loadHubIndex(hub)).entries.find((e) => e.name === skill);
      if (entry) found.push(entry);
    } catch (error) {
      failures.push((error as Error).message);
    }
  }
  if (found.length === 1) return found[0]!;
  if (found.length > 1) {
    const where = found.map((entry) => `${entry.hub}/${entry.name}`).join(", ");
    throw new HubError(`"${skill}" is in several hubs (${where}); name one, e.g. ${found[0]!.hub}/${skill}`);
  }
  const scope =
    hubName === undefined ? `the configured hubs (${hubs.map((h) => h.name).join(", ")})` : `hub "${hubName}"`;
  const unreachable = failures.length ? `; ${failures.join("; ")}` : "";
  throw new HubError(`no skill named "${skill}" in ${scope} (see hermes skills search)${unreachable}`);
}
