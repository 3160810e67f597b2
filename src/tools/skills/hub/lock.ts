/**
 * `$HERMES_HOME/skills/.hub-lock.json`: for every skill installed through `hermes skills install`,
 * where it came from, how far it was trusted, its verdict, the artifact's sha256 and a hash of
 * every file as installed, so `update` can tell which files the user has edited since.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { userSkillsDir } from "../discovery.js";
import { atomicWrite, sha256 } from "../skill-files.js";
import type { Verdict } from "./scan.js";
import type { SourceRef, TrustLevel } from "./sources.js";

export const HUB_LOCK_FILE = ".hub-lock.json";

export interface HubLockEntry {
  /** The skill folder relative to the skills folder, POSIX: `name` or `category/name`. */
  path: string;
  source: SourceRef;
  trust: TrustLevel;
  verdict: Verdict;
  /** sha256 of the downloaded artifact (tarball, SKILL.md, hub artifact). */
  sha256?: string;
  /** The commit of a git source. */
  revision?: string;
  installedAt: string;
  updatedAt?: string;
  /** sha256 of every file as installed, by POSIX path relative to the skill folder. */
  files: Record<string, string>;
}

export interface HubLock {
  version: 1;
  skills: Record<string, HubLockEntry>;
}

export function hubLockPath(home: string): string {
  return join(userSkillsDir(home), HUB_LOCK_FILE);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The lock file; an empty one when it is missing or unreadable. */
export function readHubLock(home: string): HubLock {
  const path = hubLockPath(home);
  if (!existsSync(path)) return { version: 1, skills: {} };
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (isRecord(data) && isRecord(data.skills)) {
      const skills: Record<string, HubLockEntry> = {};
      for (const [name, entry] of Object.entries(data.skills)) {
        if (isRecord(entry) && typeof entry.path === "string" && isRecord(entry.source) && isRecord(entry.files)) {
          skills[name] = entry as unknown as HubLockEntry;
        }
      }
      return { version: 1, skills };
    }
  } catch {
    // A damaged lock only means nothing is known about where skills came from.
  }
  return { version: 1, skills: {} };
}

export function writeHubLock(home: string, lock: HubLock): void {
  const sorted = Object.fromEntries(Object.entries(lock.skills).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  atomicWrite(hubLockPath(home), `${JSON.stringify({ version: 1, skills: sorted }, null, 2)}\n`);
}

/** Records (or replaces) one skill's entry. */
export function setLockEntry(home: string, name: string, entry: HubLockEntry): void {
  const lock = readHubLock(home);
  lock.skills[name] = entry;
  writeHubLock(home, lock);
}

/** Drops one skill's entry; returns whether there was one. */
export function removeLockEntry(home: string, name: string): boolean {
  const lock = readHubLock(home);
  if (!lock.skills[name]) return false;
  delete lock.skills[name];
  writeHubLock(home, lock);
  return true;
}

/** sha256 of every plain, non-hidden file under `dir`, by POSIX relative path. */
export function hashFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string, prefix: string): void => {
    let entries: string[];
    try {
      entries = readdirSync(current).sort();
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith(".")) continue;
      const path = join(current, entry);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, rel);
      else if (stat.isFile()) out[rel] = sha256(readFileSync(path));
    }
  };
  walk(dir, "");
  return out;
}

/** Files whose content differs between two hash maps (added, removed or changed), sorted. */
export function changedFiles(a: Record<string, string>, b: Record<string, string>): string[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => a[name] !== b[name]).sort();
}
