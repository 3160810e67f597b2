/**
 * The `skills` toolset: skills_list and skill_view read the skills on disk at call time (so a
 * skill written mid-session is usable at once), skill_manage edits the user's skills.
 */
import { filesUnder, recordChange, snapshotFiles } from "../../util/change-ledger.js";
import { z } from "../../util/schema/index.js";
import { approveAgentWrite } from "../approval/agent-writes.js";
import type { ToolContext, ToolRegistry } from "../registry.js";
import { discoverSkills, findSkill } from "./discovery.js";
import { locateUserSkill, MANAGE_ACTIONS, type ManageArgs, type ManageResult, manageSkill } from "./manage.js";
import {
  DEFAULT_SKILL_PREPROCESSING,
  preprocessSkillText,
  type SkillPreprocessing,
  substituteSkillVars,
} from "./preprocess.js";
import { UNCATEGORIZED } from "./skills-index.js";
import { recordSkillUse } from "./usage.js";
import { viewSkill } from "./view.js";

export interface SkillsToolsOptions {
  /** HERMES_HOME. */
  home: string;
  /** Where project skills are looked for; defaults to the calling tool context's cwd. */
  cwd?: string;
  /** `skills.external_dirs`, resolved. */
  externalDirs?: readonly string[];
  /** `skills.template_vars`, `inline_shell` and `inline_shell_timeout` (default: variables only). */
  preprocessing?: SkillPreprocessing;
}

export const skillsListParameters = z.object({
  category: z.string().optional().describe("Only this category"),
});

export const skillViewParameters = z.object({
  name: z.string().describe("Skill name"),
  file_path: z.string().optional().describe("A supporting file to read instead, e.g. references/checklist.md"),
});

export const skillManageParameters = z.object({
  action: z
    .enum(MANAGE_ACTIONS)
    .describe("update replaces SKILL.md; patch edits SKILL.md or a file; write_file/remove_file: supporting files"),
  name: z.string().describe("Lowercase letters, digits, hyphens"),
  content: z
    .string()
    .optional()
    .describe("create/update: whole SKILL.md, '---' frontmatter (name, description) '---' body"),
  category: z.string().optional().describe("create: category folder"),
  file_path: z.string().optional().describe("A path under references/, templates/, scripts/ or assets/"),
  file_content: z.string().optional().describe("write_file: the file's text"),
  old_string: z.string().optional().describe("patch: exact text to replace"),
  new_string: z.string().optional().describe("patch: replacement"),
  replace_all: z.boolean().optional().describe("patch: every occurrence"),
});

function catalogFor(options: SkillsToolsOptions, ctx: Pick<ToolContext, "cwd">) {
  return discoverSkills({
    home: options.home,
    cwd: options.cwd ?? ctx.cwd,
    ...(options.externalDirs ? { externalDirs: options.externalDirs } : {}),
  });
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

export async function skillViewTool(
  options: SkillsToolsOptions,
  args: z.infer<typeof skillViewParameters>,
  ctx: Pick<ToolContext, "cwd" | "sessionId">,
): Promise<string> {
  const skill = findSkill(catalogFor(options, ctx).skills, args.name.trim());
  if (!skill) {
    return JSON.stringify({ success: false, error: `no skill named "${args.name}"; skills_list shows what exists` });
  }
  const view = viewSkill(skill, args.file_path);
  if (!view.success) return JSON.stringify(view);
  recordView(options.home, skill.name);
  const settings = options.preprocessing ?? DEFAULT_SKILL_PREPROCESSING;
  const vars = { skillDir: skill.dir, sessionId: ctx.sessionId };
  // Inline commands run only from SKILL.md; its supporting files get the variables.
  if (view.file_path === undefined) view.content = await preprocessSkillText(view.content, vars, settings);
  else if (settings.templateVars) view.content = substituteSkillVars(view.content, vars);
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
      "List installed skills. Returns name, category and a one-line description of each; load one with skill_view.",
    parameters: skillsListParameters,
    handler: async (args, ctx) => skillsListTool(options, args, ctx),
    parallelSafe: true,
    emoji: "📚",
  });
  registry.register({
    name: "skill_view",
    toolset: "skills",
    description: "Load a skill. Returns its SKILL.md instructions and supporting files list, or the file at file_path.",
    parameters: skillViewParameters,
    handler: async (args, ctx) => skillViewTool(options, args, ctx),
    parallelSafe: true,
    emoji: "📖",
  });
  registry.register({
    name: "skill_manage",
    toolset: "skills",
    description:
      "Save a reusable procedure as a skill (after a non-obvious workflow, a tricky fix, a correction by the user) " +
      "or fix one that proved wrong. SKILL.md holds short steps, pitfalls and checks. Returns JSON saying what changed.",
    parameters: skillManageParameters,
    handler: async (args, ctx) => JSON.stringify(await manageSkillRecorded(options.home, args, ctx)),
    parallelSafe: false,
    emoji: "🛠️",
  });
}

/** `skill_manage`, with what it changed handed to the session's change ledger. */
export async function manageSkillRecorded(home: string, args: ManageArgs, ctx: ToolContext): Promise<ManageResult> {
  const what = `${args.action} skill ${args.name}${args.file_path ? ` (${args.file_path})` : ""}`;
  const refusal = await approveAgentWrite("skills", what, ctx);
  if (refusal) return { success: false, error: refusal };
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
