/**
 * `hermes store migrate --to postgres [--url URL]`: copy the embedded store (state.db) into a
 * PostgreSQL database, idempotently, with every copied row counted in the target. See
 * docs/scale-out.md.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

export function registerStoreCommands(program: Command, io: CommandIo = processIo): void {
  const store = program.command("store").description("where sessions and records are kept (SQLite or PostgreSQL)");
  store
    .command("migrate")
    .description("copy the embedded store into PostgreSQL (safe to run again: copies only what is new)")
    .requiredOption("--to <backend>", "the backend to copy into: postgres")
    .option("--url <url>", "the database (default: HERMES_DATABASE_URL, then store.postgres_url)")
    .action(async (opts: { to: string; url?: string }) => {
      if (opts.to !== "postgres") throw new UsageError(`cannot migrate to "${opts.to}"; the one target is postgres`);
      const { hermesHome, hermesPaths } = await import("../../state/paths.js");
      const { loadConfig } = await import("../../state/config.js");
      const home = hermesHome();
      const url =
        opts.url?.trim() || process.env.HERMES_DATABASE_URL?.trim() || loadConfig({ home }).config.store.postgres_url;
      if (!/^postgres(ql)?:\/\/./i.test(url ?? "")) {
        throw new UsageError("name the database: --url postgres://user:password@host:5432/db (or HERMES_DATABASE_URL)");
      }
      const { copySqliteToPostgres } = await import("../../state/postgres/copy-from-sqlite.js");
      const report = await copySqliteToPostgres(hermesPaths(home).stateDb, url, (line) => io.out(`  ${line}`));
      const copied = report.tables.reduce((sum, t) => sum + t.copied, 0);
      const rows = report.tables.reduce((sum, t) => sum + t.source, 0);
      io.out(`Copied ${copied} new row(s) of ${rows} from ${report.from} to ${report.to}; every row is there.`);
      io.out(
        "The embedded store is unchanged. To use PostgreSQL from now on: hermes config set store.backend postgres",
      );
    });
}
