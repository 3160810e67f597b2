/**
 * `hermes skills list|view|install|remove|check`. The skills modules load inside each action,
 * so registering these commands costs nothing at startup. Every subcommand first seeds the
 * bundled skills, which is a no-op once they are in place.
 */
import type { Command } from "commander";
import { type CommandIo, processIo } from "./config.js";

async function skillsContext() {
  const [{ hermesHome }, discovery, seed] = await Promise.all([
    import("../../state/paths.js"),
    import("../../tools/skills/discovery.js"),
    import("../../tools/skills/seed.js"),
  ]);
  const home = hermesHome();
  seed.seedBundledSkills(home);
  return { home, ...discovery };
}

function reportProblems(io: CommandIo, problems: Array<{ path: string; message: string }>): void {
  for (const problem of problems) io.err(`warning: ${problem.path}: ${problem.message}`);
}

export function registerSkillsCommands(program: Command, io: CommandIo = processIo): Command {
  const skills = program.command("skills").description("list, view, install, remove and check skills");

  skills
    .command("list")
    .description("list installed skills (user skills and the current project's .hermes/skills)")
    .option("--category <name>", "only this category")
    .action(async (opts: { category?: string }) => {
      const ctx = await skillsContext();
      const { skills: found, problems } = ctx.discoverSkills({ home: ctx.home, cwd: process.cwd() });
      reportProblems(io, problems);
      const { UNCATEGORIZED } = await import("../../tools/skills/skills-index.js");
      const shown = found.filter((s) => !opts.category || (s.category ?? UNCATEGORIZED) === opts.category);
      if (!shown.length) {
        io.out(opts.category ? `No skills in category "${opts.category}".` : "No skills installed.");
        return;
      }
      const width = Math.max(...shown.map((s) => s.name.length));
      let category: string | undefined;
      for (const skill of shown) {
        const group = skill.category ?? UNCATEGORIZED;
        if (group !== category) io.out(`${category === undefined ? "" : "\n"}${group}:`);
        category = group;
        const source = skill.source === "project" ? " [project]" : "";
        io.out(`  ${skill.name.padEnd(width)}  ${skill.description.replace(/\s+/g, " ")}${source}`);
      }
    });

  skills
    .command("view <name>")
    .description("print a skill's SKILL.md (or one of its files with --file) and list its files")
    .option("--file <path>", "a supporting file of the skill, e.g. references/checklist.md")
    .action(async (name: string, opts: { file?: string }) => {
      const ctx = await skillsContext();
      const { viewSkill } = await import("../../tools/skills/view.js");
      const skill = ctx.findSkill(ctx.discoverSkills({ home: ctx.home, cwd: process.cwd() }).skills, name);
      if (!skill) {
        io.err(`no skill named "${name}" (see hermes skills list)`);
        io.setExitCode(1);
        return;
      }
      const view = viewSkill(skill, opts.file);
      if (!view.success) {
        io.err(view.error);
        io.setExitCode(1);
        return;
      }
      io.out(view.content);
      if (view.linked_files?.length) {
        io.out(`\nFiles (view with --file): ${skill.dir}`);
        for (const file of view.linked_files) io.out(`  ${file}`);
      }
    });

  skills
    .command("install <path>")
    .description("copy a skill folder into HERMES_HOME/skills after validating and scanning it")
    .option("--category <name>", "install into this category folder")
    .option("--force", "replace an installed skill of the same name")
    .action(async (path: string, opts: { category?: string; force?: boolean }) => {
      const ctx = await skillsContext();
      const { installSkillDir } = await import("../../tools/skills/install.js");
      const result = installSkillDir(ctx.home, path, {
        ...(opts.category ? { category: opts.category } : {}),
        force: Boolean(opts.force),
      });
      if (!result.success) {
        io.err(result.error);
        io.setExitCode(1);
        return;
      }
      io.out(`Installed skill at ${result.path}`);
    });

  skills
    .command("remove <name>")
    .description("delete a skill from HERMES_HOME/skills (bundled skills stay removed)")
    .action(async (name: string) => {
      const ctx = await skillsContext();
      const { manageSkill } = await import("../../tools/skills/manage.js");
      const result = manageSkill(ctx.home, { action: "delete", name });
      if (!result.success) {
        io.err(result.error);
        io.setExitCode(1);
        return;
      }
      io.out(`Removed skill "${name}" (${result.path})`);
    });

  skills
    .command("check")
    .description("validate and security-scan every installed skill; exit 1 when a problem is found")
    .action(async () => {
      const ctx = await skillsContext();
      const { auditSkillDir } = await import("../../tools/skills/audit.js");
      const catalog = ctx.discoverSkills({ home: ctx.home, cwd: process.cwd() });
      // A loaded skill gets the full audit, which repeats what discovery found about it.
      const audited = new Set(catalog.skills.flatMap((s) => [s.dir, s.skillFile]));
      const problems = catalog.problems.filter((p) => !audited.has(p.path));
      for (const skill of catalog.skills) problems.push(...auditSkillDir(skill.dir, skill.name));
      for (const problem of problems) io.err(`${problem.path}: ${problem.message}`);
      const count = catalog.skills.length;
      io.out(
        `${count} skill${count === 1 ? "" : "s"} checked: ${problems.length ? `${problems.length} problem(s)` : "OK"}`,
      );
      if (problems.length) io.setExitCode(1);
    });

  return skills;
}
