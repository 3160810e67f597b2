/**
 * Where a skill comes from, and fetching it into a work folder inside the quarantine: a local
 * folder (or its SKILL.md), a `.tar.gz`/`.tgz` (local or http(s)), a git repository, a direct
 * SKILL.md URL, or an entry of a configured hub index (whose sha256 must match the download).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseSkillMarkdown, SKILL_FILE } from "../frontmatter.js";
import { sha256 } from "../skill-files.js";
import { extractTarball, gitClone, isGitUrl } from "./archive.js";
import { findHubEntry, type HubConfig } from "./hub-index.js";
import { download, HubError, hasScheme } from "./net.js";

export type SourceKind = "directory" | "tarball" | "git" | "skill-md" | "hub";
/** builtin: seeded from the package; trusted: a trusted hub or a local path; community: the rest. */
export type TrustLevel = "builtin" | "trusted" | "community";

/** A skill's source as the lock file records it, enough to fetch it again. */
export interface SourceRef {
  kind: SourceKind;
  /** Local folder or tarball (directory, local tarball). */
  path?: string;
  /** http(s) or git URL; for a hub, the artifact URL at install time. */
  url?: string;
  /** The hub's name and the skill's name in its index (hub). */
  hub?: string;
  entry?: string;
}

export interface Fetched {
  /** The folder holding what was fetched (a skill, or a tree with skills in it). */
  dir: string;
  /** sha256 of the downloaded artifact (tarball, SKILL.md, hub artifact). */
  sha256?: string;
  /** The commit a git source was cloned at. */
  revision?: string;
  /** Trust of the source at fetch time (a hub's trust comes from the config). */
  trust: TrustLevel;
  /** For hub entries, the entry's name. */
  entryName?: string;
  /** For hub entries, the artifact URL the index lists now. */
  url?: string;
}

const TARBALL = /\.(?:tar\.gz|tgz)$/i;

/** How a source is shown to the user. */
export function describeSource(source: SourceRef): string {
  if (source.kind === "hub") return `hub ${source.hub} (${source.url})`;
  if (source.kind === "skill-md") return `SKILL.md at ${source.url}`;
  return `${source.kind} ${source.path ?? source.url}`;
}

/** The trust level of a source; hubs take theirs from the configuration. */
export function sourceTrust(source: SourceRef, hubs: readonly HubConfig[]): TrustLevel {
  if (source.kind === "directory") return "trusted";
  if (source.kind === "tarball") return source.path ? "trusted" : "community";
  if (source.kind === "hub") return hubs.find((hub) => hub.name === source.hub)?.trust ?? "community";
  return "community";
}

function urlPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}

function localSource(path: string): SourceRef | undefined {
  const full = resolve(path);
  if (!existsSync(full)) return undefined;
  const stat = statSync(full);
  if (stat.isDirectory()) return { kind: "directory", path: full };
  if (TARBALL.test(full)) return { kind: "tarball", path: full };
  if (basename(full) === SKILL_FILE || full.toLowerCase().endsWith(".md")) {
    return { kind: "directory", path: dirname(full) };
  }
  throw new HubError(`${full} is neither a folder, a SKILL.md nor a .tar.gz/.tgz archive`);
}

function fileUrlSource(url: string): SourceRef {
  const path = fileURLToPath(url);
  const bare = existsSync(join(path, "HEAD")) && existsSync(join(path, "objects"));
  if (/\.git\/?$/.test(path) || bare || existsSync(join(path, ".git"))) return { kind: "git", url };
  const local = localSource(path);
  if (!local) throw new HubError(`${path} does not exist`);
  return local;
}

/**
 * What `spec` names: a URL, an existing local path, `hub/skill`, or a bare skill name found in
 * one configured hub. Throws a HubError saying what was expected when it names nothing.
 */
export async function resolveSource(spec: string, hubs: readonly HubConfig[]): Promise<SourceRef> {
  const text = spec.trim();
  if (!text) throw new HubError("say what to install: a folder, a .tar.gz, a URL, or hub-name/skill-name");
  if (hasScheme(text, "file:")) return fileUrlSource(text);
  if (hasScheme(text, "http:", "https:")) {
    const path = urlPath(text);
    if (TARBALL.test(path)) return { kind: "tarball", url: text };
    if (/\.md$/i.test(path)) return { kind: "skill-md", url: text };
    if (/\.json$/i.test(path)) {
      throw new HubError(
        `${text} looks like a hub index: add it under skills.hubs in config.yaml, then install hub/skill`,
      );
    }
    return { kind: "git", url: text };
  }
  if (isGitUrl(text)) return { kind: "git", url: text };
  const local = localSource(text);
  if (local) return local;
  if (/^(?:[A-Za-z0-9][\w.-]*\/)?[a-z0-9][a-z0-9-]{0,63}$/.test(text)) {
    const entry = await findHubEntry(hubs, text);
    return { kind: "hub", hub: entry.hub, entry: entry.name, url: entry.url };
  }
  throw new HubError(`${resolve(text)} does not exist, and "${text}" is not a URL or a hub skill name`);
}

async function fetchTarballBytes(bytes: Buffer, work: string, label: string): Promise<string> {
  const file = join(work, "artifact.tar.gz");
  writeFileSync(file, bytes);
  const dir = join(work, "unpacked");
  mkdirSync(dir);
  await extractTarball(file, dir, label);
  return dir;
}

