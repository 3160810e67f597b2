/**
 * Every skill is also a `/skill-name` command: `/debugging the login test hangs` becomes one
 * user message that carries the skill's instructions and states the request, so the model
 * does not need a skill_view round trip first.
 */
import { readFileSync } from "node:fs";
import { findSkill, type Skill } from "./discovery.js";
import { DEFAULT_SKILL_PREPROCESSING, preprocessSkillText, type SkillPreprocessing } from "./preprocess.js";
import { listSkillFiles } from "./skill-files.js";

export interface SkillCommand {
  skill: Skill;
  /** The user message to send in place of the typed command. */
  message: string;
}

const COMMAND = /^\/([A-Za-z0-9][A-Za-z0-9-]*)(?:\s+([\s\S]*))?$/;

/** `/name` commands for the installed skills, for help and completion. */
export function skillCommands(skills: readonly Skill[]): Array<{ command: string; description: string }> {
  return skills.map((skill) => ({ command: `/${skill.name}`, description: skill.description }));
}

/** The expanded message when `text` is `/skill-name [request]` for an installed skill; else undefined. */
export async function expandSkillCommand(
  text: string,
  skills: readonly Skill[],
  options: { sessionId?: string | undefined; preprocessing?: SkillPreprocessing } = {},
): Promise<SkillCommand | undefined> {
  const match = COMMAND.exec(text.trim());
  if (!match?.[1]) return undefined;
  const skill = findSkill(skills, match[1].toLowerCase());
  if (!skill) return undefined;
  let instructions: string;
  try {
    instructions = readFileSync(skill.skillFile, "utf8").trim();
  } catch {
    return undefined;
  }
  instructions = await preprocessSkillText(
    instructions,
    { skillDir: skill.dir, sessionId: options.sessionId },
    options.preprocessing ?? DEFAULT_SKILL_PREPROCESSING,
  );
  const request = match[2]?.trim() ?? "";
  const files = listSkillFiles(skill.dir);
  const lines = [
    `I am invoking the "${skill.name}" skill. Follow its instructions for the request below.`,
    "",
    `<skill name="${skill.name}">`,
    instructions,
    "</skill>",
  ];
  if (files.length) {
    lines.push("", `Its supporting files, readable with skill_view("${skill.name}", file_path): ${files.join(", ")}`);
  }
  lines.push(
    "",
    request
      ? `Request: ${request}`
      : "I gave no request with the command: unless the skill says what to do on its own, ask me what to apply it to.",
  );
  return { skill, message: lines.join("\n") };
}
