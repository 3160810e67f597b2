/**
 * The platform adapters config.yaml and the environment turn on. Each adapter's module loads
 * only when its platform is enabled. Platforms named in config that this build cannot run yet
 * are reported, never silently skipped.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { PluginPlatform } from "../runtime/plugins/api.js";
import type { HermesConfig } from "../state/config-schema.js";
import { PLATFORM_CATALOG, platformEnabled } from "./platform-catalog.js";
import { platformConfig } from "./settings.js";
import type { PlatformAdapter } from "./types.js";

type Env = Record<string, string | undefined>;

export interface EnabledPlatforms {
  adapters: PlatformAdapter[];
  /** Lines worth telling whoever starts the gateway (platforms skipped, and why). */
  notices: string[];
}

const truthy = (value: string | undefined) => /^(1|true|yes|on)$/i.test((value ?? "").trim());

/** Platforms this build has adapters for. */
export const AVAILABLE_PLATFORMS: readonly string[] = ["webhook", ...PLATFORM_CATALOG.map((entry) => entry.name)];

function enabled(config: HermesConfig, env: Env, platform: string): boolean {
  if (truthy(env[`${platform.toUpperCase()}_ENABLED`])) return true;
  return platformConfig(config, platform)?.enabled ?? false;
}

/** Routes saved by `hermes webhook subscribe` in $HERMES_HOME/webhook_subscriptions.json. */
function subscribedRoutes(home: string): Record<string, unknown> {
  const path = join(home, "webhook_subscriptions.json");
  if (!existsSync(path)) return {};
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Reported below.
  }
  throw new Error(`${path} is not a JSON object of routes; fix or remove it`);
}

/** A plugin's platform is on like a built-in one: `<NAME>_ENABLED`, `platforms.<name>.enabled`, or its variables. */
function pluginPlatformEnabled(config: HermesConfig, env: Env, platform: PluginPlatform): boolean {
  const flag = env[`${platform.name.toUpperCase()}_ENABLED`];
  if (flag !== undefined && flag.trim() !== "") return truthy(flag);
  if (platformConfig(config, platform.name)?.enabled) return true;
  const variables = platform.enablingEnv ?? [];
  return variables.length > 0 && variables.every((variable) => Boolean(env[variable]?.trim()));
}

function isAdapter(value: unknown): value is PlatformAdapter {
  const adapter = value as Partial<PlatformAdapter> | undefined;
  return (
    typeof adapter?.connect === "function" &&
    typeof adapter.disconnect === "function" &&
    typeof adapter.send === "function"
  );
}

export async function enabledPlatforms(
  config: HermesConfig,
  options: {
    home: string;
    env?: Env;
    log: (line: string) => void;
    plugins?: ReadonlyArray<{ owner: string; item: PluginPlatform }>;
  },
): Promise<EnabledPlatforms> {
  const env = options.env ?? process.env;
  const adapters: PlatformAdapter[] = [];
  const notices: string[] = [];
  const plugins = options.plugins ?? [];
  const named = new Set([...Object.keys(config.platforms), ...Object.keys(config.gateway.platforms)]);
  for (const platform of named) {
    if (AVAILABLE_PLATFORMS.includes(platform) || plugins.some(({ item }) => item.name === platform)) continue;
    if (platformConfig(config, platform)?.enabled) {
      notices.push(`platforms.${platform} is enabled, but this build has no ${platform} adapter yet; skipping it`);
    }
  }
  for (const entry of PLATFORM_CATALOG) {
    if (!platformEnabled(config, env, entry.name)) continue;
    const module = await entry.load();
    adapters.push(await module.createAdapter({ config, env, home: options.home, log: options.log }));
  }
  for (const { owner, item } of plugins) {
    if (AVAILABLE_PLATFORMS.includes(item.name) || !pluginPlatformEnabled(config, env, item)) continue;
    const adapter = await item.createAdapter({ config, env, home: options.home, log: options.log });
    if (!isAdapter(adapter)) {
      throw new Error(
        `the ${item.name} platform of plugin ${owner} did not return an adapter (connect, disconnect, send)`,
      );
    }
    adapters.push(adapter);
  }
  if (enabled(config, env, "webhook")) {
    const { WebhookAdapter, WEBHOOK_DEFAULT_PORT } = await import("./adapters/webhook.js");
    const { parseRoutes } = await import("./adapters/webhook-routes.js");
    const extra = platformConfig(config, "webhook")?.extra ?? {};
    const configured = (extra.routes ?? {}) as Record<string, unknown>;
    const routes = parseRoutes(
      { ...subscribedRoutes(options.home), ...configured },
      { insecureNoAuth: truthy(env.INSECURE_NO_AUTH) },
    );
    if (routes.length === 0)
      notices.push("the webhook platform is enabled but has no routes (platforms.webhook.extra.routes)");
    const port = Number(env.WEBHOOK_PORT ?? extra.port ?? WEBHOOK_DEFAULT_PORT);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new Error(`webhook port "${env.WEBHOOK_PORT ?? extra.port}" is not a port number`);
    const host = typeof extra.host === "string" && extra.host ? extra.host : "127.0.0.1";
    adapters.push(new WebhookAdapter({ routes, port, host, log: options.log }));
  }
  return { adapters, notices };
}