function skillMdFolder(bytes: Buffer, work: string): string {
  const dir = join(work, "skill-md");
  mkdirSync(dir);
  writeFileSync(join(dir, SKILL_FILE), bytes);
  return dir;
}

async function fetchHub(source: SourceRef, hubs: readonly HubConfig[], work: string) {
  const entry = await findHubEntry(
    hubs.filter((hub) => hub.name === source.hub),
    `${source.hub}/${source.entry}`,
  );
  const bytes = await download(entry.url);
  const actual = sha256(bytes);
  if (actual !== entry.sha256) {
    throw new HubError(
      `checksum mismatch for ${entry.hub}/${entry.name}: the hub lists sha256 ${entry.sha256}, the download from ${entry.url} has ${actual}; not installed`,
    );
  }
  const path = urlPath(entry.url);
  const dir = TARBALL.test(path)
    ? await fetchTarballBytes(bytes, work, entry.url)
    : /\.md$/i.test(path)
      ? skillMdFolder(bytes, work)
      : undefined;
  if (!dir) throw new HubError(`hub entry ${entry.hub}/${entry.name} must point to a .tar.gz/.tgz or a SKILL.md`);
  return { dir, sha256: actual, trust: entry.trust, entryName: entry.name, url: entry.url };
}

/**
 * Fetches `source` into the empty work folder `work`. Hub sources are looked up again in their
 * index, so an update gets the hub's current URL and checksum (returned as `url`).
 */
export async function fetchSource(source: SourceRef, work: string, hubs: readonly HubConfig[]): Promise<Fetched> {
  const trust = sourceTrust(source, hubs);
  switch (source.kind) {
    case "directory": {
      // Read in place: only the skill folder picked from it is copied (staged) into quarantine.
      const from = source.path!;
      if (!existsSync(from) || !statSync(from).isDirectory()) throw new HubError(`${from} is not a folder`);
      return { dir: from, trust };
    }
    case "tarball": {
      const bytes = source.path ? readFileSync(source.path) : await download(source.url!);
      const dir = await fetchTarballBytes(bytes, work, source.path ?? source.url!);
      return { dir, sha256: sha256(bytes), trust };
    }
    case "skill-md": {
      const bytes = await download(source.url!);
      return { dir: skillMdFolder(bytes, work), sha256: sha256(bytes), trust };
    }
    case "git": {
      const dir = join(work, "clone");
      const revision = await gitClone(source.url!, dir);
      return { dir, revision, trust };
    }
    case "hub": {
      if (!hubs.some((hub) => hub.name === source.hub)) {
        throw new HubError(`hub "${source.hub}" is no longer configured in skills.hubs`);
      }
      if (!source.entry) throw new HubError("a hub source needs the skill's name in the hub");
      const got = await fetchHub(source, hubs, work);
      return { dir: got.dir, sha256: got.sha256, trust: got.trust, entryName: got.entryName, url: got.url };
    }
  }
}

/** The name a skill folder installs under: its frontmatter name, else its folder name. */
export function skillNameOf(dir: string, fallback = basename(dir)): string {
  try {
    const parsed = parseSkillMarkdown(readFileSync(join(dir, SKILL_FILE), "utf8"));
    if (parsed.frontmatter && /^[a-z0-9][a-z0-9-]{0,63}$/.test(parsed.frontmatter.name)) {
      return parsed.frontmatter.name;
    }
  } catch {
    // The scan reports an unreadable SKILL.md.
  }
  return fallback;
}

/** Folders under `root` (itself included, three levels deep, hidden ones skipped) holding a SKILL.md. */
function skillFolders(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (existsSync(join(dir, SKILL_FILE))) out.push(dir);
    if (depth >= 3) return;
    for (const entry of safeReaddir(dir)) {
      const path = join(dir, entry);
      if (!entry.startsWith(".") && isPlainDir(path)) walk(path, depth + 1);
    }
  };
  walk(root, 0);
  return out;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function isPlainDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** A readable default name for a source whose SKILL.md names no valid skill. */
export function fallbackName(source: SourceRef): string {
  const last = basename(source.path ?? urlPath(source.url ?? "")).replace(/\.(?:git|tar\.gz|tgz)$/i, "");
  if (source.kind === "skill-md") return basename(dirname(urlPath(source.url ?? ""))) || "skill";
  return last || "skill";
}

/**
 * The skill folder inside what was fetched: the one named `wanted` when given, else the top
 * folder when it holds a SKILL.md, else the only folder that does. Throws a HubError listing the
 * skills found when the choice is not clear.
 */
export function locateSkillRoot(fetched: string, fallback: string, wanted?: string): { dir: string; name: string } {
  const folders = skillFolders(fetched);
  const named = folders.map((dir) => ({ dir, name: skillNameOf(dir, dir === fetched ? fallback : basename(dir)) }));
  if (wanted) {
    const hit = named.find((skill) => skill.name === wanted || basename(skill.dir) === wanted);
    if (hit) return hit;
    if (named.length === 1) {
      throw new HubError(`the source holds the skill "${named[0]!.name}", not "${wanted}"`);
    }
  } else {
    if (named[0]?.dir === fetched) return named[0];
    if (named.length === 1) return named[0]!;
  }
  if (!named.length) throw new HubError(`the source holds no ${SKILL_FILE}`);
  const list = named.map((skill) => relative(fetched, skill.dir) || skill.name).join(", ");
  const what = wanted ? `no skill named "${wanted}"` : `${named.length} skills`;
  throw new HubError(`the source holds ${what} (${list}); pick one with --name`);
}
