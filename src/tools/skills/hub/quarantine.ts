/**
 * The quarantine: every fetched skill is unpacked and scanned in
 * `$HERMES_HOME/skills/.quarantine/<name>-<random>/` before anything reaches the skills folder.
 * Hidden folders are never read as skills, so nothing in quarantine is loaded by the agent.
 * A quarantine folder is removed when its install ends, whatever the outcome; ones left by a
 * crashed run are removed by the next hub operation once they are an hour old.
 */
import { randomBytes } from "node:crypto";
import { cpSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { userSkillsDir } from "../discovery.js";
import { HubError } from "./net.js";

export const QUARANTINE_DIR = ".quarantine";
const STALE_MS = 60 * 60 * 1000;

export function quarantineRoot(home: string): string {
  return join(userSkillsDir(home), QUARANTINE_DIR);
}

export interface Quarantine {
  /** The quarantine folder of this install. */
  dir: string;
  /** An empty folder for fetching the source into. */
  work: string;
  /** Removes the quarantine folder. */
  dispose(): void;
}

/** Removes quarantine folders older than an hour (left behind by an interrupted install). */
export function cleanStaleQuarantine(home: string, now = Date.now()): void {
  const root = quarantineRoot(home);
  let entries: string[];
  try {
    entries = readdirSync(root);
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(root, entry);
    try {
      if (now - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Another process may be removing it.
    }
  }
}

/** A fresh quarantine folder named after `label` (a skill or source name). */
export function openQuarantine(home: string, label: string): Quarantine {
  cleanStaleQuarantine(home);
  const safe =
    label
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40) || "skill";
  const dir = join(quarantineRoot(home), `${safe}-${randomBytes(6).toString("hex")}`);
  const work = join(dir, "fetched");
  mkdirSync(work, { recursive: true });
  return { dir, work, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Most files, and bytes, a folder may hold to be staged at all (the scan's own limits are lower). */
export const MAX_STAGED_FILES = 2000;
export const MAX_STAGED_BYTES = 64 * 1024 * 1024;

/** Throws a HubError when the folder (hidden entries aside) is too big to be a skill. */
function checkSize(dir: string): void {
  let files = 0;
  let bytes = 0;
  const walk = (current: string): void => {
    for (const entry of readdirSync(current)) {
      if (entry.startsWith(".")) continue;
      const path = join(current, entry);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else {
        files++;
        bytes += stat.size;
      }
      if (files > MAX_STAGED_FILES || bytes > MAX_STAGED_BYTES) {
        throw new HubError(`${dir} holds more than ${MAX_STAGED_FILES} files or 64 MB: it is not a skill folder`);
      }
    }
  };
  walk(dir);
}

/**
 * Copies the skill folder `from` to `to` without hidden entries (`.git`, editor files), keeping
 * symlinks as they are so the scan sees them. `to` must not exist.
 */
export function stageSkill(from: string, to: string): void {
  checkSize(from);
  cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (path) => path === from || !basename(path).startsWith("."),
  });
}
