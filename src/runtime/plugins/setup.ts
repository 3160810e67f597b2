/**
 * Plugins and shell hooks for one runtime: loads the plugins, registers their tools, and builds
 * the hook runner every agent of the process shares (plugin hooks first, in load order, then
 * the approved shell hooks from config.yaml). Imported only when `extensionsWanted` says so.
 */
import { HookRunner } from "../../agent/hooks.js";
import type { HermesConfig } from "../../state/config-schema.js";
import type { ToolRegistry } from "../../tools/registry.js";
import { log } from "../../util/log.js";
import { applyPluginTools, loadPlugins, type PluginSet } from "./loader.js";
import { configuredShellHooks, isApproved, shellHookHandler } from "./shell-hooks.js";

export interface Extensions {
  plugins: PluginSet;
  hooks: HookRunner;
}

export interface ExtensionsInput {
  home: string;
  config: HermesConfig;
  cwd: string;
  env?: Record<string, string | undefined>;
  notice: (message: string) => void;
}

/** Milliseconds a shell hook gets on top of its own timeout before the runner gives up on it. */
const SHELL_HOOK_GRACE_MS = 2_000;

export async function setUpExtensions(input: ExtensionsInput): Promise<Extensions> {
  const plugins = await loadPlugins({
    home: input.home,
    config: input.config,
    ...(input.env ? { env: input.env } : {}),
    log: (line) => log("info", "plugins", line),
  });
  for (const report of plugins.reports) {
    if (report.status === "failed" || report.status === "missing-env") {
      input.notice(`plugin ${report.name} was not loaded: ${report.error} (see hermes plugins list)`);
    }
  }
  const hooks = new HookRunner({ timeoutMs: input.config.plugins.hook_timeout_ms, onWarning: input.notice });
  for (const { owner, item } of plugins.hooks) {
    hooks.add(item.event, item.handler, { owner, ...(item.timeoutMs ? { timeoutMs: item.timeoutMs } : {}) });
  }
  const shell = configuredShellHooks(input.config);
  for (const problem of shell.problems) input.notice(problem.message);
  let unapproved = 0;
  for (const hook of shell.hooks) {
    if (!isApproved(input.home, input.config, hook)) {
      unapproved++;
      continue;
    }
    hooks.add(hook.event, shellHookHandler(hook, { home: input.home, cwd: input.cwd }), {
      owner: `config.yaml hook "${hook.command.slice(0, 40)}"`,
      timeoutMs: hook.timeoutSeconds * 1000 + SHELL_HOOK_GRACE_MS,
    });
  }
  if (unapproved > 0) {
    input.notice(
      `${unapproved} shell hook${unapproved === 1 ? "" : "s"} in config.yaml ${unapproved === 1 ? "is" : "are"} not approved and will not run; review with \`hermes hooks list\`, then \`hermes hooks approve\``,
    );
  }
  return { plugins, hooks };
}

/** After the built-in tools are registered: the plugins' tools, with conflicts reported. */
export function registerPluginTools(
  registry: ToolRegistry,
  extensions: Extensions,
  notice: (message: string) => void,
): void {
  applyPluginTools(registry, extensions.plugins);
  for (const report of extensions.plugins.reports) {
    if (report.status === "failed" && report.error?.includes("already registered")) {
      notice(`plugin ${report.name}: ${report.error}; its tools were left out`);
    }
  }
}
