/**
 * Installing a skill folder from anywhere on disk into `$HERMES_HOME/skills/`, after the same
 * validation and threat scan the agent's own writes get. The copy is assembled in a hidden
 * folder and renamed into place, so a failed install leaves nothing half-copied.
 */
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { auditSkillDir } from "./audit.js";
import { userSkillsDir } from "./discovery.js";
import { parseSkillMarkdown, SKILL_FILE, skillNameProblem } from "./frontmatter.js";
import { locateUserSkill, type ManageResult } from "./manage.js";

export interface InstallOptions {
  /** Category folder to install into. */
  category?: string;
  /** Replace an installed skill of the same name. */
  force?: boolean;
}

function sourceFolder(path: string): string {
  const full = resolve(path);
  return basename(full) === SKILL_FILE ? dirname(full) : full;
}

/** The name a skill folder installs under: its frontmatter name, else its folder name. */
function installName(dir: string): string {
  try {
    const parsed = parseSkillMarkdown(readFileSync(join(dir, SKILL_FILE), "utf8"));
    if (parsed.frontmatter) return parsed.frontmatter.name;
  } catch {
    // The audit reports the unreadable SKILL.md.
  }
  return basename(dir);
}

export function installSkillDir(home: string, source: string, options: InstallOptions = {}): ManageResult {
  const from = sourceFolder(source);
  if (!existsSync(from) || !statSync(from).isDirectory()) {
    return { success: false, error: `${from} is not a folder holding a ${SKILL_FILE}` };
  }
  if (options.category) {
    const badCategory = skillNameProblem(options.category, "category");
    if (badCategory) return { success: false, error: badCategory };
  }
  const name = installName(from);
  const problems = auditSkillDir(from, name);
  if (problems.length) {
    const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
    return { success: false, error: `${from} cannot be installed:\n${lines.join("\n")}` };
  }
  const root = userSkillsDir(home);
  const existing = locateUserSkill(home, name);
  if (existing && !options.force) {
    return {
      success: false,
      error: `a skill named "${name}" is already installed at ${existing}; use --force to replace it`,
    };
  }
  const dest = options.category ? join(root, options.category, name) : (existing ?? join(root, name));
  if (!existing && existsSync(dest)) return { success: false, error: `${dest} already exists and is not a skill` };

  mkdirSync(root, { recursive: true });
  const staging = join(root, `.install-${randomBytes(4).toString("hex")}`);
  const trash = join(root, `.replaced-${randomBytes(4).toString("hex")}`);
  try {
    cpSync(from, staging, { recursive: true, filter: (path) => !basename(path).startsWith(".") || path === from });
    if (existing) renameSync(existing, trash);
    try {
      mkdirSync(dirname(dest), { recursive: true });
      renameSync(staging, dest);
    } catch (error) {
      if (existing) renameSync(trash, existing);
      throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(trash, { recursive: true, force: true });
  }
  return { success: true, message: `installed skill "${name}"`, path: dest };
}
