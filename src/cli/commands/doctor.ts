/**
 * `hermes doctor`: checks what a run needs — valid config, a provider with its key, the
 * provider answering, the session store opening — plus optional helpers (ripgrep, MCP
 * servers). One ✓/✗ line per check with a hint; exit 1 when an essential check fails.
 */
import type { Command } from "commander";
import type { HermesConfig } from "../../state/config-schema.js";
import { findExecutable } from "../../util/executable.js";
import { type CommandIo, processIo } from "./config.js";

export interface CheckResult {
  name: string;
  ok: boolean;
  detail: string;
  hint?: string;
  /** A failure here means hermes cannot run; exit code 1. */
  essential: boolean;
}

export interface DoctorOptions {
  home: string;
  env: Record<string, string | undefined>;
  /** Reachability timeout in milliseconds. */
  timeoutMs: number;
}

/** Whether a command name (or path) resolves to an executable on PATH. */
export function onPath(command: string, env: Record<string, string | undefined> = process.env): boolean {
  return findExecutable(command, env.PATH ?? "") !== undefined;
}

function authHeaders(apiMode: string, key: string | undefined): Record<string, string> {
  if (!key) return {};
  if (apiMode === "anthropic_messages") return { "x-api-key": key, "anthropic-version": "2023-06-01" };
  return { authorization: `Bearer ${key}` };
}

/** `GET {base}/models` with a short timeout: reachable, key rejected, or unreachable. */
export async function probeProvider(
  baseUrl: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ ok: boolean; detail: string; hint?: string; models?: string[] }> {
  const { modelIdsFrom } = await import("../../runtime/local-servers.js");
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 401 || response.status === 403) {
      return {
        ok: false,
        detail: `${url} rejected the API key (HTTP ${response.status})`,
        hint: "check or replace the key",
      };
    }
    const models = response.ok ? modelIdsFrom(await response.json().catch(() => null)) : [];
    return { ok: true, detail: `${url} answered (HTTP ${response.status})`, models };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs} ms`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return {
      ok: false,
      detail: `cannot reach ${url} (${reason})`,
      hint: "is the server running and the base URL right? Check your network or proxy settings",
    };
  }
}

async function providerChecks(config: HermesConfig, options: DoctorOptions): Promise<CheckResult[]> {
  const { resolveProvider, apiKeyFromEnv, baseUrlFor, resolveApiMode } = await import("../../llm/providers.js");
  const { configuredProvider } = await import("./model.js");
  const current = await configuredProvider(config, options.env);
  const results: CheckResult[] = [];
  let providerId = current.provider;
  let baseUrl = current.baseUrl;
  let model = current.model;
  if (!providerId) {
    const { detectLocalServer } = await import("../../runtime/local-servers.js");
    const local = await detectLocalServer();
    if (!local) {
      results.push({
        name: "provider",
        ok: false,
        essential: true,
        detail: "no provider is configured and no API key is set",
        hint: "run `hermes setup`, or export a key such as OPENROUTER_API_KEY",
      });
      return results;
    }
    providerId = "custom";
    baseUrl = local.baseUrl;
    model = local.model;
    results.push({
      name: "provider",
      ok: true,
      essential: true,
      detail: `none configured; ${local.name} found at ${local.baseUrl}`,
    });
  }
  const spec = resolveProvider(providerId);
  if (!spec) {
    results.push({
      name: "provider",
      ok: false,
      essential: true,
      detail: `unknown provider "${providerId}"`,
      hint: "pick one (hermes help providers) with `hermes model PROVIDER/MODEL`",
    });
    return results;
  }
  if (current.provider) {
    results.push({
      name: "provider",
      ok: true,
      essential: true,
      detail: `${spec.id}, model ${model} (${current.source})`,
    });
  }

  if (spec.id === "vertex") {
    results.push(...(await (await import("./doctor-vertex.js")).vertexChecks(options.env, options.timeoutMs)));
    return results;
  }
  const key = apiKeyFromEnv(spec, options.env);
  const keyless = spec.id === "custom" || spec.id === "lmstudio" || spec.id === "bedrock";
  if (key)
    results.push({
      name: "api key",
      ok: true,
      essential: true,
      detail: `set (${spec.keyEnvVars.find((n) => options.env[n])})`,
    });
  else if (keyless)
    results.push({ name: "api key", ok: true, essential: true, detail: "none set; not needed for this provider" });
  else {
    results.push({
      name: "api key",
      ok: false,
      essential: true,
      detail: `no key for ${spec.id}`,
      hint: `hermes config set ${spec.keyEnvVars[0]} YOUR_KEY   (or run hermes setup)`,
    });
  }

  const url = baseUrlFor(spec, baseUrl, options.env);
  const apiMode = resolveApiMode({ provider: spec.id, baseUrl: url, model });
  if (apiMode === "bedrock_converse" || !url) {
    results.push({ name: "reachable", ok: true, essential: false, detail: "skipped (AWS-signed endpoint)" });
    return results;
  }
  const probe = await probeProvider(url, { ...spec.defaultHeaders, ...authHeaders(apiMode, key) }, options.timeoutMs);
  results.push({ name: "reachable", essential: true, ...probe });
  if (probe.ok && probe.models?.length && !probe.models.includes(model)) {
    results.push({
      name: "model",
      ok: false,
      essential: false,
      detail: `${model} is not in the provider's model list`,
      hint: `pick one with \`hermes model ${spec.id}/MODEL\` (for example ${probe.models[0]})`,
    });
  }
  return results;
}

