/**
 * The skills index for the system prompt: names and one-line descriptions only, grouped by
 * category. The full instructions are loaded on demand with skill_view. The output depends on
 * nothing but its input and sorts with code-point order, so the prompt bytes stay stable.
 */
import { compareText, type Skill } from "./discovery.js";

/** Group label for skills without a category. */
export const UNCATEGORIZED = "general";
/** Descriptions longer than this are cut in the index (skill_view shows the whole skill). */
const INDEX_DESCRIPTION_CHARS = 240;

const HEADER = [
  "## Skills",
  "Skills hold proven workflows and this user's conventions. When one fits the task, even partly, load it with",
  "skill_view(name) and follow it, also for work you know how to do; otherwise go ahead without one.",
].join("\n");

function oneLine(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  return flat.length > INDEX_DESCRIPTION_CHARS ? `${flat.slice(0, INDEX_DESCRIPTION_CHARS - 1).trimEnd()}…` : flat;
}

/**
 * Categories listed by name only when a session works in the lean coding posture
 * (`agent.coding_context: focus`): the skills stay loadable, their descriptions are left out.
 */
export const NON_CODING_SKILL_CATEGORIES: ReadonlySet<string> = new Set([
  "apple",
  "communication",
  "cooking",
  "creative",
  "email",
  "finance",
  "gaming",
  "gifs",
  "health",
  "media",
  "music",
  "note-taking",
  "productivity",
  "shopping",
  "smart-home",
  "social-media",
  "travel",
]);

/**
 * The index text, or an empty string when there are no skills (so the prompt has no skills
 * layer). Skills of the `namesOnly` categories are listed without their descriptions.
 */
export function buildSkillsIndex(skills: readonly Skill[], namesOnly: ReadonlySet<string> = new Set()): string {
  if (!skills.length) return "";
  const groups = new Map<string, Skill[]>();
  for (const skill of skills) {
    const key = skill.category ?? UNCATEGORIZED;
    groups.set(key, [...(groups.get(key) ?? []), skill]);
  }
  const lines = [HEADER, "", "<available_skills>"];
  for (const category of [...groups.keys()].sort(compareText)) {
    lines.push(`  ${category}:`);
    const members = [...(groups.get(category) ?? [])].sort((a, b) => compareText(a.name, b.name));
    for (const skill of members) {
      lines.push(
        namesOnly.has(category) ? `    - ${skill.name}` : `    - ${skill.name}: ${oneLine(skill.description)}`,
      );
    }
  }
  lines.push("</available_skills>");
  return lines.join("\n");
}
