/**
 * `hermes logs [--errors] [-n N] [--since 10m|2h|1d|ISO] [--follow]`: the last lines of
 * $HERMES_HOME/logs/agent.log (or errors.log), optionally only those since a time, and with
 * --follow the new ones as they are written, across rotations, until Ctrl-C.
 */
import type { Command } from "commander";
import { UsageError } from "../exit-codes.js";
import { type CommandIo, processIo } from "./config.js";

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Epoch ms from "10m", "2h", "1d", "30s" (ago) or an ISO date/time. */
export function parseSince(value: string, now = Date.now()): number {
  const relative = /^(\d+(?:\.\d+)?)\s*([smhd])$/i.exec(value.trim());
  if (relative) return now - Number(relative[1]) * UNITS[relative[2]!.toLowerCase()]!;
  const absolute = Date.parse(value);
  if (Number.isNaN(absolute)) {
    throw new UsageError(`--since "${value}" is not a duration (30s, 10m, 2h, 1d) or a date/time (2026-11-24T09:00)`);
  }
  return absolute;
}

/** The time a log line starts with, or undefined for a line that does not start with one. */
function lineTime(line: string): number | undefined {
  const stamp = line.slice(0, line.indexOf(" "));
  const time = Date.parse(stamp);
  return Number.isNaN(time) ? undefined : time;
}

export function selectLines(text: string, options: { count: number; since?: number }): string[] {
  let lines = text.split("\n").filter((line) => line !== "");
  if (options.since !== undefined) {
    const since = options.since;
    lines = lines.filter((line) => (lineTime(line) ?? Number.POSITIVE_INFINITY) >= since);
  }
  return lines.slice(-options.count);
}

interface LogsOptions {
  errors?: boolean;
  gateway?: boolean;
  lines?: string;
  since?: string;
  follow?: boolean;
}

export function registerLogsCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("logs")
    .description("show the agent's log ($HERMES_HOME/logs/agent.log), or errors.log")
    .option("--errors", "show errors.log (warnings and errors only)")
    .option("--gateway", "show gateway.log (the messaging gateway's own lines)")
    .option("-n, --lines <n>", "how many lines (default 50)")
    .option("--since <when>", "only lines since a duration ago (30s, 10m, 2h, 1d) or a date/time")
    .option("-f, --follow", "keep printing new lines until Ctrl-C")
    .action(async (opts: LogsOptions) => {
      const count = opts.lines === undefined ? 50 : Number(opts.lines);
      if (!Number.isInteger(count) || count < 0)
        throw new UsageError(`--lines must be a whole number, got ${opts.lines}`);
      const since = opts.since === undefined ? undefined : parseSince(opts.since);
      const { existsSync, readFileSync } = await import("node:fs");
      const { join } = await import("node:path");
      const { hermesHome } = await import("../../state/paths.js");
      if (opts.errors && opts.gateway) throw new UsageError("--errors and --gateway name different files: pick one");
      const file = opts.errors ? "errors.log" : opts.gateway ? "gateway.log" : "agent.log";
      const path = join(hermesHome(), "logs", file);
      if (!existsSync(path) && !opts.follow) {
        io.err(`no log yet at ${path} (it is written by hermes chat, the TUI and hermes gateway run)`);
        return;
      }
      const text = existsSync(path) ? readFileSync(path, "utf8") : "";
      for (const line of selectLines(text, { count, ...(since !== undefined ? { since } : {}) })) io.out(line);
      if (opts.follow) await follow(path, Buffer.byteLength(text), io);
    });
}

/** Prints what is appended to `path` from `offset` on; a rotated (replaced or shrunk) file starts over. */
async function follow(path: string, offset: number, io: CommandIo): Promise<void> {
  const { closeSync, mkdirSync, openSync, readSync, statSync, watch } = await import("node:fs");
  const { dirname, basename } = await import("node:path");
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  let position = offset;
  let partial = "";
  let inode = (() => {
    try {
      return statSync(path).ino;
    } catch {
      return undefined;
    }
  })();
  const readNew = () => {
    let size: number;
    try {
      const stat = statSync(path);
      size = stat.size;
      // A rotation puts a new file in place: start it from the beginning.
      if (stat.ino !== inode) {
        inode = stat.ino;
        position = 0;
        partial = "";
      }
    } catch {
      return;
    }
    if (size < position) position = 0;
    if (size === position) return;
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(size - position);
      const read = readSync(fd, buffer, 0, buffer.length, position);
      position += read;
      const text = partial + buffer.subarray(0, read).toString("utf8");
      const lines = text.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line) io.out(line);
    } finally {
      closeSync(fd);
    }
  };
  await new Promise<void>((resolve) => {
    // The directory is watched, not the file: a rotation replaces the file.
    const watcher = watch(dirname(path), (_event, name) => {
      if (name === null || String(name) === basename(path)) readNew();
    });
    // A change the watcher coalesced away is still seen within a second.
    const timer = setInterval(readNew, 1000);
    const stop = () => {
      watcher.close();
      clearInterval(timer);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
