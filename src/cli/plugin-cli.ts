/** `hermes NAME ...` where NAME is a command a plugin registers (looked up only for unknown names). */
export async function runPluginCliCommand(argv: string[]): Promise<number | undefined> {
  const name = argv[2];
  if (!name) return undefined;
  const [{ hermesHome }, { loadConfig }, { extensionsWanted }, { loadDotEnv }] = await Promise.all([
    import("../state/paths.js"),
    import("../state/config.js"),
    import("../runtime/plugins/candidates.js"),
    import("../state/dotenv.js"),
  ]);
  const home = hermesHome();
  let config: ReturnType<typeof loadConfig>["config"];
  try {
    config = loadConfig({ home }).config;
  } catch {
    return undefined;
  }
  if (!extensionsWanted(home, config)) return undefined;
  loadDotEnv(home);
  const { loadPlugins } = await import("../runtime/plugins/loader.js");
  const set = await loadPlugins({ home, config });
  const found = set.cliCommands.find((command) => command.item.name === name);
  if (!found) return undefined;
  const io = {
    out: (text: string) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
    err: (text: string) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  };
  try {
    const code = await found.item.run(argv.slice(3), io);
    return typeof code === "number" ? code : 0;
  } catch (error) {
    io.err(`hermes: ${name} (plugin ${found.owner}) failed: ${(error as Error).message}`);
    return 1;
  }
}
