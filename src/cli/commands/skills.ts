/**
 * `hermes skills list|view|search|install|update|audit|uninstall|check`. The skills and hub
 * modules load inside each action,
 * so registering these commands costs nothing at startup. Every subcommand first seeds the
 * bundled skills, which is a no-op once they are in place.
 */
import type { Command } from "commander";
import type { DiscoverOptions } from "../../tools/skills/discovery.js";
import { type CommandIo, processIo } from "./config.js";

async function skillsContext() {
  const [{ hermesHome }, discovery, seed] = await Promise.all([
    import("../../state/paths.js"),
    import("../../tools/skills/discovery.js"),
    import("../../tools/skills/seed.js"),
  ]);
  const home = hermesHome();
  seed.seedBundledSkills(home);
  const externalDirs = await configuredExternalDirs(home);
  return {
    home,
    ...discovery,
    discoverSkills: (options: DiscoverOptions) => discovery.discoverSkills({ ...options, externalDirs }),
  };
}

/** `skills.external_dirs`, or none when config.yaml cannot be read (the commands still list the rest). */
async function configuredExternalDirs(home: string): Promise<string[]> {
  try {
    const [{ loadConfigAsync }, { externalSkillDirs }] = await Promise.all([
      import("../../state/config-load.js"),
      import("../../runtime/skill-dirs.js"),
    ]);
    return externalSkillDirs((await loadConfigAsync({ home })).config.skills.external_dirs, home);
  } catch {
    return [];
  }
}

/** The skills context plus the hub modules and the configured hubs; undefined (reported) when the config is broken. */
async function hubContext(io: CommandIo, options: { hubs?: boolean } = {}) {
  const [ctx, hub] = await Promise.all([skillsContext(), import("../../tools/skills/hub/index.js")]);
  let hubs: Array<{ name: string; url: string; trust: "trusted" | "community" }> = [];
  if (options.hubs !== false) {
    try {
      const { loadConfig } = await import("../../state/config.js");
      hubs = loadConfig({ home: ctx.home }).config.skills.hubs;
    } catch (error) {
      io.err(`${(error as Error).message}\nFix config.yaml (see hermes config check), then try again.`);
      io.setExitCode(1);
      return undefined;
    }
  }
  return { ...ctx, hub, hubs };
}

function reportProblems(io: CommandIo, problems: Array<{ path: string; message: string }>): void {
  for (const problem of problems) io.err(`warning: ${problem.path}: ${problem.message}`);
}

