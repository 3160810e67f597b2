/**
 * `hermes backup [--out FILE] [--with-secrets]` and `hermes backup restore FILE [--force]`:
 * moving a whole HERMES_HOME to another machine, or keeping a copy of it. The archive code
 * loads only when one of these runs.
 */
import type { Command } from "commander";
import type { BackupResult } from "../backup/create.js";
import type { LeftOut } from "../backup/plan.js";
import type { RestoreResult } from "../backup/restore.js";
import { type CommandIo, processIo } from "./config.js";

const SHOWN_PER_REASON = 5;

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function describeLeftOut(leftOut: readonly LeftOut[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const item of leftOut) byReason.set(item.reason, [...(byReason.get(item.reason) ?? []), item.relative]);
  return [...byReason].map(([reason, paths]) => {
    const shown = paths.slice(0, SHOWN_PER_REASON).join(", ");
    const more = paths.length > SHOWN_PER_REASON ? ` and ${paths.length - SHOWN_PER_REASON} more` : "";
    return `  ${shown}${more}: ${reason}`;
  });
}

export async function describeBackup(result: BackupResult): Promise<string[]> {
  const { formatSize } = await import("../disk-usage.js");
  const lines = [
    `Wrote ${result.file} (${formatSize(result.archiveBytes)}, readable by you only)`,
    `It holds ${count(result.files, "file", "files")}, ${formatSize(result.contentBytes)} before compression` +
      (result.databases > 0 ? `, with ${count(result.databases, "database", "databases")} copied consistently` : ""),
  ];
  if (result.secrets.length > 0) {
    lines.push(`Secrets included: ${result.secrets.join(", ")}. Keep this file private.`);
  }
  if (result.leftOut.length > 0) lines.push("Left out:", ...describeLeftOut(result.leftOut));
  return lines;
}

export function describeRestore(result: RestoreResult): string[] {
  const lines: string[] = [];
  if (result.movedAside) lines.push(`Moved the previous home aside to ${result.movedAside}`);
  lines.push(
    `Restored ${count(result.files, "file", "files")} and ${count(result.directories, "directory", "directories")} into ${result.home}`,
  );
  return lines;
}

export function registerBackupCommands(program: Command, io: CommandIo = processIo): Command {
  const backup = program
    .command("backup")
    .description("archive HERMES_HOME (config, memories, skills, sessions) to a .tar.gz; `backup restore` unpacks one")
    .option("-o, --out <file>", "archive to write (default: hermes-backup-<UTC time>.tar.gz here)")
    .option("--with-secrets", "include .env and auth.json (API keys and credentials)")
    .action(async (opts: { out?: string; withSecrets?: boolean }) => {
      const { hermesHome } = await import("../../state/paths.js");
      const { createBackup, defaultBackupName } = await import("../backup/create.js");
      const result = await createBackup(hermesHome(), {
        out: opts.out ?? defaultBackupName(),
        withSecrets: Boolean(opts.withSecrets),
      });
      for (const line of await describeBackup(result)) io.out(line);
    });

  backup
    .command("restore <file>")
    .description("unpack a backup into HERMES_HOME (an existing home is moved aside only with --force)")
    .option("--force", "move a non-empty HERMES_HOME aside to <home>.before-restore-<time> first")
    .action(async (file: string, opts: { force?: boolean }) => {
      const { hermesHome } = await import("../../state/paths.js");
      const { runningGateway } = await import("../gateway-service.js");
      const { BackupError } = await import("../backup/errors.js");
      const { restoreBackup } = await import("../backup/restore.js");
      const home = hermesHome();
      const gateway = runningGateway(home);
      if (gateway) {
        throw new BackupError(
          `a gateway (pid ${gateway.pid}) is running on ${home}; stop it first (hermes gateway stop)`,
        );
      }
      const result = await restoreBackup(file, home, { force: Boolean(opts.force) });
      for (const line of describeRestore(result)) io.out(line);
    });

  return backup;
}
