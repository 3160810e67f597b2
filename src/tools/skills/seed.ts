/**
 * Copies the skills bundled with the package into `$HERMES_HOME/skills/`. A manifest records
 * the hash of every file as it was seeded, so a later run updates only files the user has not
 * changed, never restores what the user deleted, and never touches a skill the user made.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../util/package-root.js";
import { userSkillsDir } from "./discovery.js";
import { SKILL_FILE } from "./frontmatter.js";
import { locateUserSkill } from "./manage.js";
import { atomicWrite, listSkillFiles, sha256 } from "./skill-files.js";

export const SEED_MANIFEST = ".bundled_manifest.json";

export interface SeedReport {
  /** Files written for the first time (paths relative to the skills folder). */
  copied: string[];
  /** Files replaced by a newer bundled version because the user had not edited them. */
  updated: string[];
  /** Files left alone because the user edited or deleted them. */
  kept: string[];
  /** Bundled skills not seeded because the user has a skill of that name. */
  skipped: string[];
}

interface Manifest {
  files: Record<string, string>;
}

/** The package's `skills/` folder, found from the package root wherever this module runs from. */
export function bundledSkillsDir(): string {
  return join(packageRoot(import.meta.url), "skills");
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith(".") && statSync(join(dir, name)).isDirectory())
      .sort();
  } catch {
    return [];
  }
}

/** Skill folders of the bundle, relative to it: `name` or `category/name`. */
function bundledSkills(bundleDir: string): string[] {
  const out: string[] = [];
  for (const entry of subdirs(bundleDir)) {
    if (existsSync(join(bundleDir, entry, SKILL_FILE))) out.push(entry);
    else {
      for (const inner of subdirs(join(bundleDir, entry))) {
        if (existsSync(join(bundleDir, entry, inner, SKILL_FILE))) out.push(`${entry}/${inner}`);
      }
    }
  }
  return out;
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

function readManifest(path: string): Manifest {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<Manifest>;
    if (parsed && typeof parsed.files === "object" && parsed.files !== null) return { files: { ...parsed.files } };
  } catch {
    // A missing or damaged manifest only means nothing is known to be ours yet.
  }
  return { files: {} };
}

export function seedBundledSkills(home: string, options: { bundleDir?: string } = {}): SeedReport {
  const bundleDir = options.bundleDir ?? bundledSkillsDir();
  const root = userSkillsDir(home);
  const manifestPath = join(root, SEED_MANIFEST);
  const manifest = readManifest(manifestPath);
  const report: SeedReport = { copied: [], updated: [], kept: [], skipped: [] };
  let changed = false;

  for (const skillRel of bundledSkills(bundleDir)) {
    const name = skillRel.split("/").pop() ?? skillRel;
    const ours = Object.keys(manifest.files).some((rel) => rel.startsWith(`${skillRel}/`));
    if (!ours && locateUserSkill(home, name)) {
      report.skipped.push(skillRel);
      continue;
    }
    if (ours && !existsSync(join(root, skillRel))) {
      report.kept.push(skillRel);
      continue;
    }
    const files = [SKILL_FILE, ...listSkillFiles(join(bundleDir, skillRel))];
    for (const file of files) {
      const rel = `${skillRel}/${file}`;
      const content = readFileSync(join(bundleDir, skillRel, file));
      const dest = join(root, skillRel, file);
      const current = readIfPresent(dest);
      const seededHash = manifest.files[rel];
      // The usual start: the file is as seeded. Comparing bytes spares hashing (and node:crypto).
      if (seededHash !== undefined && current?.equals(content)) continue;
      const bundledHash = sha256(content);
      const destHash = current === undefined ? undefined : sha256(current);
      if (destHash === undefined) {
        if (seededHash !== undefined) {
          report.kept.push(rel);
          continue;
        }
        atomicWrite(dest, content);
        report.copied.push(rel);
      } else if (destHash === bundledHash) {
        // Already the bundled content: nothing to write.
      } else if (seededHash !== undefined && destHash === seededHash) {
        atomicWrite(dest, content);
        report.updated.push(rel);
      } else {
        report.kept.push(rel);
        continue;
      }
      if (seededHash !== bundledHash) {
        manifest.files[rel] = bundledHash;
        changed = true;
      }
    }
  }
  if (changed) atomicWrite(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return report;
}
