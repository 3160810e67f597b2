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

/** `hermes doctor` lines for what checkpoints, the memory provider and the learning loop need. */
export async function workflowChecks(home: string, config: HermesConfig): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  if (config.checkpoints.enabled !== false) {
    const { spawnSync } = await import("node:child_process");
    const git = spawnSync("git", ["--version"], { encoding: "utf8" });
    const ok = git.status === 0;
    results.push({
      name: "checkpoints",
      ok,
      essential: false,
      detail: ok ? `${git.stdout.trim()} takes the snapshots /rollback restores` : "git is not on PATH: no checkpoints",
      ...(ok ? {} : { hint: "install git (Debian/Ubuntu: apt-get install git), or set checkpoints.enabled: false" }),
    });
  }
  if (config.memory.provider === "local") {
    const { existsSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { hermesPaths } = await import("../state/paths.js");
    const { FACTS_FILE } = await import("../state/fact-store.js");
    const path = join(hermesPaths(home).memoriesDir, FACTS_FILE);
    let detail = `local facts: none yet (${path} is made on first use)`;
    let ok = true;
    if (existsSync(path)) {
      try {
        const { openFactStore } = await import("../state/sqlite-fact-store.js");
        const store = openFactStore(path);
        detail = `local facts: ${store.count()} in ${path}`;
        store.close();
      } catch (error) {
        ok = false;
        detail = `${path} does not open: ${(error as Error).message}`;
      }
    }
    results.push({
      name: "memory",
      ok,
      essential: false,
      detail,
      ...(ok ? {} : { hint: "hermes memory reset --yes starts it afresh" }),
    });
  }
  if (config.learning.mode === "review") {
    const { ProposalQueue } = await import("../state/learning-proposals.js");
    try {
      const waiting = new ProposalQueue(home).list().length;
      results.push({
        name: "learning",
        ok: true,
        essential: false,
        detail: `${waiting} learning proposal(s) waiting`,
        ...(waiting ? { hint: "hermes learn list, then apply or reject" } : {}),
      });
    } catch (error) {
      results.push({ name: "learning", ok: false, essential: false, detail: (error as Error).message });
    }
  }
  return results;
}
