/**
 * Whole-directory checks of a skill, shared by `hermes skills install` and `hermes skills check`:
 * SKILL.md is valid, no file is too large or a symlink, and no text file trips the threat scan.
 */
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SkillProblem } from "./discovery.js";
import { MAX_SKILL_FILE_BYTES, SKILL_FILE, skillMarkdownProblems, skillNameProblem } from "./frontmatter.js";
import { isText } from "./skill-files.js";
import { scanSkillText } from "./threat-check.js";

/** A skill directory with more files than this is refused. */
export const MAX_SKILL_FILES = 500;

interface FileEntry {
  rel: string;
  path: string;
}

function walkFiles(dir: string, problems: SkillProblem[]): FileEntry[] {
  const out: FileEntry[] = [];
  const walk = (current: string, prefix: string): void => {
    for (const name of readdirSync(current).sort()) {
      if (name.startsWith(".")) continue;
      const path = join(current, name);
      const rel = prefix ? `${prefix}/${name}` : name;
      const stat = lstatSync(path);
      if (stat.isSymbolicLink())
        problems.push({ path, message: "is a symbolic link; skills may only hold plain files" });
      else if (stat.isDirectory()) walk(path, rel);
      else if (stat.isFile()) out.push({ rel, path });
    }
  };
  walk(dir, "");
  return out;
}

/** Problems of the skill in `dir` under `name` (empty when it is fit to use). */
export function auditSkillDir(dir: string, name: string): SkillProblem[] {
  const problems: SkillProblem[] = [];
  const badName = skillNameProblem(name);
  if (badName) problems.push({ path: dir, message: badName });
  const files = walkFiles(dir, problems);
  if (files.length > MAX_SKILL_FILES) {
    problems.push({ path: dir, message: `holds ${files.length} files (at most ${MAX_SKILL_FILES})` });
    return problems;
  }
  if (!files.some((file) => file.rel === SKILL_FILE)) {
    problems.push({ path: join(dir, SKILL_FILE), message: "is missing" });
  }
  for (const file of files) {
    const bytes = readFileSync(file.path);
    if (bytes.length > MAX_SKILL_FILE_BYTES) {
      problems.push({ path: file.path, message: `is ${bytes.length} bytes (at most ${MAX_SKILL_FILE_BYTES})` });
      continue;
    }
    if (!isText(bytes)) continue;
    const text = bytes.toString("utf8");
    if (file.rel === SKILL_FILE) {
      for (const message of skillMarkdownProblems(text, name)) problems.push({ path: file.path, message });
    }
    const threats = scanSkillText(text);
    if (threats.length)
      problems.push({ path: file.path, message: `flagged by the security scan: ${threats.join(", ")}` });
  }
  return problems;
}
