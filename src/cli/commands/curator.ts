/**
 * `hermes curator run|status|pin|unpin`: the skills curator (docs/learning.md#the-curator). It
 * runs by itself when an interactive session starts and a run is due (`curator.*`); these
 * commands run it now (whatever the schedule and the idle wait), show what it sees, and keep a
 * skill from ever being archived.
 */
import type { Command } from "commander";
import type { AuxiliaryClient } from "../../agent/auxiliary.js";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function context() {
  const [{ hermesHome }, { loadConfig }, curator, usage, { discoverSkills }, { resolveCuratorSettings }] =
    await Promise.all([
      import("../../state/paths.js"),
      import("../../state/config.js"),
      import("../../tools/skills/curator.js"),
      import("../../tools/skills/usage.js"),
      import("../../tools/skills/discovery.js"),
      import("../../state/curator-settings.js"),
    ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  const userSkills = () => discoverSkills({ home }).skills.filter((skill) => skill.source === "user");
  return { home, config, settings: resolveCuratorSettings(config), curator, usage, userSkills };
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function registerCuratorCommands(program: Command, io: CommandIo = processIo): Command {
  const curator = program
    .command("curator")
    .description("the skills curator: stale skills, archiving, merge proposals");

  curator
    .command("run")
    .description(
      "mark unused skills stale, archive long-unused ones (a backup is made first), propose merges; now, whatever the schedule",
    )
    .option("--dry-run", "only say what would happen (consolidation still asks the model, and changes nothing)")
    .action(async (opts: { dryRun?: boolean }) => {
      const { home, config, settings } = await context();
      const [{ LearningLedger }, { runCuratorPass }, { curatorRunLines }] = await Promise.all([
        import("../../state/learning-ledger.js"),
        import("../../runtime/learning/curator-run.js"),
        import("./curator-output.js"),
      ]);
      let client: Promise<AuxiliaryClient> | undefined;
      const auxiliary = async () => {
        const { curatorAuxiliaryClient } = await import("../../runtime/learning/curator-model.js");
        client ??= curatorAuxiliaryClient(home, config, (message) => io.err(message));
        return client;
      };
      const result = await runCuratorPass({
        home,
        config,
        dryRun: Boolean(opts.dryRun),
        ledger: new LearningLedger(home),
        ...(settings.consolidate ? { auxiliary } : {}),
      });
      const lines = curatorRunLines(result, Boolean(opts.dryRun));
      io.out(lines.length ? lines.join("\n") : "Nothing to do: every skill is in use.");
    });

  curator
    .command("status", { isDefault: true })
    .description("each user skill's views, uses, last use and state")
    .action(async () => {
      const { home, config, settings, curator: tool, usage, userSkills } = await context();
      const { curatorStatusLines } = await import("./curator-output.js");
      const table = usage.readUsage(home);
      const lines = curatorStatusLines(settings, tool.lastCuratorRun(home), config.learning.mode);
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
