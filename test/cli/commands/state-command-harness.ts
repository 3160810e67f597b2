/** Drive `hermes` subcommands in-process with captured output and a temp HERMES_HOME. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import type { CommandIo } from "../../../src/cli/commands/config.js";

export interface Captured {
  out: string;
  err: string;
  exitCode: number | undefined;
}

export type Register = (program: Command, io: CommandIo) => unknown;

const homes: string[] = [];
process.on("exit", () => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

export function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), "hermes-cli-"));
  homes.push(dir);
  return dir;
}

export async function run(register: Register, home: string, args: string[]): Promise<Captured> {
  const captured: Captured = { out: "", err: "", exitCode: undefined };
  const io: CommandIo = {
    out: (text) => {
      captured.out += text.endsWith("\n") ? text : `${text}\n`;
    },
    err: (text) => {
      captured.err += text.endsWith("\n") ? text : `${text}\n`;
    },
    setExitCode: (code) => {
      captured.exitCode = code;
    },
  };
  const program = new Command("hermes").exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  register(program, io);
  const saved = process.env.HERMES_HOME;
  process.env.HERMES_HOME = home;
  try {
    await program.parseAsync(["node", "hermes", ...args]);
  } finally {
    if (saved === undefined) delete process.env.HERMES_HOME;
    else process.env.HERMES_HOME = saved;
  }
  return captured;
}
