/**
 * The `cronjob` tool for every surface that asks for it, not only the gateway: a job made in the
 * terminal or through the API server lands in the same store the gateway's ticker runs from.
 * The surface supplies how to open that store (the scheduler lives above this layer); it opens
 * on the tool's first call, so a run that never schedules anything never opens it.
 */
import type { HermesConfig } from "../state/config-schema.js";
import { type CronToolBackend, registerCronjobTool } from "../tools/builtin/cronjob.js";
import type { ToolRegistry } from "../tools/registry.js";

export interface OpenedCronTool {
  backend: CronToolBackend;
  close(): void;
}

/** Opens the scheduler behind the tool (src/cli/cron-tool-backend.ts). */
export type CronToolLoader = (input: {
  storeLocation: string;
  home: string;
  config: HermesConfig;
}) => Promise<OpenedCronTool>;

export interface LazyCronTool {
  close(): Promise<void>;
}

type Method = keyof CronToolBackend;

export function registerLazyCronjobTool(
  registry: ToolRegistry,
  load: CronToolLoader,
  input: { storeLocation: string; home: string; config: HermesConfig },
): LazyCronTool {
  let opening: Promise<OpenedCronTool> | undefined;
  const open = () => {
    opening ??= load(input);
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
      opened?.close();
    },
  };
}