async function storeCheck(
  home: string,
  config: HermesConfig | undefined,
  env: Record<string, string | undefined>,
): Promise<CheckResult> {
  const { openSessionStore } = await import("../../state/session-store.js");
  const { resolveStoreLocation } = await import("../../state/store-target.js");
  const settings = config?.store ?? { backend: "sqlite" as const, postgres_url: "" };
  const postgres = settings.backend === "postgres";
  let location: string;
  try {
    location = resolveStoreLocation(home, settings, env);
  } catch (error) {
    return { name: "sessions", ok: false, essential: true, detail: (error as Error).message };
  }
  const { redactUrl } = await import("../../state/postgres/url.js");
  const shown = postgres ? redactUrl(location) : location;
  try {
    const store = await openSessionStore(location);
    try {
      const stats = await store.stats();
      const what = postgres ? `PostgreSQL ${shown}: connected, schema current` : `${shown} opens`;
      return { name: "sessions", ok: true, essential: true, detail: `${what} (${stats.sessions} sessions)` };
    } finally {
      store.close();
    }
  } catch (error) {
    return {
      name: "sessions",
      ok: false,
      essential: true,
      detail: `cannot open ${shown}: ${(error as Error).message}`,
      hint: postgres
        ? "check that the server is up, the URL (HERMES_DATABASE_URL or store.postgres_url), and that the user may create tables"
        : "check the directory's permissions and free space; reinstall if better-sqlite3 failed to load",
    };
  }
}

function mcpChecks(config: HermesConfig, env: Record<string, string | undefined>): CheckResult[] {
  const servers = Object.entries(config.mcp_servers);
  if (servers.length === 0) return [{ name: "mcp", ok: true, essential: false, detail: "no MCP servers configured" }];
  return servers.map(([name, server]) => {
    if (!server.enabled) return { name: `mcp ${name}`, ok: true, essential: false, detail: "disabled" };
    if (server.url) return { name: `mcp ${name}`, ok: true, essential: false, detail: `HTTP server ${server.url}` };
    const command = server.command ?? "";
    const found = onPath(command, env);
    return {
      name: `mcp ${name}`,
      ok: found,
      essential: false,
      detail: found ? `runs \`${command}\`` : `command \`${command}\` not found on PATH`,
      ...(found ? {} : { hint: `install ${command} or fix mcp_servers.${name}.command` }),
    };
  });
}

export async function runDoctor(options: DoctorOptions): Promise<CheckResult[]> {
  const { loadConfig, ConfigError } = await import("../../state/config.js");
  const results: CheckResult[] = [];
  let config: HermesConfig | undefined;
  try {
    const loaded = loadConfig({ home: options.home });
    config = loaded.config;
    const warn = loaded.warnings.length ? ` (${loaded.warnings.length} warning(s): hermes config check)` : "";
    results.push({ name: "config", ok: true, essential: true, detail: `${loaded.path} is valid${warn}` });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    results.push({
      name: "config",
      ok: false,
      essential: true,
      detail: error.message.split("\n")[0] ?? "invalid",
      hint: "fix the file (hermes config edit) and run hermes config check",
    });
  }
  if (config) results.push(...(await providerChecks(config, options)));
  if (config) {
    const backend = config.terminal.backend;
    results.push({
      name: "terminal",
      ok: backend === "local",
      essential: true,
      detail:
        backend === "local" ? "commands run on this machine" : `terminal.backend: ${backend} is not supported yet`,
      hint: "set terminal.backend: local (hermes config set terminal.backend local)",
    });
  }
  results.push(await storeCheck(options.home, config, options.env));
  const rg = onPath("rg", options.env);
  results.push({
    name: "ripgrep",
    ok: rg,
    essential: false,
    detail: rg ? "rg found on PATH" : "rg not found on PATH",
    ...(rg ? {} : { hint: "install ripgrep for fast file search (search_files falls back to a slower scan)" }),
  });
  if (config) {
    const { describeSandbox } = await import("../../runtime/sandbox.js");
    results.push({ name: "sandbox", ...describeSandbox(config.sandbox.mode, options.home, options.env.PATH) });
    results.push(...mcpChecks(config, options.env));
    const { platformChecks } = await import("../platform-setup.js");
    results.push(...(await platformChecks(options.home, config, options.env, options.timeoutMs)));
    const { extensionChecks, workflowChecks } = await import("../extension-checks.js");
    results.push(...(await extensionChecks(options.home, config, options.env)));
    results.push(...(await workflowChecks(options.home, config)));
  }
  return results;
}

export function formatCheck(check: CheckResult): string {
  const mark = check.ok ? "✓" : "✗";
  const optional = !check.ok && !check.essential ? " (optional)" : "";
  const line = `${mark} ${check.name.padEnd(10)} ${check.detail}${optional}`;
  return check.hint && !check.ok ? `${line}\n    → ${check.hint}` : line;
}

export function registerDoctorCommand(program: Command, io: CommandIo = processIo): Command {
  return program
    .command("doctor")
    .description("check config, provider, key, connectivity and the session store")
    .option("--timeout <ms>", "how long to wait for the provider", "5000")
    .action(async (opts: { timeout: string }) => {
      const { hermesHome } = await import("../../state/paths.js");
      const { readDotEnv } = await import("../../state/dotenv.js");
      const home = hermesHome();
      const timeoutMs = Number(opts.timeout);
      const results = await runDoctor({
        home,
        env: { ...readDotEnv(home), ...process.env },
        timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 5000,
      });
      for (const check of results) io.out(formatCheck(check));
      const failed = results.filter((c) => !c.ok && c.essential).length;
      if (failed > 0) {
        io.out(`${failed} essential check${failed > 1 ? "s" : ""} failed.`);
        io.setExitCode(1);
      } else {
        io.out("Everything hermes needs is in place.");
      }
    });
}
