/**
 * `hermes checkpoints list|diff|restore|prune`: the snapshots taken before the agent changed a
 * project (docs/checkpoints.md). The project is the one the current directory (or --dir)
 * belongs to.
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

async function context(dir: string | undefined) {
  const [{ hermesHome }, { loadConfig }, view] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../checkpoint-view.js"),
  ]);
  const home = hermesHome();
  const { config } = loadConfig({ home });
  const project = await view.checkpointsFor(home, config, resolve(dir ?? process.cwd()));
  return { home, config, project, view };
}

function position(raw: string): string {
  if (!/^\d+$/.test(raw) || Number(raw) < 1) {
    throw new UsageError(
      `a checkpoint is named by its number in hermes checkpoints list (1 is the newest), not "${raw}"`,
    );
  }
  return raw;
}

/** The text of a result, with failures (no such checkpoint) as usage errors so the exit code says so. */
function reported(io: CommandIo, text: string): void {
  if (/^There is no checkpoint /.test(text)) throw new UsageError(text);
  io.out(text);
}

export function registerCheckpointsCommands(program: Command, io: CommandIo = processIo): Command {
  const checkpoints = program
    .command("checkpoints")
    .description("snapshots taken before the agent changed files, and restoring them (docs/checkpoints.md)");
  const dirOption = (command: Command) => command.option("--dir <path>", "the project directory (default: here)");

  dirOption(
    checkpoints.command("list", { isDefault: true }).description("this project's checkpoints, newest first"),
  ).action(async (opts: { dir?: string }) => {
    const { project, view } = await context(opts.dir);
    io.out(await view.runRollback({ action: "list", force: false }, project));
  });

  dirOption(checkpoints.command("diff <n>").description("what restoring checkpoint N would change")).action(
    async (n: string, opts: { dir?: string }) => {
      const { project, view } = await context(opts.dir);
      reported(io, await view.runRollback({ action: "diff", position: position(n), force: false }, project));
    },
  );

  dirOption(
    checkpoints
      .command("restore <n> [file]")
      .description("restore the project (or one file) to checkpoint N; the current state is checkpointed first")
      .option("--force", "also overwrite files changed by hand after the agent's last turn"),
  ).action(async (n: string, file: string | undefined, opts: { dir?: string; force?: boolean }) => {
    const { project, view } = await context(opts.dir);
    const request = {
      action: "restore" as const,
      position: position(n),
      ...(file ? { file } : {}),
      force: Boolean(opts.force),
    };
    reported(io, await view.runRollback(request, project));
  });

  checkpoints
    .command("prune")
    .description("apply checkpoints.max_snapshots, retention_days and max_total_size_mb to every project now")
    .action(async () => {
      const { home, config } = await context(undefined);
      const { pruneAllCheckpoints } = await import("../../tools/checkpoints/prune.js");
      const settings = config.checkpoints;
      const result = await pruneAllCheckpoints({
        home,
        retentionDays: settings.retention_days,
        maxSnapshots: settings.max_snapshots,
        maxTotalSizeMb: settings.max_total_size_mb,
        deleteOrphans: settings.delete_orphans,
      });
      io.out(`Pruned ${result.removedSnapshots} checkpoint(s) and ${result.removedProjects} project(s).`);
      for (const error of result.errors) io.err(`could not prune: ${error}`);
      if (result.errors.length > 0) io.setExitCode(1);
    });
  return checkpoints;
}
