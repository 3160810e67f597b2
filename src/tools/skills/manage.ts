/**
 * Changes to the user's skills under `$HERMES_HOME/skills/`: create, update, patch and delete a
 * skill, and add or remove its supporting files. Every write is validated, threat-scanned and
 * atomic; project skills and anything outside the user skills folder are never touched.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fuzzyFindAndReplace } from "../fuzzy-patch.js";
import { userSkillsDir } from "./discovery.js";
import {
  MAX_SKILL_FILE_BYTES,
  SKILL_FILE,
  SUPPORT_DIRS,
  skillMarkdownProblems,
  skillNameProblem,
} from "./frontmatter.js";
import { atomicWrite, isInside, resolveInside } from "./skill-files.js";
import { threatRefusal } from "./threat-check.js";

export const MANAGE_ACTIONS = ["create", "update", "patch", "delete", "write_file", "remove_file"] as const;
export type ManageAction = (typeof MANAGE_ACTIONS)[number];

export interface ManageArgs {
  action: ManageAction;
  name: string;
  /** Whole SKILL.md text (create, update). */
  content?: string;
  /** Category folder for a new skill (create). */
  category?: string;
  /** File inside the skill (patch: defaults to SKILL.md; write_file, remove_file). */
  file_path?: string;
  file_content?: string;
  old_string?: string;
  new_string?: string;
  replace_all?: boolean;
}

export type ManageResult = { success: true; message: string; path: string } | { success: false; error: string };

const fail = (error: string): ManageResult => ({ success: false, error });

/** The directory of the user skill `name` (directly in the skills folder or in a category folder). */
export function locateUserSkill(home: string, name: string): string | undefined {
  if (skillNameProblem(name)) return undefined;
  const root = userSkillsDir(home);
  if (existsSync(join(root, name, SKILL_FILE))) return join(root, name);
  let categories: string[] = [];
  try {
    categories = readdirSync(root)
      .filter((entry) => !entry.startsWith("."))
      .sort();
  } catch {
    return undefined;
  }
  for (const category of categories) {
    if (existsSync(join(root, category, SKILL_FILE))) continue;
    if (existsSync(join(root, category, name, SKILL_FILE))) return join(root, category, name);
  }
  return undefined;
}

/** Checks a supporting-file path: inside references/, templates/, scripts/ or assets/ and no escape. */
function supportFile(skillDir: string, filePath: string | undefined): { path: string } | { error: string } {
  if (!filePath?.trim()) return { error: "file_path is required for this action" };
  const parts = filePath.replace(/\\/g, "/").split("/").filter(Boolean);
  if (parts.includes("..")) return { error: `"${filePath}" climbs out with '..'; give a path inside the skill` };
  const [top] = parts;
  if (parts.length < 2 || !top || !(SUPPORT_DIRS as readonly string[]).includes(top)) {
    return { error: `supporting files go under ${SUPPORT_DIRS.join("/, ")}/ (for example references/notes.md)` };
  }
  return resolveInside(skillDir, parts.join("/"));
}

function validSkillMd(text: string, name: string): string | undefined {
  const problems = skillMarkdownProblems(text, name);
  if (problems.length) return `SKILL.md is not valid: ${problems.join("; ")}`;
  return threatRefusal(text, "SKILL.md");
}

function create(home: string, args: ManageArgs): ManageResult {
  const content = args.content ?? "";
  if (args.category !== undefined && args.category !== "") {
    const badCategory = skillNameProblem(args.category, "category");
    if (badCategory) return fail(badCategory);
  }
  const invalid = validSkillMd(content, args.name);
  if (invalid) return fail(invalid);
  const existing = locateUserSkill(home, args.name);
  if (existing) return fail(`a skill named "${args.name}" already exists at ${existing}; use update or patch`);
  const root = userSkillsDir(home);
  if (existsSync(join(root, args.name))) return fail(`${join(root, args.name)} already exists and is not a skill`);
  const dir = args.category ? join(root, args.category, args.name) : join(root, args.name);
  atomicWrite(join(dir, SKILL_FILE), content);
  return { success: true, message: `created skill "${args.name}"`, path: dir };
}

