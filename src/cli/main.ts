#!/usr/bin/env node
/**
 * The `hermes` entry point. It stays tiny: `--version` answers before anything else loads,
 * and every command's implementation is imported only when that command runs. In a build,
 * the commands come from the bundle dist/cli/hermes.cjs (see ./bundle-loader.ts); run from
 * source or from tsc's output alone, from ./program.js.
 */
import { packageVersion } from "../util/version.js";

/** Set by the build's bundling step (scripts/bundle-cli.mjs) to the bundle's content hash. */
declare const __HERMES_BUNDLE_ID__: string | undefined;

const args = process.argv.slice(2);

if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  process.stdout.write(`hermes ${packageVersion()}\n`);
} else {
  // `hermes ... | head` closes the pipe early: that is the reader's choice, not an error.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
  // The bundle's own import() becomes require(); plugins (ES modules) load through this one.
  (globalThis as { __hermesImport?: (specifier: string) => Promise<unknown> }).__hermesImport = (specifier) =>
    import(specifier);
  const { runCli } =
    typeof __HERMES_BUNDLE_ID__ === "string"
      ? (await import("./bundle-loader.js")).loadBundledCli(
          new URL("./hermes.cjs", import.meta.url),
          __HERMES_BUNDLE_ID__,
          isChat(args) ? "chat" : "command",
        )
      : await import("./program.js");
  process.exitCode = await runCli(process.argv);
}

/** Whether the run is a chat (`hermes`, `hermes chat ...`, or a one-shot flag), for the code cache's name. */
function isChat(argv: readonly string[]): boolean {
  if (argv.length === 0 || argv[0] === "chat") return true;
  return argv.some((arg) => ["-q", "--query", "-z", "--oneshot", "--query-file"].includes(arg.split("=")[0] ?? arg));
}
