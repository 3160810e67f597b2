/**
 * Starting and stopping the API server on a runtime. hono and its Node adapter are loaded here,
 * when the server starts, never by the CLI's other commands.
 */
import type { AddressInfo } from "node:net";
import type { HermesRuntime } from "../runtime/runtime.js";
import { type ApiServerStore, openApiServerStore } from "../state/api-store.js";
import { createKeyRing } from "./auth.js";
import { RunSlots, type ServerContext } from "./context.js";
import { type ApiServerSettings, assertUsableKeys } from "./settings.js";

export interface ApiServerHandle {
  /** e.g. http://127.0.0.1:8642 */
  url: string;
  port: number;
  /** Stops accepting requests, interrupts running turns and closes the API tables. */
  close(): Promise<void>;
}

export interface StartApiServerOptions {
  runtime: HermesRuntime;
  settings: ApiServerSettings;
  /** Defaults to the API tables in the runtime's state.db. */
  store?: ApiServerStore;
  /** Unexpected errors and lifecycle notes, for the server log. */
  log?: (message: string) => void;
}

export async function startApiServer(options: StartApiServerOptions): Promise<ApiServerHandle> {
  const { runtime, settings } = options;
  assertUsableKeys(settings);
  const log = options.log ?? (() => {});
  const store = options.store ?? (await openApiServerStore(runtime.storeLocation));
  const ctx: ServerContext = {
    runtime,
    store,
    settings,
    keys: createKeyRing(settings.keys),
    slots: new RunSlots(settings.maxConcurrentRuns),
    startedAt: Date.now(),
    busySessions: new Set(),
  };
  const [{ serve }, { createApp }, { RunManager }, { ApiBackgroundResults }] = await Promise.all([
    import("@hono/node-server"),
    import("./app.js"),
    import("./runs/manager.js"),
    import("./background-results.js"),
  ]);
  const runs = new RunManager(ctx);
  const interrupted = await runs.recover();
  if (interrupted > 0) log(`${interrupted} run(s) unfinished at the last shutdown are marked interrupted`);
  // Finished background subagents report to their sessions in a run of their own.
  const background = new ApiBackgroundResults(ctx, runs, log);
  ctx.onTurnReleased = () => background.pump();
  background.start();
  const app = createApp(ctx, runs, { onError: (error) => log(`request failed: ${error.stack ?? error.message}`) });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, hostname: settings.host, port: settings.port }, () => resolve(started));
    started.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: async () => {
      // No result starts a run from here on; those under way are stopped with every other run.
      const backgroundClosed = background.close();
      runs.stopAll("the server is shutting down");
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await runs.settled();
      await backgroundClosed;
      if (!options.store) store.close();
    },
  };
}
