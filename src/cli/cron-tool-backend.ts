/** The scheduler behind a terminal, API server or gateway session's `cronjob` tool: the cron store. */
import type { CronToolLoader } from "../runtime/cron-tool.js";

export const loadCronToolBackend: CronToolLoader = async ({ storeLocation, home, config }) => {
  const [{ openCronStore }, { cronToolBackend }, { configuredHosts }, { externalSkillDirs }] = await Promise.all([
    import("../state/cron-store.js"),
    import("../cron/tool-backend.js"),
    import("../cron/job-fields.js"),
    import("../runtime/skill-dirs.js"),
  ]);
  const store = await openCronStore(storeLocation);
  const backend = cronToolBackend(store, {
    home,
    configuredHosts: configuredHosts(config),
    externalDirs: externalSkillDirs(config.skills.external_dirs, home),
  });
  return { backend, close: () => store.close() };
};
