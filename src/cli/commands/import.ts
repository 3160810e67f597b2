/**
 * `hermes import hermes-python [--from PATH]`: copies the sessions of the original Python Hermes
 * into this agent's store (the embedded one, or PostgreSQL when config.yaml says so), leaving the
 * original's file as it was.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export function registerImportCommands(program: Command, io: CommandIo = processIo): void {
  const command = program.command("import").description("bring over data from another agent");
  command
    .command("hermes-python")
    .description(
      "copy the original Python Hermes' sessions (state.db) and scheduled jobs (cron/jobs.json) into this store; safe to repeat",
    )
    .option("--from <path>", "the original's state.db (default: the one in HERMES_HOME)")
    .action(async (opts: { from?: string }) => {
      const { join } = await import("node:path");
      const { hermesHome } = await import("../../state/paths.js");
      const home = hermesHome();
      const sessionsOk = await importSessions(home, opts.from, io);
      const jobsOk = await importJobs(home, io);
      if (!sessionsOk || !jobsOk) io.setExitCode(1);
      io.out(`The original's files (${join(home, "state.db")}, ${join(home, "cron", "jobs.json")}) were not changed.`);
    });
}

/** Sessions from the original's state.db; false when the copy does not add up. */
async function importSessions(home: string, from: string | undefined, io: CommandIo): Promise<boolean> {
  const { existsSync } = await import("node:fs");
  const { join, resolve } = await import("node:path");
  const { isOriginalStateDb } = await import("../../state/store-location.js");
  const { importHermesPython } = await import("../../state/import-hermes-python.js");
  const source = resolve(from ?? join(home, "state.db"));
  if (!existsSync(source) || !isOriginalStateDb(source)) {
    if (from) {
      throw new UsageError(
        existsSync(source)
          ? `${source} is not a session database of the original Python Hermes`
          : `${source} does not exist (give the original's state.db with --from)`,
      );
    }
    io.out(`Sessions: no state.db of the original in ${home} (give one with --from PATH).`);
    return true;
  }
  const { storeLocation } = await import("../../state/store-target.js");
  const report = await importHermesPython(source, await storeLocation(home));
  const { sessions, messages } = report;
  io.out(`Sessions, from ${report.source} into ${report.target}:`);
  io.out(
    `  sessions: ${sessions.inSource} in the source; ${sessions.added} added, ${sessions.updated} with new messages, ${sessions.unchanged} already here`,
  );
  io.out(
    `  messages: ${messages.inSource} in the source; ${messages.added} added, ${messages.alreadyImported} already here, ${messages.rewound} rewound away in the original (not copied)`,
  );
  if (sessions.idTaken.length) {
    io.out(`  not copied, the id is taken by a session of this store: ${sessions.idTaken.join(", ")}`);
  }
  for (const line of report.mismatches) io.out(`  ✗ ${line}`);
  if (report.mismatches.length === 0) io.out("  ✓ every added session holds as many messages as the source");
  return report.mismatches.length === 0;
}

/** Scheduled jobs from the original's cron/jobs.json; false when some could not be read. */
async function importJobs(home: string, io: CommandIo): Promise<boolean> {
  const { openCronStore } = await import("../../state/cron-store.js");
  const { storeLocation } = await import("../../state/store-target.js");
  const { importOriginalJobs } = await import("../../cron/import-original-jobs.js");
  const store = await openCronStore(await storeLocation(home));
  try {
    const report = await importOriginalJobs(home, store);
    if (report.inFile === 0) {
      io.out(`Cron jobs: none in ${report.path}.`);
      return true;
    }
    io.out(
      `Cron jobs, from ${report.path}: ${report.inFile} in the file; ${report.added.length} added, ${report.alreadyHere.length} already here${report.refused.length ? `, ${report.refused.length} not readable` : ""}`,
    );
    for (const line of report.refused) io.out(`  ✗ ${line}`);
    if (report.added.length)
      io.out("  They fire from the gateway's ticker (hermes gateway start) or hermes cron tick.");
    return report.refused.length === 0;
  } finally {
    store.close();
  }
}
