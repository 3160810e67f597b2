/**
 * `hermes plugins list|install|enable|disable|remove|info`. Loading a plugin to report on it
 * runs its `register`, exactly as a session would, so `list` shows the errors a run would hit.
 */
import type { Command } from "commander";
import type { PluginReport } from "../../runtime/plugins/loader.js";
import { type CommandIo, processIo } from "./config.js";

async function context() {
  const [{ hermesHome }, { loadConfig, setConfigValue }, loader, dotenv] = await Promise.all([
    import("../../state/paths.js"),
    import("../../state/config.js"),
    import("../../runtime/plugins/loader.js"),
    import("../../state/dotenv.js"),
  ]);
  const home = hermesHome();
  dotenv.loadDotEnv(home);
  const { config } = loadConfig({ home });
  return { home, config, loader, setConfigValue };
}

function statusWord(report: PluginReport): string {
  switch (report.status) {
    case "loaded":
      return "loaded";
    case "disabled":
      return "disabled";
    case "missing-env":
      return "needs settings";
    default:
      return "FAILED";
  }
}

export function describePlugin(report: PluginReport): string[] {
  const version = report.manifest ? ` ${report.manifest.version}` : "";
  const lines = [`${report.name}${version}  [${statusWord(report)}]  ${report.source}: ${report.dir}`];
  if (report.manifest?.description) lines.push(`  ${report.manifest.description}`);
  if (report.error) lines.push(`  ${report.error}`);
  if (report.registered.length > 0) lines.push(`  registers: ${report.registered.join(", ")}`);
  return lines;
}

function withList(list: readonly string[], name: string, present: boolean): string[] {
  const without = list.filter((item) => item !== name);
  return present ? [...without, name] : without;
}

export function registerPluginsCommands(program: Command, io: CommandIo = processIo): Command {
  const plugins = program
    .command("plugins")
    .description("plugins in $HERMES_HOME/plugins/ and from npm (docs/plugins.md)");

  plugins
    .command("list", { isDefault: true })
    .description("every plugin, whether it loads, and what it registers")
    .action(async () => {
      const { home, config, loader } = await context();
      const set = await loader.loadPlugins({ home, config });
      if (set.reports.length === 0) {
        io.out(`No plugins. Put one in ${loader.pluginsDir(home)}/<name>/ or run: hermes plugins install NAME|PATH`);
        return;
      }
      for (const report of set.reports) io.out(describePlugin(report).join("\n"));
      if (set.reports.some((report) => report.status === "failed")) io.setExitCode(1);
    });

  plugins
    .command("info <name>")
    .description("a plugin's manifest, settings and registrations")
    .action(async (name: string) => {
      const { home, config, loader } = await context();
      const set = await loader.loadPlugins({ home, config });
      const report = set.reports.find((r) => r.name === name || r.manifest?.name === name);
      if (!report) {
        io.err(`hermes: no plugin named "${name}" (hermes plugins list shows them)`);
        io.setExitCode(1);
        return;
      }
      const lines = describePlugin(report);
      const manifest = report.manifest;
      if (manifest) {
        lines.push(`  entry: ${manifest.entry}`);
        if (manifest.provides.length) lines.push(`  provides: ${manifest.provides.join(", ")}`);
        for (const variable of manifest.requiresEnv) {
          lines.push(`  needs ${variable}: ${process.env[variable] ? "set" : "NOT SET"}`);
        }
      }
      const settings = config.plugins.config[manifest?.name ?? name];
      lines.push(
        `  settings (plugins.config.${manifest?.name ?? name}): ${settings === undefined ? "none" : JSON.stringify(settings)}`,
      );
      io.out(lines.join("\n"));
    });

  plugins
    .command("install <spec>")
    .description("install from a directory, a .tgz tarball, or npm (NAME[@version])")
    .option("--force", "replace a directory plugin of the same name")
    .action(async (spec: string, opts: { force?: boolean }) => {
      const { home, config, setConfigValue } = await context();
      const { installPlugin } = await import("../../runtime/plugins/install.js");
      try {
        const result = await installPlugin(home, spec, { force: Boolean(opts.force) });
        if (result.packageName) {
          setConfigValue(
            home,
            "plugins.enabled",
            JSON.stringify(withList(config.plugins.enabled, result.packageName, true)),
          );
        }
        const key = result.packageName ?? result.manifest.name;
        if (config.plugins.disabled.includes(key)) {
          setConfigValue(home, "plugins.disabled", JSON.stringify(withList(config.plugins.disabled, key, false)));
        }
        io.out(
          `Installed ${result.manifest.name} ${result.manifest.version} (${result.source}). It loads with the next session.`,
        );
        const missing = result.manifest.requiresEnv.filter((variable) => !process.env[variable]);
        if (missing.length) io.out(`It needs ${missing.join(", ")}: set them with hermes config set NAME VALUE.`);
      } catch (error) {
        io.err(`hermes: could not install ${spec}: ${(error as Error).message}`);
        io.setExitCode(1);
      }
    });

  plugins
    .command("enable <name>")
    .description("load a plugin again (npm packages: add to plugins.enabled)")
    .action(async (name: string) => {
      const { home, config, loader, setConfigValue } = await context();
      const isDirectory = loader
        .pluginCandidates(home, config)
        .some((c) => c.name === name && c.source === "directory");
      if (!isDirectory && !config.plugins.enabled.includes(name)) {
        setConfigValue(home, "plugins.enabled", JSON.stringify(withList(config.plugins.enabled, name, true)));
      }
      setConfigValue(home, "plugins.disabled", JSON.stringify(withList(config.plugins.disabled, name, false)));
      io.out(`Enabled ${name}.`);
    });

  plugins
    .command("disable <name>")
    .description("keep a plugin installed but unloaded")
    .action(async (name: string) => {
      const { home, config, setConfigValue } = await context();
      setConfigValue(home, "plugins.disabled", JSON.stringify(withList(config.plugins.disabled, name, true)));
      io.out(`Disabled ${name}; hermes plugins enable ${name} turns it back on.`);
    });

  plugins
    .command("remove <name>")
    .alias("uninstall")
    .description("delete a directory plugin or uninstall a package")
    .action(async (name: string) => {
      const { home, config, setConfigValue } = await context();
      const { removePlugin } = await import("../../runtime/plugins/install.js");
      try {
        const removed = await removePlugin(home, name);
        if (config.plugins.enabled.includes(name)) {
          setConfigValue(home, "plugins.enabled", JSON.stringify(withList(config.plugins.enabled, name, false)));
        }
        if (config.plugins.disabled.includes(name)) {
          setConfigValue(home, "plugins.disabled", JSON.stringify(withList(config.plugins.disabled, name, false)));
        }
        if (!removed) {
          io.err(`hermes: no installed plugin named "${name}"`);
          io.setExitCode(1);
          return;
        }
        io.out(`Removed ${name}.`);
      } catch (error) {
        io.err(`hermes: could not remove ${name}: ${(error as Error).message}`);
        io.setExitCode(1);
      }
    });
  return plugins;
}
