/**
 * Environment handed to MCP servers. A stdio server sees only a small safe set of the agent's
 * variables plus those its config lists, so API keys in the agent's environment do not leak
 * into third-party processes. `${VAR}` in config values is filled from the agent's environment.
 */

/** Variables a process needs to run normally; nothing secret. */
export const SAFE_ENV_VARS: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_RUNTIME_DIR",
  // Windows needs these to start most programs.
  "SYSTEMROOT",
  "SYSTEMDRIVE",
  "WINDIR",
  "COMSPEC",
  "PATHEXT",
  "TEMP",
  "TMP",
  "APPDATA",
  "LOCALAPPDATA",
  "USERPROFILE",
  "PROGRAMFILES",
];

export interface Interpolated {
  value: string;
  /** Names referenced with `${NAME}` that were not set (replaced by ""). */
  missing: string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Replace each `${NAME}` with its value from `env`. */
export function interpolate(value: string, env: NodeJS.ProcessEnv): Interpolated {
  const missing: string[] = [];
  const out = value.replace(REFERENCE, (_, name: string) => {
    const found = env[name];
    if (found === undefined) {
      missing.push(name);
      return "";
    }
    return found;
  });
  return { value: out, missing };
}

/** Interpolate every value of a mapping, collecting the names that were not set. */
export function interpolateMap(
  map: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
): { values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const [key, raw] of Object.entries(map)) {
    const result = interpolate(raw, env);
    values[key] = result.value;
    missing.push(...result.missing);
  }
  return { values, missing };
}

/** The environment of a stdio server: the safe set from `env`, then the configured variables. */
export function serverEnvironment(
  configured: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
): { values: Record<string, string>; missing: string[] } {
  const base: Record<string, string> = {};
  for (const name of SAFE_ENV_VARS) {
    const value = env[name];
    // Exported shell functions start with "()"; they are code, not settings.
    if (value !== undefined && !value.startsWith("()")) base[name] = value;
  }
  const { values, missing } = interpolateMap(configured, env);
  return { values: { ...base, ...values }, missing };
}
