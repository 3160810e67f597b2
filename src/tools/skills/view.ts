/** Reading a skill: its SKILL.md with the list of supporting files, or one supporting file. */
import { readFileSync, statSync } from "node:fs";
import type { Skill } from "./discovery.js";
import { MAX_SKILL_FILE_BYTES, SKILL_FILE } from "./frontmatter.js";
import { isText, listSkillFiles, resolveInside } from "./skill-files.js";

export type SkillView =
  | {
      success: true;
      name: string;
      source: Skill["source"];
      path: string;
      content: string;
      /** Supporting files, viewable with the same name and a file_path (SKILL.md views only). */
      linked_files?: string[];
      file_path?: string;
    }
  | { success: false; error: string };

export function viewSkill(skill: Skill, filePath?: string): SkillView {
  const base = { success: true as const, name: skill.name, source: skill.source };
  if (!filePath || filePath === SKILL_FILE) {
    return {
      ...base,
      path: skill.skillFile,
      content: readFileSync(skill.skillFile, "utf8"),
      linked_files: listSkillFiles(skill.dir),
    };
  }
  const target = resolveInside(skill.dir, filePath);
  if ("error" in target) return { success: false, error: target.error };
  let size: number;
  try {
    const stat = statSync(target.path);
    if (!stat.isFile()) throw new Error("not a file");
    size = stat.size;
  } catch {
    return { success: false, error: `"${filePath}" is not a file of skill "${skill.name}"; see its linked_files` };
  }
  if (size > MAX_SKILL_FILE_BYTES) {
    return {
      success: false,
      error: `"${filePath}" is ${size} bytes, too large to view (at most ${MAX_SKILL_FILE_BYTES})`,
    };
  }
  const bytes = readFileSync(target.path);
  const content = isText(bytes) ? bytes.toString("utf8") : `[binary file, ${size} bytes: not shown]`;
  return { ...base, path: target.path, file_path: filePath, content };
}
