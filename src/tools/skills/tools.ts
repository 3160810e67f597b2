/**
 * The `skills` toolset: skills_list and skill_view read the skills on disk at call time (so a
 * skill written mid-session is usable at once), skill_manage edits the user's skills.
 */
import { filesUnder, recordChange, snapshotFiles } from "../../util/change-ledger.js";
import { z } from "../../util/schema/index.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { discoverSkills, findSkill } from "./discovery.js";
import { locateUserSkill, MANAGE_ACTIONS, type ManageArgs, type ManageResult, manageSkill } from "./manage.js";
import { UNCATEGORIZED } from "./skills-index.js";
import { recordSkillUse } from "./usage.js";
import { viewSkill } from "./view.js";

export interface SkillsToolsOptions {
  /** HERMES_HOME. */
  home: string;
  /** Where project skills are looked for; defaults to the calling tool context's cwd. */
  cwd?: string;
}

export const skillsListParameters = z.object({
  category: z.string().optional().describe("Only list skills of this category"),
});

export const skillViewParameters = z.object({
  name: z.string().describe("The skill's name, as listed in the skills index or by skills_list"),
  file_path: z
    .string()
    .optional()
    .describe("A supporting file of the skill to read instead of SKILL.md, e.g. references/checklist.md"),
});

export const skillManageParameters = z.object({
  action: z
    .enum(MANAGE_ACTIONS)
    .describe(
      "create a skill, update (replace SKILL.md), patch (find and replace in SKILL.md or a file), delete the skill, write_file or remove_file (supporting files)",
    ),
  name: z.string().describe("Skill name: lowercase letters, digits and hyphens (also its folder and /command)"),
  content: z
    .string()
    .optional()
    .describe(
      "Whole SKILL.md for create and update: '---' frontmatter with name and description, '---', then the instructions",
    ),
  category: z.string().optional().describe("create only: category folder to put the new skill in"),
  file_path: z
    .string()
    .optional()
    .describe("write_file, remove_file, patch: a path under references/, templates/, scripts/ or assets/"),
  file_content: z.string().optional().describe("write_file: the file's full text"),
  old_string: z.string().optional().describe("patch: the text to replace, quoted exactly"),
  new_string: z.string().optional().describe("patch: the replacement text"),
  replace_all: z.boolean().optional().describe("patch: replace every occurrence instead of exactly one"),
});

function catalogFor(options: SkillsToolsOptions, ctx: Pick<ToolContext, "cwd">) {
  return discoverSkills({ home: options.home, cwd: options.cwd ?? ctx.cwd });
}

export function skillsListTool(
  options: SkillsToolsOptions,
  args: z.infer<typeof skillsListParameters>,
  ctx: Pick<ToolContext, "cwd">,
): string {
  const { skills } = catalogFor(options, ctx);
  const categories = [...new Set(skills.map((s) => s.category ?? UNCATEGORIZED))].sort();
  const wanted = args.category?.trim();
  const selected = wanted ? skills.filter((s) => (s.category ?? UNCATEGORIZED) === wanted) : skills;
  return JSON.stringify({
    success: true,
    count: selected.length,
    skills: selected.map((s) => ({
      name: s.name,
      category: s.category ?? UNCATEGORIZED,
      description: s.description,
      source: s.source,
    })),
    categories,
    hint: selected.length
      ? "Load a skill's instructions with skill_view(name)."
      : wanted
        ? `No skills in category "${wanted}".`
        : "No skills are installed yet; skill_manage(action='create') writes one.",
  });
}

export function skillViewTool(
  options: SkillsToolsOptions,
  args: z.infer<typeof skillViewParameters>,
  ctx: Pick<ToolContext, "cwd">,
): string {
  const skill = findSkill(catalogFor(options, ctx).skills, args.name.trim());
  if (!skill) {
    return JSON.stringify({ success: false, error: `no skill named "${args.name}"; skills_list shows what exists` });
  }
  const view = viewSkill(skill, args.file_path);
  if (view.success) recordView(options.home, skill.name);
  return JSON.stringify(view);
}

/** The curator reads these; a failure to count must never fail the view. */
function recordView(home: string, name: string): void {
  try {
    recordSkillUse(home, name, "view");
  } catch {
    // Counting is best effort.
  }
}

export function registerSkillsTools(registry: ToolRegistry, options: SkillsToolsOptions): void {
  registry.register({
    name: "skills_list",
    toolset: "skills",
    description:
      "List the installed skills (name, category, one-line description). Use skill_view to load one. " +
      "Optionally filter by category.",
    parameters: skillsListParameters,
    handler: async (args, ctx) => skillsListTool(options, args, ctx),
    parallelSafe: true,
    emoji: "📚",
  });
  registry.register({
    name: "skill_view",
    toolset: "skills",
    description:
      "Load a skill: returns its full SKILL.md instructions and the list of its supporting files " +
      "(references, templates, scripts, assets). Pass file_path to read one of those files.",
    parameters: skillViewParameters,
    handler: async (args, ctx) => skillViewTool(options, args, ctx),
    parallelSafe: true,
    emoji: "📖",
  });
  registry.register({
    name: "skill_manage",
    toolset: "skills",
    description:
      "Write down a reusable procedure as a skill, or improve one. Save a skill after working out a non-obvious " +
      "workflow, fixing a tricky problem, or being corrected by the user on how something should be done; patch " +
      "a skill when it proved wrong or incomplete. SKILL.md starts with YAML frontmatter (name, description) " +
      "followed by concise steps, pitfalls and checks. Longer material goes into supporting files under " +
      "references/, templates/, scripts/ or assets/. Only skills in the user's skills folder can be changed. " +
      "New skills appear in the skills index from the next session; skill_view can load them at once.",
    parameters: skillManageParameters,
    handler: async (args, ctx) => JSON.stringify(await manageSkillRecorded(options.home, args, ctx)),
    parallelSafe: false,
    emoji: "🛠️",
  });
}

/** `skill_manage`, with what it changed handed to the session's change ledger. */
export async function manageSkillRecorded(
  home: string,
  args: ManageArgs,
  ctx: Pick<ToolContext, "services" | "sessionId">,
): Promise<ManageResult> {
  const dirBefore = locateUserSkill(home, args.name);
  const before = snapshotFiles(dirBefore ? filesUnder(dirBefore) : []);
  const result = manageSkill(home, args);
  if (!result.success) return result;
  const dirAfter = locateUserSkill(home, args.name);
  const after = snapshotFiles(dirAfter ? filesUnder(dirAfter) : []);
  const summary = `${args.action} skill ${args.name}${args.file_path ? ` (${args.file_path})` : ""}`;
  await recordChange(
    ctx.services,
    ctx.sessionId,
    { kind: "skill", target: args.name, action: args.action, summary },
    before,
    after,
  );
  return result;
}
