#!/usr/bin/env node
/**
 * The `hermes` entry point. It stays tiny: `--version` answers before anything else loads,
 * and every command's implementation is imported only when that command runs. In a build,
 * the commands come from the bundle dist/cli/hermes.cjs (see ./bundle-loader.ts); run from
 * source or from tsc's output alone, from ./program.js.
 */
import { turnCompleted } from "../util/turn-marker.js";
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
  const kind = runKind(args);
  const { runCli } =
    typeof __HERMES_BUNDLE_ID__ === "string"
      ? (await import("./bundle-loader.js")).loadBundledCli(
          new URL("./hermes.cjs", import.meta.url),
          __HERMES_BUNDLE_ID__,
          kind,
          // A chat run that ended before its first turn (its --help, a usage error) compiled
          // little of what the next chat needs; see util/turn-marker.ts.
          { worthCaching: () => kind === "command" || turnCompleted() },
        )
      : await import("./program.js");
  process.exitCode = await runCli(process.argv);
}

/**
 * The kind of run, which names its code cache: a one-shot prompt, an interactive chat (`hermes`,
 * `hermes chat`), or any other command. The three compile different code (the terminal UI, or
 * none of the agent at all), and each cache holds what one run of its kind compiled.
 */
function runKind(argv: readonly string[]): "oneshot" | "chat" | "command" {
  const ONE_SHOT_FLAGS = ["-q", "--query", "-z", "--oneshot", "--query-file"];
  if (argv.some((arg) => ONE_SHOT_FLAGS.includes(arg.split("=")[0] ?? arg))) return "oneshot";
  if (argv.length === 0 || argv[0] === "chat") return "chat";
  return "command";
}