function update(dir: string, args: ManageArgs): ManageResult {
  const content = args.content ?? "";
  const invalid = validSkillMd(content, args.name);
  if (invalid) return fail(invalid);
  atomicWrite(join(dir, SKILL_FILE), content);
  return { success: true, message: `replaced SKILL.md of "${args.name}"`, path: dir };
}

function patch(dir: string, args: ManageArgs): ManageResult {
  const isSkillMd = !args.file_path || args.file_path === SKILL_FILE;
  const target = isSkillMd ? { path: join(dir, SKILL_FILE) } : supportFile(dir, args.file_path);
  if ("error" in target) return fail(target.error);
  if (!existsSync(target.path)) return fail(`${args.file_path} does not exist in "${args.name}"`);
  const current = readFileSync(target.path, "utf8");
  const replaced = fuzzyFindAndReplace(current, args.old_string ?? "", args.new_string ?? "", {
    replaceAll: Boolean(args.replace_all),
  });
  if (replaced.error) return fail(replaced.error);
  const label = isSkillMd ? SKILL_FILE : (args.file_path ?? "");
  const invalid = isSkillMd ? validSkillMd(replaced.content, args.name) : fileProblem(replaced.content, label);
  if (invalid) return fail(invalid);
  atomicWrite(target.path, replaced.content);
  return { success: true, message: `patched ${label} of "${args.name}" (${replaced.count} change(s))`, path: dir };
}

function fileProblem(content: string, label: string): string | undefined {
  const bytes = Buffer.byteLength(content, "utf8");
  if (bytes > MAX_SKILL_FILE_BYTES) return `${label} is ${bytes} bytes (at most ${MAX_SKILL_FILE_BYTES})`;
  return threatRefusal(content, label);
}

function writeFile(dir: string, args: ManageArgs): ManageResult {
  const target = supportFile(dir, args.file_path);
  if ("error" in target) return fail(target.error);
  if (args.file_content === undefined) return fail("write_file needs file_content");
  const invalid = fileProblem(args.file_content, args.file_path ?? "");
  if (invalid) return fail(invalid);
  atomicWrite(target.path, args.file_content);
  return { success: true, message: `wrote ${args.file_path} in "${args.name}"`, path: dir };
}

/** Removes empty folders from `from` up to, not including, `stop`. */
function pruneEmptyDirs(from: string, stop: string): void {
  for (let dir = from; isInside(stop, dir); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
  }
}

function removeFile(dir: string, args: ManageArgs): ManageResult {
  const target = supportFile(dir, args.file_path);
  if ("error" in target) return fail(target.error);
  if (!existsSync(target.path) || !lstatSync(target.path).isFile()) {
    return fail(`${args.file_path} is not a file of "${args.name}"`);
  }
  rmSync(target.path);
  pruneEmptyDirs(dirname(target.path), dir);
  return { success: true, message: `removed ${args.file_path} from "${args.name}"`, path: dir };
}

/** Deletes the user skill in `dir`, refusing symlinks and anything not strictly inside the skills folder. */
export function deleteSkillDir(home: string, dir: string, name: string): ManageResult {
  const root = userSkillsDir(home);
  if (!isInside(root, dir) || lstatSync(dir).isSymbolicLink()) {
    return fail(`refusing to delete ${dir}: it is not a skill folder inside ${root}`);
  }
  rmSync(dir, { recursive: true, force: true });
  pruneEmptyDirs(dirname(dir), root);
  return { success: true, message: `deleted skill "${name}"`, path: dir };
}

/** Runs one skill_manage action for the user skills of `home`. Never throws for bad input. */
export function manageSkill(home: string, args: ManageArgs): ManageResult {
  const badName = skillNameProblem(args.name);
  if (badName) return fail(badName);
  if (args.action === "create") return create(home, args);
  const dir = locateUserSkill(home, args.name);
  if (!dir) {
    return fail(
      `no skill named "${args.name}" in ${userSkillsDir(home)} (project skills are edited in the project, not here); see skills_list`,
    );
  }
  switch (args.action) {
    case "update":
      return update(dir, args);
    case "patch":
      return patch(dir, args);
    case "delete":
      return deleteSkillDir(home, dir, args.name);
    case "write_file":
      return writeFile(dir, args);
    case "remove_file":
      return removeFile(dir, args);
  }
}