export function registerSkillsCommands(program: Command, io: CommandIo = processIo): Command {
  const skills = program
    .command("skills")
    .description("list, view, search, install, update, audit, uninstall and check skills");

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
    .command("search [query]")
    .description("list the skills of the configured hubs (skills.hubs) whose name or description matches")
    .action(async (query: string | undefined) => {
      const ctx = await hubContext(io);
      if (!ctx) return;
      if (!ctx.hubs.length) {
        io.err("No skills hubs are configured: add one under skills.hubs in config.yaml (see docs/skills.md).");
        io.setExitCode(1);
        return;
      }
      const found = await ctx.hub.searchHubs(ctx.hubs, query ?? "");
      for (const warning of found.warnings) io.err(`warning: ${warning}`);
      if (!found.reachable) {
        io.setExitCode(1);
        return;
      }
      if (!found.matches.length) {
        io.out(query ? `No hub skills match "${query}".` : "The configured hubs list no skills.");
        return;
      }
      const installed = ctx.hub.readHubLock(ctx.home).skills;
      const labels = found.matches.map((entry) => `${entry.hub}/${entry.name}`);
      const width = Math.max(...labels.map((label) => label.length));
      found.matches.forEach((entry, i) => {
        const mark = installed[entry.name]?.source.hub === entry.hub ? " (installed)" : "";
        io.out(`${labels[i]!.padEnd(width)}  ${entry.description || "(no description)"}  [${entry.trust}]${mark}`);
      });
    });

  skills
    .command("install <source>")
    .description(
      "install a skill from a folder, a .tar.gz, a git URL, a SKILL.md URL or a hub (hub/name or name), after quarantine and a security scan",
    )
    .option("--category <name>", "install into this category folder")
    .option("--name <name>", "the skill to take from a source that holds several")
    .option(
      "--force",
      "install a skill rated caution (or dangerous, from a trusted source), or replace an installed one",
    )
    .action(async (source: string, opts: { category?: string; name?: string; force?: boolean }) => {
      const ctx = await hubContext(io);
      if (!ctx) return;
      const result = await ctx.hub.installSkill(ctx.home, source, {
        hubs: ctx.hubs,
        force: Boolean(opts.force),
        ...(opts.category ? { category: opts.category } : {}),
        ...(opts.name ? { name: opts.name } : {}),
      });
      const lines = result.report ? ctx.hub.findingLines(result.report) : [];
      if (!result.ok) {
        io.err(result.error ?? "the skill was not installed");
        for (const line of lines) io.err(line);
        io.setExitCode(1);
        return;
      }
      for (const warning of result.warnings) io.err(`warning: ${warning}`);
      for (const line of lines) io.err(line);
      io.out(`Installed skill at ${result.path} ("${result.name}": ${result.report?.verdict}, ${result.trust} source)`);
    });

  skills
    .command("update [name]")
    .description(
      "fetch installed skills again from their sources; shows a diff instead of overwriting your local edits",
    )
    .option("--force", "replace your local edits with upstream (and accept a caution rating from a community source)")
    .action(async (name: string | undefined, opts: { force?: boolean }) => {
      const ctx = await hubContext(io);
      if (!ctx) return;
      const outcome = await ctx.hub.updateSkills(ctx.home, name, { hubs: ctx.hubs, force: Boolean(opts.force) });
      if (outcome.error) {
        io.err(outcome.error);
        io.setExitCode(1);
        return;
      }
      if (!outcome.results.length) {
        io.out("No skills were installed from a source; nothing to update.");
        return;
      }
      for (const result of outcome.results) {
        const ok = result.status === "updated" || result.status === "up-to-date";
        if (ok || result.status === "local-edits") io.out(result.message);
        else io.err(result.message);
        for (const diff of result.diffs) io.out(diff);
        if (result.status === "refused" && result.report)
          for (const line of ctx.hub.findingLines(result.report)) io.err(line);
        for (const warning of result.warnings) io.err(`warning: ${warning}`);
        if (!ok) io.setExitCode(1);
      }
    });

  skills
    .command("audit [name]")
    .description("scan installed skills again and print each one's verdict and trust; exit 1 when one is dangerous")
    .action(async (name: string | undefined) => {
      const ctx = await hubContext(io, { hubs: false });
      if (!ctx) return;
      const outcome = ctx.hub.auditInstalledSkills(ctx.home, name);
      if (outcome.error) {
        io.err(outcome.error);
        io.setExitCode(1);
        return;
      }
      const width = Math.max(0, ...outcome.audits.map((audit) => audit.name.length));
      const counts = { safe: 0, caution: 0, dangerous: 0, invalid: 0 };
      for (const audit of outcome.audits) {
        const { verdict, problems } = audit.report;
        counts[verdict]++;
        if (problems.length) counts.invalid++;
        io.out(`${audit.name.padEnd(width)}  ${verdict.padEnd(9)}  ${audit.trust.padEnd(9)}  ${audit.origin}`);
        for (const line of ctx.hub.findingLines(audit.report)) io.out(line);
        if (audit.edited.length) io.out(`  edited since install: ${audit.edited.join(", ")}`);
      }
      const total = outcome.audits.length;
      const invalid = counts.invalid ? `, ${counts.invalid} invalid` : "";
      io.out(
        `${total} skill${total === 1 ? "" : "s"} audited: ${counts.safe} safe, ${counts.caution} caution, ${counts.dangerous} dangerous${invalid}`,
      );
      if (counts.dangerous || counts.invalid) io.setExitCode(1);
    });

  skills
    .command("uninstall <name>")
    .alias("remove")
    .description("delete a skill from HERMES_HOME/skills and its hub lock entry (bundled skills stay removed)")
    .action(async (name: string) => {
      const ctx = await hubContext(io, { hubs: false });
      if (!ctx) return;
      const result = ctx.hub.uninstallSkill(ctx.home, name);
      if (!result.ok) {
        io.err(result.error);
        io.setExitCode(1);
        return;
      }
      io.out(result.message);
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
