/**
 * `hermes config show|get|set|unset|path|edit|check`. State modules load inside each action,
 * so registering these commands costs nothing at startup.
 */
import type { Command } from "commander";

/** Where command output goes; tests pass a collector instead of the process streams. */
export interface CommandIo {
  out(text: string): void;
  err(text: string): void;
  setExitCode(code: number): void;
}

export const processIo: CommandIo = {
  out: (text) => process.stdout.write(text.endsWith("\n") ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith("\n") ? text : `${text}\n`),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

export function maskSecret(value: string): string {
  return value.length >= 12 ? `${value.slice(0, 4)}…${value.slice(-4)}` : "***";
}

const SECRET_FIELD = /(?:^|_)(?:api_?key|token|secret|password)$/i;

/** `value` with every non-empty string under a secret-looking key (api_key, token, ...) masked. */
export function maskSecretFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecretFields);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      typeof inner === "string" && inner && SECRET_FIELD.test(key) ? maskSecret(inner) : maskSecretFields(inner),
    ]),
  );
}

async function state() {
  const [config, dotenv, paths, yaml] = await Promise.all([
    import("../../state/config.js"),
    import("../../state/dotenv.js"),
    import("../../state/paths.js"),
    import("yaml"),
  ]);
  return { ...config, ...dotenv, ...paths, yaml };
}

function formatValue(value: unknown, stringify: (v: unknown) => string): string {
  if (value !== null && typeof value === "object") return stringify(value).trimEnd();
  return String(value);
}

/** The provider base-URL variables (`OPENAI_BASE_URL`, `OPENROUTER_BASE_URL`, ...). */
async function baseUrlVariables(): Promise<Set<string>> {
  const { PROVIDERS } = await import("../../llm/providers.js");
  return new Set(PROVIDERS.flatMap((p) => (p.baseUrlEnvVar ? [p.baseUrlEnvVar] : [])));
}

/**
 * Reports base-URL variables (from the environment or .env) that no run could use; config.yaml's
 * own base URLs are checked by its schema. Returns true (and sets exit code 1) when any is bad.
 */
async function reportBadBaseUrlVariables(io: CommandIo, env: Record<string, string | undefined>): Promise<boolean> {
  const { baseUrlProblem } = await import("../../util/base-url.js");
  let bad = false;
  for (const name of await baseUrlVariables()) {
    const value = env[name]?.trim();
    const problem = value ? baseUrlProblem(value) : undefined;
    if (!problem) continue;
    io.err(`${name} "${value}" is not a usable base URL: ${problem}. Fix or unset it (environment or .env).`);
    bad = true;
  }
  if (bad) io.setExitCode(1);
  return bad;
}

/** The original agent's keys the file sets that are accepted but not acted on, one a line, then a count. */
function reportNotActedOn(io: CommandIo, keys: readonly string[]): void {
  for (const key of keys) io.out(key);
  const count = `${keys.length} key${keys.length === 1 ? "" : "s"}`;
  io.out(`${count} of the original's config.yaml accepted but not acted on`);
}

/** Validate config.yaml and report; returns false (and sets exit code 1) when invalid. */
async function reportCheck(io: CommandIo, options: { unsupported?: boolean } = {}): Promise<boolean> {
  const s = await state();
  try {
    const { path, warnings, config, notActedOn } = s.loadConfig({ home: s.hermesHome() });
    for (const warning of warnings) io.err(`warning: ${warning}`);
    if (await reportBadBaseUrlVariables(io, { ...s.readDotEnv(s.hermesHome()), ...process.env })) return false;
    const { toolsetProblem } = await import("../../runtime/preflight.js");
    const servers = Object.keys(config.mcp_servers);
    const toolsets = [
      toolsetProblem(config.toolsets, `toolsets in ${path}`, servers),
      toolsetProblem(config.agent.disabled_toolsets, `agent.disabled_toolsets in ${path}`, servers),
      ...Object.entries(config.platform_toolsets).map(([platform, names]) =>
        toolsetProblem(names, `platform_toolsets.${platform} in ${path}`, servers),
      ),
    ]
      .filter(Boolean)
      .join("\n");
    if (toolsets) {
      io.err(toolsets);
      io.setExitCode(1);
      return false;
    }
    io.out(`${path}: OK${warnings.length ? ` (${warnings.length} warning${warnings.length > 1 ? "s" : ""})` : ""}`);
    if (options.unsupported) reportNotActedOn(io, notActedOn);
    return true;
  } catch (error) {
    if (!(error instanceof s.ConfigError)) throw error;
    io.err(error.message);
    io.setExitCode(1);
    return false;
  }
}

