/**
 * `hermes gateway setup [platform]` and the platform lines of `hermes doctor`: credentials are
 * saved to $HERMES_HOME/.env under the original's variable names, then proven with one
 * authenticated call to the platform; a running gateway's state file says whether each
 * platform's listener is alive.
 */
import type { PlatformContext, PlatformEntry, ProbeResult } from "../gateway/platform-catalog.js";
import type { HermesConfig } from "../state/config-schema.js";
import type { CheckResult } from "./commands/doctor.js";
import { UsageError } from "./exit-codes.js";

type Env = Record<string, string | undefined>;
type Out = (line: string) => void;

async function catalog() {
  return import("../gateway/platform-catalog.js");
}

/** Parses `--set KEY=VALUE` pairs, refusing names the platform does not read. */
export function parseAssignments(platform: string, pairs: readonly string[]): Array<[string, string]> {
  const prefix = `${platform.toUpperCase()}_`;
  return pairs.map((pair) => {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--set takes KEY=VALUE, got "${pair}"`);
    const key = pair.slice(0, eq).trim().toUpperCase();
    if (!key.startsWith(prefix))
      throw new UsageError(`${key} is not a ${platform} setting (they start with ${prefix})`);
    return [key, pair.slice(eq + 1).trim()];
  });
}

export async function platformSetup(
  home: string,
  name: string | undefined,
  options: { set: string[]; check: boolean; interactive: boolean; env: Env; out: Out },
): Promise<number> {
  const { PLATFORM_CATALOG, catalogEntry, platformEnabled } = await catalog();
  const { loadConfig } = await import("../state/config.js");
  const { setEnvValue } = await import("../state/dotenv.js");
  const config = loadConfig({ home }).config;
  if (!name) {
    for (const entry of PLATFORM_CATALOG) {
      const on = platformEnabled(config, options.env, entry.name);
      options.out(
        `${entry.name.padEnd(10)} ${on ? "configured" : "not set up"}   (hermes gateway setup ${entry.name})`,
      );
    }
    return 0;
  }
  const entry = catalogEntry(name);
  if (!entry) {
    throw new UsageError(`unknown platform "${name}" (one of: ${PLATFORM_CATALOG.map((e) => e.name).join(", ")})`);
  }
  let values = parseAssignments(entry.name, options.set);
  if (values.length === 0) {
    if (!options.interactive) {
      throw new UsageError(
        `give the settings with --set, e.g. hermes gateway setup ${entry.name} ${entry.setup
          .filter((f) => f.required)
          .map((f) => `--set ${f.env}=...`)
          .join(" ")}`,
      );
    }
    values = await askFields(entry, options.env, options.out);
  }
  const env = { ...options.env };
  for (const [key, value] of values) {
    setEnvValue(home, key, value);
    env[key] = value;
    const field = entry.setup.find((f) => f.env === key);
    options.out(`.env: ${key} ${field?.secret ? "saved" : `= ${value}`}`);
  }
  const missing = entry.setup.filter((f) => f.required && !env[f.env]?.trim()).map((f) => f.env);
  if (missing.length) {
    options.out(`still needed: ${missing.join(", ")}`);
    return 1;
  }
  if (!options.check) return 0;
  const result = await probePlatform(entry.name, { config, env, home, log: () => undefined }, 10_000);
  options.out(`${result.ok ? "✓" : "✗"} ${entry.label}: ${result.detail}`);
  if (!result.ok && result.hint) options.out(`    → ${result.hint}`);
  if (result.ok) options.out("Start it with: hermes gateway start   (or hermes gateway run in the foreground)");
  return result.ok ? 0 : 1;
}

async function askFields(entry: PlatformEntry, env: Env, out: Out): Promise<Array<[string, string]>> {
  const prompts = await import("@clack/prompts");
  out(entry.setupHint);
  const answers: Array<[string, string]> = [];
  for (const field of entry.setup) {
    const current = env[field.env];
    const ask = field.secret ? prompts.password : prompts.text;
    const answer = await ask({
      message: `${field.prompt}${current ? " (enter keeps the current one)" : ""}`,
      validate: (value) =>
        field.required && !current && !String(value ?? "").trim() ? `${field.env} is needed` : undefined,
    });
    if (prompts.isCancel(answer)) throw new UsageError("setup cancelled; nothing more was saved");
    const value = String(answer ?? "").trim();
    if (value) answers.push([field.env, value]);
  }
  return answers;
}

async function probePlatform(name: string, context: PlatformContext, timeoutMs: number): Promise<ProbeResult> {
  const { catalogEntry } = await catalog();
  const entry = catalogEntry(name);
  if (!entry) return { ok: false, detail: `unknown platform ${name}` };
  try {
    const module = await entry.load();
    return await module.probe(context, timeoutMs);
  } catch (error) {
    return { ok: false, detail: error instanceof Error ? error.message : String(error) };
  }
}

/** Doctor lines for every enabled platform: credentials accepted, and the listener alive. */
export async function platformChecks(
  home: string,
  config: HermesConfig,
  env: Env,
  timeoutMs: number,
): Promise<CheckResult[]> {
  const { PLATFORM_CATALOG, platformEnabled } = await catalog();
  const enabled = PLATFORM_CATALOG.filter((entry) => platformEnabled(config, env, entry.name));
  if (enabled.length === 0) return [];
  const { readProcessState, processAlive } = await import("../gateway/process-state.js");
  const state = readProcessState(home);
  const running = state && processAlive(state.pid) ? state : undefined;
  const results: CheckResult[] = [];
  for (const entry of enabled) {
    const probe = await probePlatform(entry.name, { config, env, home, log: () => undefined }, timeoutMs);
    results.push({
      name: entry.name,
      ok: probe.ok,
      essential: false,
      detail: probe.detail,
      hint: probe.hint ?? `check the ${entry.label} credentials (hermes gateway setup ${entry.name})`,
    });
    const health = running?.platforms[entry.name];
    results.push({
      name: `${entry.name} listener`,
      ok: health?.state === "connected" || health?.state === "standby",
      essential: false,
      detail: !running
        ? "the gateway is not running"
        : !health
          ? "the running gateway has no such platform (restart it to pick up new settings)"
          : health.state === "connected"
            ? `listening since ${new Date(health.since).toISOString()}`
            : health.state === "reconnecting"
              ? `reconnecting (attempt ${health.attempt}: ${health.lastError})`
              : health.state === "standby"
                ? `standing by since ${new Date(health.since).toISOString()}: another replica listens to this bot`
                : health.state,
      hint: running ? "see hermes logs --gateway" : "start it: hermes gateway start",
    });
  }
  return results;
}
