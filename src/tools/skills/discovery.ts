/**
 * Finds installed skills: `$HERMES_HOME/skills/` (skills directly inside, or one level down in
 * category folders) and the project's `.hermes/skills/`, whose skills replace user skills of
 * the same name. A broken skill is reported as a problem and left out; it never stops discovery.
 */
import { existsSync, readdirSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { isDirectory } from "../../util/fs-kind.js";
import { SKILL_FILE, type SkillFrontmatter, type SkillPlatform, skillNameProblem } from "./frontmatter.js";
import { type SkillScan, SkillScanCache } from "./scan-cache.js";

export type SkillSource = "user" | "project" | "external";

export interface Skill {
  /** The skill's directory name, which is also its `/command` and its name for the tools. */
  name: string;
  description: string;
  category?: string;
  source: SkillSource;
  dir: string;
  skillFile: string;
  frontmatter: SkillFrontmatter;
}

export interface SkillProblem {
  path: string;
  message: string;
}

export interface SkillCatalog {
  skills: Skill[];
  problems: SkillProblem[];
}

export interface DiscoverOptions {
  /** HERMES_HOME. */
  home: string;
  /** Where to look for a project's `.hermes/skills/` (this folder and its parents up to the repository root). */
  cwd?: string;
  /** Defaults to the running platform; skills whose `platforms` exclude it are left out. */
  platform?: NodeJS.Platform;
  /**
   * Shared skill folders (`skills.external_dirs`, absolute paths), read-only. A skill of the
   * same name in the user's or the project's folder takes precedence.
   */
  externalDirs?: readonly string[];
}

export function userSkillsDir(home: string): string {
  return join(home, "skills");
}

/**
 * The project skills folder for `cwd`: the nearest `.hermes/skills/` at or above it, looking no
 * higher than the repository root (a folder holding `.git`) and never at the user's home folder.
 */
export function projectSkillsDir(cwd: string, home: string): string | undefined {
  const userDir = resolve(userSkillsDir(home));
  const stopAt = resolve(homedir());
  let dir = resolve(cwd);
  while (dir !== stopAt) {
    const candidate = join(dir, ".hermes", "skills");
    if (candidate !== userDir && isDirectory(candidate)) return candidate;
    if (existsSync(join(dir, ".git"))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
  return undefined;
}

function visibleSubdirs(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((name) => !name.startsWith(".") && isDirectory(join(dir, name))).sort();
}

function platformName(platform: NodeJS.Platform): SkillPlatform | undefined {
  if (platform === "darwin") return "macos";
  if (platform === "win32") return "windows";
  if (platform === "linux") return "linux";
  return undefined;
}

function loadSkill(
  dir: string,
  category: string | undefined,
  source: SkillSource,
  catalog: SkillCatalog,
  scans: SkillScanCache,
) {
  const skillFile = join(dir, SKILL_FILE);
  const name = basename(dir);
  let parsed: SkillScan;
  try {
    parsed = scans.scan(skillFile);
  } catch (error) {
    catalog.problems.push({ path: skillFile, message: `cannot be read: ${(error as Error).message}` });
    return undefined;
  }
  const badName = skillNameProblem(name, "skill folder name");
  if (badName) catalog.problems.push({ path: dir, message: badName });
  for (const message of [...parsed.errors, ...parsed.warnings]) catalog.problems.push({ path: skillFile, message });
  if (!parsed.frontmatter) return undefined;
  // The description goes into every system prompt, so a poisoned one keeps the skill out.
  const threats = parsed.threats;
  if (threats.length) {
    catalog.problems.push({
      path: skillFile,
      message: `the description was flagged by the security scan (${threats.join(", ")}); the skill is left out`,
    });
    return undefined;
  }
  if (parsed.frontmatter.name !== name) {
    catalog.problems.push({
      path: skillFile,
      message: `the frontmatter name "${parsed.frontmatter.name}" differs from the folder name; the skill is called "${name}"`,
    });
  }
  const resolvedCategory = category ?? parsed.frontmatter.category;
  const skill: Skill = {
    name,
    description: parsed.frontmatter.description,
    source,
    dir,
    skillFile,
    frontmatter: parsed.frontmatter,
    ...(resolvedCategory ? { category: resolvedCategory } : {}),
  };
  return skill;
}

function scanRoot(root: string, source: SkillSource, catalog: SkillCatalog, scans: SkillScanCache): Skill[] {
  const found: Skill[] = [];
  for (const entry of visibleSubdirs(root)) {
    const dir = join(root, entry);
    if (existsSync(join(dir, SKILL_FILE))) {
      const skill = loadSkill(dir, undefined, source, catalog, scans);
      if (skill) found.push(skill);
      continue;
    }
    for (const inner of visibleSubdirs(dir)) {
      if (!existsSync(join(dir, inner, SKILL_FILE))) continue;
      const skill = loadSkill(join(dir, inner), entry, source, catalog, scans);
      if (skill) found.push(skill);
    }
  }
  return found;
}

export function compareSkills(a: Skill, b: Skill): number {
  const byCategory = compareText(a.category ?? "", b.category ?? "");
  return byCategory || compareText(a.name, b.name);
}

/** Code-point order, the same on every machine (unlike locale collation). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Every usable skill, sorted by category then name, with the problems met on the way. */
export function discoverSkills(options: DiscoverOptions): SkillCatalog {
  const catalog: SkillCatalog = { skills: [], problems: [] };
  const current = platformName(options.platform ?? process.platform);
  const byName = new Map<string, Skill>();
  // Later roots win a name: shared folders, then the user's, then the project's.
  const roots: Array<[string | undefined, SkillSource]> = [
    ...(options.externalDirs ?? []).map((dir): [string, SkillSource] => [dir, "external"]),
    [userSkillsDir(options.home), "user"],
    [options.cwd ? projectSkillsDir(options.cwd, options.home) : undefined, "project"],
  ];
  const scans = SkillScanCache.open(options.home);
  // Among the shared folders the first listed keeps a name.
  const shared = new Set<string>();
  for (const [root, source] of roots) {
    if (!root) continue;
    if (source === "external" && !isDirectory(root)) {
      catalog.problems.push({ path: root, message: "skills.external_dirs names a folder that does not exist" });
      continue;
    }
    const seen = new Set<string>();
    for (const skill of scanRoot(root, source, catalog, scans)) {
      const platforms = skill.frontmatter.platforms;
      if (platforms?.length && current && !platforms.includes(current)) continue;
      if (seen.has(skill.name)) {
        const first = byName.get(skill.name);
        catalog.problems.push({
          path: skill.skillFile,
          message: `another skill named "${skill.name}" is already installed at ${first?.dir}; this one is ignored`,
        });
        continue;
      }
      seen.add(skill.name);
      if (source === "external") {
        if (shared.has(skill.name)) continue;
        shared.add(skill.name);
      }
      byName.set(skill.name, skill);
    }
  }
  scans.save();
  catalog.skills = [...byName.values()].sort(compareSkills);
  return catalog;
}

export function findSkill(skills: readonly Skill[], name: string): Skill | undefined {
  return skills.find((skill) => skill.name === name);
}