export function registerConfigCommands(program: Command, io: CommandIo = processIo): Command {
  const config = program.command("config").description("show and edit config.yaml (secrets go to .env)");

  config
    .command("show")
    .description("print the effective configuration (defaults merged with config.yaml)")
    .option("--json", "print JSON instead of YAML")
    .action(async (opts: { json?: boolean }) => {
      const s = await state();
      const home = s.hermesHome();
      const { config: effective, warnings } = s.loadConfig({ home });
      for (const warning of warnings) io.err(`warning: ${warning}`);
      // Keys written into config.yaml (delegation.api_key, providers.*.api_key) are not echoed whole.
      const shown = maskSecretFields(effective);
      if (opts.json) {
        io.out(JSON.stringify(shown, null, 2));
        return;
      }
      io.out(s.yaml.stringify(shown).trimEnd());
      const secrets = Object.keys(s.readDotEnv(home));
      if (secrets.length > 0) io.out(`# set in ${s.hermesPaths(home).env}: ${secrets.join(", ")}`);
    });

  config
    .command("get <key>")
    .description("print one value (dotted path, e.g. compression.threshold); secrets are masked")
    .action(async (key: string) => {
      const s = await state();
      const home = s.hermesHome();
      if (s.isSecretKey(key)) {
        const name = key.toUpperCase();
        const value = s.readDotEnv(home)[name];
        if (value === undefined) throw new s.ConfigError(`${name} is not set in ${s.hermesPaths(home).env}`, name);
        io.out(maskSecret(value));
        return;
      }
      const { config: effective } = s.loadConfig({ home });
      const value = s.getConfigValue(effective, key);
      if (value === undefined) {
        throw new s.ConfigError(`config.yaml has no key "${key}" (see \`hermes config show\`)`, key);
      }
      io.out(formatValue(value, s.yaml.stringify));
    });

  config
    .command("set <key> <value>")
    .description("set a value in config.yaml, or a secret (NAME_API_KEY, ...) in .env")
    .action(async (key: string, value: string) => {
      const s = await state();
      if ((await baseUrlVariables()).has(key.toUpperCase()) && value.trim()) {
        const { baseUrlProblem } = await import("../../util/base-url.js");
        const problem = baseUrlProblem(value);
        if (problem) {
          const { UsageError } = await import("../exit-codes.js");
          throw new UsageError(
            `${key.toUpperCase()} "${value}" is not a usable base URL: ${problem}. Nothing was written.`,
          );
        }
      }
      const result = s.setConfigValue(s.hermesHome(), key, value);
      for (const warning of result.warnings) io.err(`warning: ${warning}`);
      if (result.target === "env") io.out(`Saved ${result.key} to ${result.path}`);
      else io.out(`Set ${result.key} = ${JSON.stringify(result.value)} in ${result.path}`);
    });

  config
    .command("unset <key>")
    .description("remove a key from config.yaml (its default applies again) or a secret from .env")
    .action(async (key: string) => {
      const s = await state();
      const result = s.unsetConfigValue(s.hermesHome(), key);
      io.out(
        result.removed ? `Removed ${result.key} from ${result.path}` : `${result.key} was not set in ${result.path}`,
      );
    });

  config
    .command("path")
    .description("print the path of config.yaml")
    .action(async () => {
      const s = await state();
      io.out(s.hermesPaths().config);
    });

  config
    .command("edit")
    .description("open config.yaml in $EDITOR, then validate it")
    .action(async () => {
      const s = await state();
      const { existsSync } = await import("node:fs");
      const { spawnSync } = await import("node:child_process");
      const { atomicWriteFile } = await import("../../util/atomic-write.js");
      const path = s.hermesPaths().config;
      if (!existsSync(path)) {
        atomicWriteFile(path, "# Hermes configuration. Every key and its default: hermes help configuration\n");
      }
      const editor = process.env.VISUAL || process.env.EDITOR || (process.platform === "win32" ? "notepad" : "vi");
      const result = spawnSync(`${editor} ${JSON.stringify(path)}`, { shell: true, stdio: "inherit" });
      if (result.error || result.status !== 0) {
        io.err(`editor "${editor}" did not exit cleanly; config.yaml was not checked`);
        io.setExitCode(1);
        return;
      }
      await reportCheck(io);
    });

  config
    .command("check")
    .description("validate config.yaml: errors name the key and the accepted values (exit 1 when invalid)")
    .option("--unsupported", "also list the original agent's keys the file sets that are accepted but not acted on")
    .action(async (opts: { unsupported?: boolean }) => {
      await reportCheck(io, opts);
    });

  return config;
}
