/**
 * `hermes import hermes-python [--from PATH]`: copies the sessions of the original Python Hermes
 * into this agent's store, leaving the original's file as it was.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export function registerImportCommands(program: Command, io: CommandIo = processIo): void {
  const command = program.command("import").description("bring over data from another agent");
  command
    .command("hermes-python")
    .description("copy every session of the original Python Hermes (its state.db) into this store; safe to repeat")
    .option("--from <path>", "the original's state.db (default: the one in HERMES_HOME)")
    .action(async (opts: { from?: string }) => {
      const { existsSync } = await import("node:fs");
      const { join, resolve } = await import("node:path");
      const { hermesHome } = await import("../../state/paths.js");
      const { isOriginalStateDb } = await import("../../state/store-location.js");
      const { importHermesPython } = await import("../../state/import-hermes-python.js");
      const home = hermesHome();
      const from = resolve(opts.from ?? join(home, "state.db"));
      if (!existsSync(from)) throw new UsageError(`${from} does not exist (give the original's state.db with --from)`);
      if (!isOriginalStateDb(from)) {
        throw new UsageError(`${from} is not a session database of the original Python Hermes`);
      }
      const report = await importHermesPython(from, join(home, "state.db"));
      const { sessions, messages } = report;
      io.out(`From ${report.source} into ${report.target}:`);
      io.out(
        `  sessions: ${sessions.inSource} in the source; ${sessions.added} added, ${sessions.updated} with new messages, ${sessions.unchanged} already here`,
      );
      io.out(
        `  messages: ${messages.inSource} in the source; ${messages.added} added, ${messages.alreadyImported} already here, ${messages.rewound} rewound away in the original (not copied)`,
      );
      if (sessions.idTaken.length) {
        io.out(`  not copied, the id is taken by a session of this store: ${sessions.idTaken.join(", ")}`);
      }
      if (report.mismatches.length) {
        for (const line of report.mismatches) io.out(`  ✗ ${line}`);
        io.setExitCode(1);
        return;
      }
      io.out(`  ✓ every added session holds as many messages as the source. The source was not changed.`);
    });
}
