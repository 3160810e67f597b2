/**
 * The `cronjob` tool for every surface, not only the gateway: a job made in the terminal or
 * through the API server lands in the same store the gateway's ticker runs from. The cron store
 * opens on the tool's first call, so a run that never schedules anything never opens it.
 */

import type { HermesConfig } from "../state/config-schema.js";
import type { CronStore } from "../state/cron-store.js";
import { type CronToolBackend, registerCronjobTool } from "../tools/builtin/cronjob.js";
import type { ToolRegistry } from "../tools/registry.js";
import { externalSkillDirs } from "./skill-dirs.js";

export interface LazyCronTool {
  close(): Promise<void>;
}

type Method = keyof CronToolBackend;

export function registerLazyCronjobTool(
  registry: ToolRegistry,
  input: { storeLocation: string; home: string; config: HermesConfig },
): LazyCronTool {
  let opening: Promise<{ store: CronStore; backend: CronToolBackend }> | undefined;
  const open = () => {
    opening ??= (async () => {
      const [{ openCronStore }, { cronToolBackend }, { configuredHosts }] = await Promise.all([
        import("../state/cron-store.js"),
        import("../cron/tool-backend.js"),
        import("../cron/job-fields.js"),
      ]);
      const store = await openCronStore(input.storeLocation);
      const backend = cronToolBackend(store, {
        home: input.home,
        configuredHosts: configuredHosts(input.config),
        externalDirs: externalSkillDirs(input.config.skills.external_dirs, input.home),
      });
      return { store, backend };
    })();
    // A failed open is tried again on the next call rather than remembered.
    opening.catch(() => {
      opening = undefined;
    });
    return opening;
  };
  const forward =
    <M extends Method>(method: M) =>
    async (...args: Parameters<CronToolBackend[M]>): Promise<unknown> => {
      const { backend } = await open();
      return (backend[method] as (...a: Parameters<CronToolBackend[M]>) => Promise<unknown>)(...args);
    };
  const backend: CronToolBackend = {
    create: forward("create"),
    list: forward("list") as CronToolBackend["list"],
    update: forward("update"),
    pause: forward("pause"),
    resume: forward("resume"),
    remove: forward("remove"),
    runSoon: forward("runSoon"),
  };
  registerCronjobTool(registry, backend);
  return {
    async close() {
      if (!opening) return;
      const opened = await opening.catch(() => undefined);
      opened?.store.close();
    },
  };
}
