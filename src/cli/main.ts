#!/usr/bin/env node
/**
 * The `hermes` entry point. It stays tiny: `--version` answers before anything else loads,
 * and every command's implementation is imported only when that command runs.
 */
import { packageVersion } from "../util/version.js";

const args = process.argv.slice(2);

if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`hermes ${packageVersion()}\n`);
} else {
  // `hermes ... | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  const { runCli } = await import("./program.js");
  process.exitCode = await runCli(process.argv);
}
