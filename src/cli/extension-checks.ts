/** `hermes doctor` lines for plugins and shell hooks: one per plugin that does not load, and hooks awaiting consent. */
import type { HermesConfig } from "../state/config-schema.js";
import type { CheckResult } from "./commands/doctor.js";

export async function extensionChecks(
  home: string,
  config: HermesConfig,
  env: Record<string, string | undefined>,
): Promise<CheckResult[]> {
  const { extensionsWanted } = await import("../runtime/plugins/candidates.js");
  if (!extensionsWanted(home, config)) return [];
  const { loadPlugins } = await import("../runtime/plugins/loader.js");
  const { configuredShellHooks, isApproved } = await import("../runtime/plugins/shell-hooks.js");
  const results: CheckResult[] = [];
  const set = await loadPlugins({ home, config, env });
  for (const report of set.reports) {
    if (report.status === "disabled") continue;
    const ok = report.status === "loaded";
    results.push({
      name: "plugin",
      ok,
      essential: false,
      detail: ok
        ? `${report.name} loads (${report.registered.length} registrations)`
        : `${report.name}: ${report.error}`,
      ...(ok ? {} : { hint: `fix it, or hermes plugins disable ${report.name}` }),
    });
  }
  const { hooks, problems } = configuredShellHooks(config);
  const waiting = hooks.filter((hook) => !isApproved(home, config, hook)).length;
  if (hooks.length > 0 || problems.length > 0) {
    results.push({
      name: "hooks",
      ok: waiting === 0 && problems.length === 0,
      essential: false,
      detail:
        problems[0]?.message ??
        (waiting
          ? `${waiting} of ${hooks.length} shell hook(s) not approved; they do not run`
          : `${hooks.length} shell hook(s) approved`),
      hint: "hermes hooks list, then hermes hooks approve ID...",
    });
  }
  return results;
}
