/**
 * `hermes curator run|status|pin|unpin`: the skills curator (docs/learning.md#curator). It runs
 * by itself weekly when an interactive session starts; these commands run it now, show what it
 * sees, and keep a skill from ever being archived.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function context() {
  const [{ hermesHome }, { loadConfig }, curator, usage, { discoverSkills }] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../../tools/skills/curator.js"),
    import("../../tools/skills/usage.js"),
    import("../../tools/skills/discovery.js"),
  ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  const userSkills = () => discoverSkills({ home }).skills.filter((skill) => skill.source === "user");
  return { home, config, curator, usage, userSkills };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function registerCuratorCommands(program: Command, io: CommandIo = processIo): Command {
  const curator = program
    .command("curator")
    .description("the skills curator: stale skills, archiving, merge proposals");

  curator
    .command("run")
    .description("mark unused skills stale, archive long-unused ones (a backup is made first), propose merges")
    .option("--dry-run", "only say what would happen")
    .action(async (opts: { dryRun?: boolean }) => {
      const { home, config, curator: tool } = await context();
      const { LearningLedger } = await import("../../state/learning-ledger.js");
      const settings = config.learning.curator;
      const report = await tool.runCurator({
        home,
        staleAfterDays: settings.stale_after_days,
        archiveAfterDays: settings.archive_after_days,
        dryRun: Boolean(opts.dryRun),
        ledger: new LearningLedger(home),
      });
      const verb = opts.dryRun ? "would archive" : "archived";
      const lines = [
        ...report.archived.map((item) => `${verb} ${item.name} → ${item.to}`),
        ...report.stale.map((name) => `stale (unused for ${settings.stale_after_days}+ days): ${name}`),
        ...report.merges.map(([a, b]) => `similar, consider merging: ${a} + ${b}`),
      ];
      if (report.backup) lines.push(`backup of the skills folder: ${report.backup}`);
      io.out(lines.length ? lines.join("\n") : "Nothing to do: every skill is in use.");
    });

  curator
    .command("status", { isDefault: true })
    .description("each user skill's views, uses, last use and state")
    .action(async () => {
      const { home, config, curator: tool, usage, userSkills } = await context();
      const table = usage.readUsage(home);
      const last = tool.lastCuratorRun(home);
      const lines = [
        `last run: ${last ? day(last) : "never"} (every ${config.learning.curator.interval_days} days when a session starts)`,
      ];
      for (const skill of userSkills()) {
        const entry = table[skill.name];
        const state = entry?.pinned ? "pinned" : entry?.staleSince ? `stale since ${day(entry.staleSince)}` : "active";
        const lastUse = entry?.lastUsedAt ? day(entry.lastUsedAt) : "never";
        lines.push(`${skill.name}: ${entry?.views ?? 0} views, ${entry?.uses ?? 0} uses, last ${lastUse}, ${state}`);
      }
      io.out(lines.join("\n"));
    });

  for (const [name, pinned] of [
    ["pin", true],
    ["unpin", false],
  ] as const) {
    curator
      .command(`${name} <skill>`)
      .description(pinned ? "never archive this skill" : "let the curator archive this skill again when unused")
      .action(async (skillName: string) => {
        const { home, usage, userSkills } = await context();
        if (!userSkills().some((skill) => skill.name === skillName)) {
          throw new UsageError(`no user skill named "${skillName}" (hermes skills list shows them)`);
        }
        usage.updateUsage(home, skillName, (entry) => {
          if (pinned) entry.pinned = true;
          else delete entry.pinned;
        });
        io.out(pinned ? `Pinned ${skillName}: the curator never archives it.` : `Unpinned ${skillName}.`);
      });
  }
  return curator;
}
